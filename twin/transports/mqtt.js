'use strict';
/**
 * Twin transport over the MQTT path (contract 5): the twin is an MQTT client of the cloud's
 * s7twin-mqtt-broker, user with role `twin`. It publishes its inputs as compact JSON on
 * `s7twin/<plant>/cmd` (every input that changed in one twin tick = one message) and reads the
 * PLC's outputs from `s7twin/<plant>/state`; the broker's retained snapshot on subscribe is
 * reported as kind 'snap'. Probes: `{"i":slot,"v":value}` on `.../probe/req`, answers on
 * `.../probe/res/<slot>` (nodes/lib/mqtt/topics.js): the transport subscribes to the response
 * topic of each slot it probes (the first probe of a slot goes out once the broker granted that
 * subscription, and every slot is subscribed again after a reconnect), so it receives its own
 * answers only, not every twin's.
 *
 *   npm run twin -- --protocol mqtt --url mqtt://127.0.0.1:1883 --username twin --password pw \
 *                   [--plant plant1] [--qos 0|1]        (or --url ws://127.0.0.1:9001/mqtt)
 *
 * mqtt.js does not set TCP_NODELAY: it is set on the TCP socket on connect and on the socket
 * under the WebSocket at upgrade (Nagle + delayed ACK cost tens of ms per small message).
 * Reconnects with exponential back-off and jitter (nodes/lib/core/backoff.js) instead of mqtt.js'
 * fixed period. Inputs that change while down are not queued message by message: after a
 * reconnect the whole input image goes out as one command, so the PLC sees the plant as it is
 * now; the same image answers the PLC's whole-image state message (sent when the PLC itself
 * reconnects), in case our resend reached the broker before the PLC did. A refused login
 * (CONNACK 4 or 5) is not retried.
 */
const { TransportError, createErrorCounter } = require('./common');
const mqtt = require('mqtt');
const tags = require('../../nodes/lib/core/tags');
const payloads = require('../../nodes/lib/mqtt/payload');
const { topicsOf, slotOfResponse } = require('../../nodes/lib/mqtt/topics');
const { createBackoff } = require('../../nodes/lib/core/backoff');

const STREAMED = tags.outputs.filter((t) => !t.noStream).map((t) => t.short);
// The browser twin runs this same transport (mqtt.js' browser build and the browser's own
// WebSocket, in the page's worker): the ws package, its options and socket counting are Node's.
const IN_NODE = typeof process !== 'undefined' && Boolean(process.versions && process.versions.node);
const utf8 = new TextEncoder();

const DEFAULTS = {
  plant: 'plant1',
  qos: 0, // the study's choice: an old value is worth less than a timely one; 1 = at least once
  connectTimeoutMs: 10000, // connect() gives up after 10 s
  keepaliveS: 15, // MQTT PINGREQ period; a dead broker is noticed within 1.5 periods
  maxErrorCodes: 50, // distinct error codes remembered
  noDelay: true, // TCP_NODELAY; false only to measure a stock mqtt.js client (bench)
};


/**
 * @param {object} opts
 * @param {string} opts.url mqtt://host:port or ws://host:port/mqtt
 * @param {string} [opts.username] MQTT user with role twin
 * @param {string} [opts.password]
 * @param {Buffer} [opts.ca] CA certificate(s) for mqtts:// or wss://
 * @param {string} [opts.plant] plant id in the topics (default plant1)
 * @param {0|1|string} [opts.qos]
 * @param {string} [opts.id] client id suffix
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log]
 */
function createTransport(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.url || !/^(mqtts?|wss?):\/\//.test(o.url)) {
    throw new TransportError('E_TRANSPORT_CONFIG', 'the mqtt transport needs a url (mqtt://host:1883 or ws://host:9001/mqtt)');
  }
  const qos = Number(o.qos);
  if (qos !== 0 && qos !== 1) throw new TransportError('E_TRANSPORT_CONFIG', `qos must be 0 or 1, got ${o.qos}`);
  const T = topicsOf(o.plant);
  // Probe slots whose response topic we subscribe to: slot -> true once granted on the current
  // connection, or the probes waiting for the SUBACK (so no answer can precede its subscription).
  const slots = new Map();
  const id = String(o.id || `${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const backoff = createBackoff(o.backoff || {});
  const log = o.log || (() => {});
  const valueCbs = [];
  const probeCbs = [];
  const image = {};
  const stats = {
    connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, snapshots: 0, errors: 0, errorCodes: {},
    badFrames: 0, coalesced: 0, probesDropped: 0, resyncs: 0, authFailures: 0, bytesOut: 0, bytesIn: 0, payloadBytesOut: 0, payloadBytesIn: 0,
  };
  let client = null;
  let closed = false;
  let dirty = false;
  let firstConnect = null;
  let wire = null; // the TCP socket carrying the current connection
  const wireDone = { in: 0, out: 0 }; // bytes of earlier connections

  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log, label: 'mqtt transport' });

  function useWire(sock) {
    if (!sock || sock === wire) return;
    retireWire();
    wire = sock;
    if (o.noDelay !== false && o.noDelay !== 'false' && typeof sock.setNoDelay === 'function') sock.setNoDelay(true);
  }
  function retireWire() {
    if (!wire) return;
    wireDone.in += wire.bytesRead || 0;
    wireDone.out += wire.bytesWritten || 0;
    wire = null;
  }

  function publish(t, obj) {
    const text = JSON.stringify(obj);
    client.publish(t, text, { qos, retain: false });
    stats.sent += 1;
    stats.payloadBytesOut += utf8.encode(text).length;
  }

  function fail(err) {
    closed = true;
    if (client) client.end(true);
    if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.reject(err); firstConnect = null; } else countError(err.code, err.message);
  }

  function open() {
    client = mqtt.connect(o.url, {
      username: o.username,
      password: o.password,
      clientId: `s7twin-twin-${id}`.slice(0, 23), // MQTT 3.1.1 servers need only accept 23 characters
      clean: true,
      keepalive: o.keepaliveS,
      connectTimeout: o.connectTimeoutMs,
      reconnectPeriod: backoff.next(),
      resubscribe: false, // subscriptions are made on every connect below
      ...(o.ca ? { ca: o.ca } : {}), // mqtts:// with a private CA (--ca, S7T_CA_FILE)
      ...(!IN_NODE ? {} : {
        createWebsocket: (url, protocols, wo) => {
          const WebSocket = require('ws');
          const ws = new WebSocket(url, protocols, { ...(wo && wo.wsOptions), perMessageDeflate: false, ...(o.ca ? { ca: o.ca } : {}) });
          ws.on('upgrade', (res) => useWire(res.socket));
          return ws;
        },
      }),
    });
    client.on('connect', () => {
      if (client.stream && typeof client.stream.setNoDelay === 'function') useWire(client.stream);
      stats.connected = true;
      stats.connects += 1;
      if (stats.connects > 1) stats.reconnects += 1;
      backoff.connected();
      client.subscribe([T.state], { qos }, (err) => { if (err) countError('E_MQTT_SUBSCRIBE', err.message); });
      // Every slot again on the new connection; probes that waited for a SUBACK of the old one are lost.
      for (const [slot, sub] of [...slots]) {
        if (sub !== true) stats.probesDropped += sub.length;
        slots.delete(slot);
        subscribeSlot(slot);
      }
      // Back after a drop: bring the PLC up to date with the plant as it is now.
      if (stats.connects > 1 && (dirty || Object.keys(image).length)) publish(T.cmd, { ...image });
      dirty = false;
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.resolve(); firstConnect = null; }
    });
    client.on('offline', () => {
      backoff.disconnected();
      client.options.reconnectPeriod = backoff.next();
    });
    client.on('reconnect', () => { client.options.reconnectPeriod = backoff.next(); });
    client.on('close', () => {
      if (stats.connected) stats.connected = false;
      retireWire();
    });
    client.on('error', (err) => {
      stats.lastError = err.message;
      // CONNACK 4 (bad user name or password) / 5 (not authorized): retrying will not help.
      if (err.code === 4 || err.code === 5) {
        stats.authFailures += 1;
        fail(new TransportError('E_UNAUTHORIZED', `the MQTT broker refused the login (${err.message}) at ${o.url}`));
      }
    });
    client.on('message', (t, payload, packet) => {
      stats.received += 1;
      stats.payloadBytesIn += payload.length;
      if (t === T.state) {
        let values;
        try { values = payloads.decodeState(payload); } catch (err) { stats.badFrames += 1; countError(err.code, err.message); return; }
        const kind = packet.retain ? 'snap' : 'state';
        if (kind === 'snap') stats.snapshots += 1;
        // The PLC publishes its whole image right after it (re)connects and subscribes. If the
        // broker restarted, our own resend may have gone out before the PLC was back (QoS 0, clean
        // sessions: nothing is queued for it), so answer the PLC's image with ours. Resending
        // values the PLC already has makes no edge; a change it missed arrives now.
        else if (STREAMED.every((k) => k in values) && Object.keys(image).length && up()) {
          stats.resyncs += 1;
          publish(T.cmd, { ...image });
        }
        for (const cb of valueCbs) cb(values, kind);
      } else if (slotOfResponse(t, o.plant) !== null) {
        let p;
        try { p = payloads.checkProbe(payload); } catch (err) { stats.badFrames += 1; countError(err.code, err.message); return; }
        for (const { i, v } of p.items) for (const cb of probeCbs) cb(i, v);
      }
    });
  }

  const up = () => client && client.connected;

  /** Subscribe to one slot's response topic; probes asked meanwhile go out on the SUBACK. */
  function subscribeSlot(slot) {
    const waiting = [];
    slots.set(slot, waiting);
    const c = client;
    c.subscribe(T.res(slot), { qos }, (err) => {
      if (c !== client || slots.get(slot) !== waiting) return; // a newer connection took over
      if (err) { // refused (SUBACK 0x80: mqtt.js reports it as an error) or the connection dropped
        slots.delete(slot);
        stats.probesDropped += waiting.length;
        countError('E_MQTT_SUBSCRIBE', `${T.res(slot)}: ${err.message}`);
        return;
      }
      slots.set(slot, true);
      if (!up()) { stats.probesDropped += waiting.length; return; }
      for (const v of waiting) publish(T.req, { i: slot, v });
    });
  }

  return {
    /** Connect; resolves once connected, rejects with E_CONNECT_TIMEOUT or E_UNAUTHORIZED. */
    connect() {
      if (closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          firstConnect = null;
          reject(new TransportError('E_CONNECT_TIMEOUT', `no connection to ${o.url} within ${o.connectTimeoutMs} ms${stats.lastError ? ` (${stats.lastError})` : ''}`));
        }, o.connectTimeoutMs);
        firstConnect = { resolve, reject, timer };
        if (!client) open();
      });
    },
    /** Send one command with every input that changed in one tick. */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      Object.assign(image, values);
      if (up()) publish(T.cmd, values);
      else { dirty = true; stats.coalesced += 1; }
    },
    onValues(cb) { valueCbs.push(cb); },
    /** Probe slot `slot` with `value` (load generator). Dropped and counted while down. */
    probe(slot, value) {
      if (!up()) { stats.probesDropped += 1; return; }
      const sub = slots.get(slot);
      if (sub === true) publish(T.req, { i: slot, v: value });
      else if (sub) sub.push(value);
      else { subscribeSlot(slot); slots.get(slot).push(value); }
    },
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      closed = true;
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.reject(new TransportError('E_CLOSED', 'transport closed')); firstConnect = null; }
      if (!client) return Promise.resolve();
      const c = client;
      return new Promise((resolve) => {
        const t = setTimeout(() => c.end(true, {}, () => resolve()), 1000);
        c.end(false, {}, () => { clearTimeout(t); resolve(); });
      }).then(() => retireWire());
    },
    stats() {
      return {
        ...stats,
        errorCodes: { ...stats.errorCodes },
        bytesIn: wireDone.in + (wire ? wire.bytesRead || 0 : 0),
        bytesOut: wireDone.out + (wire ? wire.bytesWritten || 0 : 0),
      };
    },
    topics: T,
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
