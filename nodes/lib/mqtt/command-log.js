'use strict';
/**
 * What the broker tells the command log (`audit`, lib/history/command-audit.js, handed in by the
 * broker node) of each publish on a plant's command topic (`s7twin/<plant>/cmd`), whoever sent
 * it: who (the MQTT user and role, never the password), from where (the client's address:port),
 * when it arrived, what it asked (the checked values by the table's short names; for a refused
 * one what it named, when its payload was a JSON object), and what the broker did with it:
 * `relayed` (let through to the plant's subscribers: the PLC's own client applies it as it
 * arrives, and MQTT has no answer per command, so not "written"), or `refused` with the code the
 * client was disconnected for (E_MQTT_PUBLISH: its role or plant may not command here;
 * E_RATE_LIMIT; E_MQTT_TOO_LARGE; E_MQTT_JSON, E_MQTT_CMD, E_UNKNOWN_TAG, E_NOT_WRITABLE,
 * E_TYPE, E_RANGE: the payload).
 *
 * `src` is the MQTT client id and `seq` the command's number on its connection. Probes, states
 * and the link's topics are not commands and are not logged.
 *
 * Plain module: the protocol modules never import lib/history (docs/layout.md).
 */
const clock = require('../core/clock');
const auth = require('./auth');
const { askedOf } = require('./payload');

/**
 * The client's address and port (TCP, TLS and WebSocket: lib/mqtt/listeners.js hands aedes the
 * request, or for TCP the socket, with each connection).
 * @param {object} client aedes' client
 * @returns {string|undefined}
 */
function remoteOf(client) {
  const s = client && client.req && client.req.socket;
  return s && s.remoteAddress ? `${s.remoteAddress}:${s.remotePort}` : undefined;
}

/**
 * @param {object} o
 * @param {{taken(c: object): boolean}} [o.audit] the command log's recorder; none: nothing is logged
 * @param {() => number} [o.now] the cloud's clock
 * @returns {(client: object, user: object|undefined, packet: object) => null|{relayed(d: object): void,
 *   refused(code: string, msg: string): void}} the command a publish is, or null (not a command, or no log)
 */
function createCommandLog(o) {
  const { audit } = o;
  const now = o.now || clock.now;
  const seqOf = new WeakMap(); // aedes client -> commands it sent on this connection
  return (client, user, packet) => {
    if (!audit || auth.kindOf(packet.topic) !== 'cmd') return null;
    const at = now();
    const seq = (seqOf.get(client) || 0) + 1;
    seqOf.set(client, seq);
    const base = {
      via: 'mqtt', plant: auth.plantOf(packet.topic), at, who: user ? { user: user.username, role: user.role } : undefined,
      from: remoteOf(client), src: client.id, seq, target: packet.topic,
    };
    return {
      relayed: (d) => { audit.taken({ ...base, d, outcome: 'relayed' }); },
      refused: (code, msg) => { audit.taken({ ...base, d: askedOf(packet.payload), outcome: 'refused', code, msg }); },
    };
  };
}

module.exports = { createCommandLog, remoteOf };
