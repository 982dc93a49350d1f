'use strict';
/**
 * Who may do what on the broker: aedes' authenticate, authorizePublish and authorizeSubscribe
 * hooks, over the user list and role ACLs (lib/mqtt/auth.js), the payload checks
 * (lib/mqtt/payload.js) and the per-client limits (lib/access/peer-limits.js). No sockets here:
 * the hooks are called with aedes' client objects, and tests call them with stand-ins.
 *
 * - A client id is bound to the user that holds it: MQTT lets a new connection with a known
 *   client id take the old session over (MQTT-3.1.4-2), so otherwise any twin could kick the PLC
 *   off.
 * - MQTT 3.1.1 gives a broker no way to refuse a PUBLISH except closing the connection
 *   (MQTT-3.3.5-2), so a refused publish disconnects the client; a refused SUBSCRIBE is granted
 *   as 0x80 (failure) and the connection stays.
 * - Nothing stale reaches a PLC. No publish is retained: a retained command would be handed to
 *   every later subscriber however old it is. A persistent session (clean session 0) may not
 *   subscribe to the command or probe request topics at QoS 1 or 2: the broker would queue the
 *   commands sent while that PLC is away and deliver them late when it comes back (MQTT-3.1.2-5).
 *   Such a subscription is refused (0x80, E_MQTT_PERSISTENT); at QoS 0, or with a clean session,
 *   it is granted. (Granting QoS 0 instead is not possible with aedes: its SUBACK always reports
 *   the QoS asked for.)
 * - Per-client limits: a PUBLISH or SUBSCRIBE rate and a budget of refused subscriptions; past
 *   either the client is disconnected and counted. The PLC role is exempt: it publishes one probe
 *   response per twin probe.
 * - The command log (`audit`): every publish on a command topic, with what became of it here
 *   (lib/mqtt/command-log.js).
 */
const peerLimits = require('../access/peer-limits');
const auth = require('./auth');
const payloads = require('./payload');
const { isLinkTopic } = require('./topics');
const { serverError: err } = require('./errors');
const { createCommandLog } = require('./command-log');

// Filters of the topics twins send to the PLC (commands, probe requests), any plant.
const TO_PLC = [auth.TOPICS.commandTopic, auth.TOPICS.probeRequestTopic].map((t) => t.replace('{plant}', '+'));

/**
 * Per-client packet rate and refusal budget.
 * @returns {(client: object, kind: 'frame'|'error') => Error|null} count one packet (or, with
 *   'error', one refusal) of a client: null, or the error to disconnect it with
 */
function createClientLimits(x) {
  const { o } = x;
  const limitsOf = new WeakMap(); // aedes client -> peer limits (gone with the client)
  return (client, kind) => {
    const user = x.roleOf.get(client);
    if (!user || o.exemptRoles.includes(user.role)) return null;
    let l = limitsOf.get(client);
    if (!l) {
      l = peerLimits.createPeerLimits({ ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs });
      limitsOf.set(client, l);
    }
    const over = kind === 'error' ? l.error() : l.frame();
    if (!over) return null;
    x.counters[over.code === 'E_RATE_LIMIT' ? 'rateLimited' : 'errorBudget'] += 1;
    x.report({ type: 'refused', code: over.code, message: `${over.message}`, clientId: client.id, user: user.username });
    return err(over.code, over.message);
  };
}

/** aedes' authenticate: the user list, and a client id held by another user refused. */
function authenticateHook(x) {
  return (client, username, password, cb) => {
    const user = x.authorizer.authenticate(username, password);
    if (!user) {
      x.counters.authFailures += 1;
      x.report({
        type: 'refused', code: 'E_MQTT_AUTH', message: `bad user name or password${username ? ` for "${username}"` : ''}`, clientId: client && client.id,
      });
      const e = err('E_MQTT_AUTH', 'bad user name or password');
      e.returnCode = username ? 4 : 5; // 4 = bad user name or password, 5 = not authorized
      cb(e, false);
      return;
    }
    const holder = x.clients()[client.id];
    const holderUser = holder && holder !== client ? x.roleOf.get(holder) : null;
    if (holderUser && holderUser.username !== user.username) {
      x.counters.takeoverRefused += 1;
      x.report({
        type: 'refused', code: 'E_MQTT_CLIENT_ID', message: `client id "${client.id}" is in use by another user`, clientId: client.id, user: user.username,
      });
      const e = err('E_MQTT_CLIENT_ID', 'client id in use by another user');
      e.returnCode = 2; // identifier rejected
      cb(e, false);
      return;
    }
    x.roleOf.set(client, user);
    cb(null, true);
  };
}

/** aedes' authorizePublish: limits, role, size, payload checks; the retain flag cleared. */
function publishHook(x) {
  const { o, counters } = x;
  const refuse = (client, packet, code, message, cb, command) => {
    const user = x.roleOf.get(client);
    x.report({ type: 'refused', code, message: `${message} (topic "${packet.topic}")`, clientId: client.id, user: user && user.username });
    if (command) command.refused(code, message);
    cb(err(code, message));
  };
  return (client, packet, cb) => {
    // Only wills of clients no broker holds any more arrive without a client; with no user to
    // check them against, they are refused (a twin's own will is checked like its publishes).
    if (!client) { counters.publishRefused += 1; cb(err('E_MQTT_PUBLISH', 'will without a client')); return; }
    const user = x.roleOf.get(client);
    // A publish on a command topic, for the command log (null: another topic, or no log).
    const command = x.commandOf(client, user, packet);
    const limited = x.overLimit(client, 'frame');
    if (limited) { if (command) command.refused(limited.code, limited.message); cb(limited); return; }
    if (!x.authorizer.canPublish(user, packet.topic)) {
      counters.publishRefused += 1;
      refuse(client, packet, 'E_MQTT_PUBLISH', `role "${user ? user.role : '?'}" may not publish here`, cb, command);
      return;
    }
    const size = packet.payload ? packet.payload.length : 0;
    // The link's frames (a snapshot, a probe frame of many slots) may be larger than a command:
    // the frame guard's limit bounds them, and the link checks its own.
    const limit = isLinkTopic(packet.topic) ? o.maxFrameBytes : o.maxPayloadBytes;
    if (size > limit) {
      counters.payloadRefused += 1;
      refuse(client, packet, 'E_MQTT_TOO_LARGE', `payload of ${size} bytes exceeds ${limit}`, cb, command);
      return;
    }
    const kind = auth.kindOf(packet.topic);
    let values;
    try {
      // Each plant's commands are checked against its own table (its probes against its slots).
      const table = kind === 'cmd' || kind === 'probe' ? o.tableOf(auth.plantOf(packet.topic)) : null;
      if (o.validatePayloads && kind === 'cmd') values = payloads.checkCommand(packet.payload, table);
      else if (o.validatePayloads && kind === 'probe') payloads.checkProbe(packet.payload, table.PROBE_SLOTS);
      else if (kind === 'state' && x.onState) x.onState(packet);
    } catch (e) {
      counters.payloadRefused += 1;
      refuse(client, packet, e.code || 'E_MQTT_PAYLOAD', e.message, cb, command);
      return;
    }
    // Retained messages would outlive the plant state they describe; nothing here is retained.
    packet.retain = false;
    counters.messagesIn += 1;
    counters.bytesIn += size;
    if (command) command.relayed(values || payloads.askedOf(packet.payload, o.maxPayloadBytes));
    cb(null);
  };
}

/** aedes' authorizeSubscribe: limits, role, and no QoS > 0 commands for persistent sessions. */
function subscribeHook(x) {
  const { counters } = x;
  return (client, sub, cb) => {
    const limited = x.overLimit(client, 'frame');
    if (limited) { cb(limited); return; }
    const user = x.roleOf.get(client);
    if (x.authorizer.canSubscribe(user, sub.topic)) {
      if (client.clean === false && sub.qos > 0 && TO_PLC.some((f) => auth.filtersOverlap(f, sub.topic))) {
        counters.persistentRefused += 1;
        x.report({
          type: 'refused', code: 'E_MQTT_PERSISTENT', clientId: client.id, user: user && user.username,
          message: `a persistent session (clean session 0) may not subscribe to "${sub.topic}" at QoS ${sub.qos}: ` +
            'commands sent while it is away would be queued and delivered late; connect with a clean session or subscribe at QoS 0',
        });
        cb(null, null); // SUBACK 0x80 for this filter; the connection stays
        return;
      }
      cb(null, sub);
      return;
    }
    counters.subscribeRefused += 1;
    x.report({
      type: 'refused', code: 'E_MQTT_SUBSCRIBE', message: `role "${user ? user.role : '?'}" may not subscribe to "${sub.topic}"`,
      clientId: client.id, user: user && user.username,
    });
    const spent = x.overLimit(client, 'error');
    if (spent) { cb(spent); return; }
    cb(null, null); // SUBACK 0x80 for this filter; the connection stays
  };
}

/**
 * The three hooks over one table of authenticated clients.
 * @param {object} h
 * @param {object} h.o the broker's options (lib/mqtt/server.js DEFAULTS)
 * @param {object} h.counters the broker's counters
 * @param {(ev: object) => void} h.report a refusal, for the log and the node's output
 * @param {object} h.authorizer lib/mqtt/auth.js createAuthorizer
 * @param {() => Object<string, object>} h.clients aedes' clients by id
 * @param {((packet: object) => void)|null} h.onState a PLC state publish let through (the snapshot)
 * @param {{taken(c: object): boolean}} [h.audit] the command log's recorder: every publish on a
 *   command topic, relayed or refused (lib/mqtt/command-log.js)
 * @returns {{authenticate: Function, authorizePublish: Function, authorizeSubscribe: Function,
 *   userOf(client: object): object|undefined}}
 */
function createHooks(h) {
  const x = { ...h, roleOf: new WeakMap() }; // aedes client -> user
  x.overLimit = createClientLimits(x);
  x.commandOf = createCommandLog({ audit: h.audit });
  return {
    authenticate: authenticateHook(x),
    authorizePublish: publishHook(x),
    authorizeSubscribe: subscribeHook(x),
    userOf: (client) => x.roleOf.get(client),
  };
}

module.exports = { createHooks };
