'use strict';
/**
 * The s7twin MQTT broker: aedes 1.x behind a TCP listener and a WebSocket listener (its own
 * port), with user/password authentication, per-topic authorization by role
 * (nodes/lib/mqtt/auth.js), command and probe payloads checked before any PLC sees them
 * (nodes/lib/mqtt/payload.js), a last-known state snapshot per plant handed to every new
 * state subscriber, and counters. Never touches RED: the s7twin-mqtt-broker node is a thin
 * wrapper, and tests and the benchmark run it on its own.
 *
 *   const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: 0, users });
 *   srv.ports   // {tcp, ws}
 *   srv.counters
 *   await srv.close();
 *
 * The parts, each with its own tests: who may do what (hooks.js: authentication, role ACLs,
 * payload checks, per-client limits, nothing retained, no late commands for persistent sessions),
 * the snapshot of each plant's state (snapshot.js), the TCP and WebSocket listeners
 * (listeners.js), and in a fleet the cluster over Redis (cluster.js). This file checks the
 * options, makes the aedes broker and wires them.
 *
 * Per-client limits: MQTT 3.1.1 has no way to tell a client why it is disconnected (MQTT 5's
 * DISCONNECT reason 0x96 "message rate too high" does not exist there), so the reason goes to the
 * log and the node's output.
 */
const { EventEmitter } = require('node:events');
const peerLimits = require('../access/peer-limits');
const auth = require('./auth');
const { createMqttCluster } = require('./cluster');
const { MqttServerError, serverError: err } = require('./errors');
const { createHooks } = require('./hooks');
const { plantTables } = require('../core/io-table');
const { createSnapshots } = require('./snapshot');
const { createListeners } = require('./listeners');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 1883, // MQTT over TCP; null or false = off; 0 = any free port
  wsPort: 9001, // MQTT over WebSocket on its own HTTP server; null or false = off
  wsPath: '/mqtt', // the path mqtt.js and browser clients use by default
  maxPayloadBytes: 4096, // a PUBLISH payload above this is refused (a whole-plant command is ~100 bytes)
  maxFrameBytes: 65536, // a packet announcing more is dropped before it is read (TCP and WebSocket)
  connectTimeoutMs: 10000, // a connection must send CONNECT within 10 s
  drainTimeoutMs: 10000, // a subscriber that stops reading for 10 s is dropped, so it cannot stall others
  keepaliveLimitS: 600, // clients may not ask for keep-alives longer than 10 minutes
  validatePayloads: true, // check twin commands and probes against each plant's I/O table
  // Each plant's I/O table: the one an I/O table node names it in, else S7T_IO_TABLE's, else the
  // demo plant's (lib/core/io-table.js plantTables)
  tableOf: (plant) => plantTables.get(plant),
  snapshot: true, // hand the merged PLC state to new state subscribers
  noDelay: true, // TCP_NODELAY on every socket; false only to reproduce a stock aedes server (bench)
  redisUrl: null, // a fleet's Redis (S7T_REDIS_URL): cluster with the other instances' brokers
  tls: null, // {key, cert} (PEM): mqtts on the TCP port, wss on the WebSocket port, no plain text
  ratePerS: peerLimits.DEFAULTS.ratePerS, // PUBLISH + SUBSCRIBE a second per client (0 = off)
  burst: peerLimits.DEFAULTS.burst, // packets above that rate absorbed at once
  errors: peerLimits.DEFAULTS.errors, // refused subscriptions per errorWindowMs (0 = off)
  errorWindowMs: peerLimits.DEFAULTS.errorWindowMs,
  // Roles without limits: the PLC answers every twin's probes; the link's two ends carry every
  // twin's commands and answers, and a state every scan.
  exemptRoles: ['plc', 'edge', 'link'],
  // The command log's recorder (lib/history/command-audit.js, handed in by the broker node): every
  // publish on a command topic, relayed or refused (lib/mqtt/command-log.js); null: none
  audit: null,
};

/**
 * Check the options (merged with DEFAULTS).
 * @throws {MqttServerError} E_MQTT_CONFIG
 */
function checkOptions(o, users) {
  if (users.size === 0) throw err('E_MQTT_CONFIG', 'no MQTT users configured: every client would be refused');
  if (o.tls && !(o.tls.key && o.tls.cert)) throw err('E_MQTT_CONFIG', 'tls needs both a key and a certificate');
  for (const k of ['ratePerS', 'burst', 'errors', 'errorWindowMs']) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw err('E_MQTT_CONFIG', `${k} must be a number >= 0`);
  }
  for (const k of ['maxPayloadBytes', 'maxFrameBytes']) {
    if (!(Number.isInteger(o[k]) && o[k] > 0)) throw err('E_MQTT_CONFIG', `${k} must be a positive integer`);
  }
  if (!o.port && o.port !== 0 && !o.wsPort && o.wsPort !== 0) throw err('E_MQTT_CONFIG', 'neither a TCP nor a WebSocket port is set');
}

function newCounters() {
  return {
    connections: 0, // sockets accepted (TCP + WebSocket)
    clients: 0, // authenticated MQTT clients now
    connects: 0, // successful CONNECTs
    disconnects: 0,
    authFailures: 0, // bad user or password
    publishRefused: 0, // topic not allowed for the role
    payloadRefused: 0, // command/probe failed the checks, or payload too large
    subscribeRefused: 0, // filter not allowed for the role
    oversized: 0, // connections dropped by the frame guard
    takeoverRefused: 0, // logins refused because another user holds the client id
    clientErrors: 0,
    messagesIn: 0, // PUBLISH packets accepted from clients
    bytesIn: 0, // their payload bytes
    snapshots: 0, // snapshots handed to new subscribers
    persistentRefused: 0, // QoS 1/2 command or probe request subscriptions of persistent sessions
    tlsErrors: 0, // failed TLS handshakes (plain text on a TLS port, a certificate refused)
    rateLimited: 0, // clients disconnected for their packet rate
    errorBudget: 0, // clients disconnected for too many refused subscriptions
  };
}

/** The aedes broker, on a fleet's Redis when there is one (the cluster closed if it fails). */
async function createBroker(o, cluster) {
  const { Aedes } = await import('aedes');
  try {
    return await Aedes.createBroker({
      connectTimeout: o.connectTimeoutMs,
      drainTimeout: o.drainTimeoutMs,
      keepaliveLimit: o.keepaliveLimitS,
      heartbeatInterval: 60000, // $SYS heartbeat, 1 minute (aedes default)
      ...(cluster ? { mq: cluster.mq, persistence: cluster.persistence } : {}),
    });
  } catch (e) {
    if (cluster) await cluster.close();
    throw e;
  }
}

/** Count connects and disconnects; report client errors that are not the broker's own refusals. */
function countClients(broker, counters, report) {
  broker.on('client', () => { counters.connects += 1; counters.clients += 1; });
  broker.on('clientDisconnect', () => { counters.disconnects += 1; counters.clients = Math.max(0, counters.clients - 1); });
  broker.on('clientError', (client, e) => {
    counters.clientErrors += 1;
    if (!/E_MQTT_/.test(e.code || '')) report({ type: 'error', code: 'E_MQTT_CLIENT', message: e.message, clientId: client && client.id });
  });
  broker.on('connectionError', (client, e) => {
    counters.clientErrors += 1;
    if (!/E_MQTT_/.test(e.code || '')) report({ type: 'error', code: 'E_MQTT_CONNECTION', message: e.message });
  });
}

/**
 * Create and start the broker.
 * @param {object} opts DEFAULTS plus:
 * @param {Map|string} opts.users a parsed user map (mqtt-auth parseUsers) or the user list text
 * @param {(ev: {type:string, code?:string, message:string, clientId?:string, user?:string}) => void} [opts.onEvent]
 *   refusals and errors, for logging
 * @returns {Promise<{ports:{tcp:number|null, ws:number|null}, counters:object, clients():Array,
 *   snapshot(plant:string):object|undefined, events:EventEmitter, close():Promise<void>}>}
 * @throws {MqttServerError|MqttAuthError} E_MQTT_LISTEN, E_MQTT_CONFIG, E_MQTT_USERS
 */
async function createMqttServer(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const users = o.users instanceof Map ? o.users : auth.parseUsers(o.users);
  checkOptions(o, users);
  const events = new EventEmitter();
  const report = (ev) => { if (o.onEvent) { try { o.onEvent(ev); } catch { /* a logger must not break the broker */ } } events.emit('event', ev); };
  const counters = newCounters();
  const cluster = o.redisUrl ? createMqttCluster({ url: o.redisUrl }) : null;
  const broker = await createBroker(o, cluster);
  let closed = false;
  const snapshots = o.snapshot ? createSnapshots({ cluster, counters, isClosed: () => closed, tableOf: o.tableOf }) : null;
  const hooks = createHooks({
    o, counters, report, authorizer: auth.createAuthorizer(users), clients: () => broker.clients,
    onState: snapshots ? snapshots.merge : null, audit: o.audit,
  });
  Object.assign(broker, { authenticate: hooks.authenticate, authorizePublish: hooks.authorizePublish, authorizeSubscribe: hooks.authorizeSubscribe });
  countClients(broker, counters, report);
  if (snapshots) {
    snapshots.attach(broker);
    broker.on('subscribe', snapshots.onSubscribe);
  }
  const listeners = createListeners({ o, broker, counters, report });

  const closeAll = async () => {
    closed = true;
    listeners.drop();
    const brokerClosed = new Promise((r) => broker.close(() => r()));
    await Promise.allSettled([
      ...listeners.close(),
      // A clustered broker's emitter closes when its Redis connections end: cut below if Redis is gone.
      cluster ? Promise.race([brokerClosed, new Promise((r) => setTimeout(r, 2000).unref())]) : brokerClosed,
    ]);
    if (cluster) await cluster.close();
  };
  let ports;
  try {
    ports = await listeners.start();
  } catch (e) {
    await closeAll();
    throw e;
  }

  let closing = null;
  return {
    ports,
    counters,
    events,
    /** Clustered over a fleet's Redis? (its counters: redisErrors, storeErrors) */
    cluster: cluster ? cluster.counters : null,
    /** @returns {Array<{id:string, user:string|undefined, role:string|undefined}>} connected clients */
    clients() {
      return Object.values(broker.clients).map((c) => {
        const u = hooks.userOf(c);
        return { id: c.id, user: u && u.username, role: u && u.role };
      });
    },
    /** @returns {object|undefined} the merged last-known state of a plant */
    snapshot: (plant) => (snapshots ? snapshots.get(plant) : undefined),
    /** Close every client, both listeners and the broker; the ports are free when it resolves. */
    close() {
      if (!closing) closing = closeAll();
      return closing;
    },
  };
}

module.exports = { createMqttServer, DEFAULTS, MqttServerError };
