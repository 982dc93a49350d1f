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
 * Why each choice:
 * - setNoDelay(true) on every socket in the connection handler: a QoS 1 round trip took 44 ms
 *   with Nagle's algorithm (it waits for the delayed ACK) and 0.28 ms without.
 * - MQTT 3.1.1 gives a broker no way to refuse a PUBLISH except closing the connection
 *   (MQTT-3.3.5-2), so a refused publish disconnects the client; a refused SUBSCRIBE is granted
 *   as 0x80 (failure) and the connection stays.
 * - A TCP frame guard reads the fixed header of every packet and drops a connection announcing
 *   a packet larger than maxFrameBytes before it is buffered (aedes/mqtt-packet have no limit,
 *   so an unauthenticated CONNECT of 256 MB would otherwise be held in memory).
 * - The snapshot: the PLC publishes only changes, and a full image only when it (re)connects, so
 *   a twin connecting later would not know whether the plant runs. The broker merges the PLC's
 *   state messages per plant and sends the merge, flagged retained, to each new subscriber of
 *   that state topic; a twin reads a retained state message as its snapshot.
 * - Nothing stale reaches a PLC (issue 16). No publish is retained: a retained command would be
 *   handed to every later subscriber however old it is, so the flag is cleared and the command
 *   reaches only those subscribed now. A persistent session (clean session 0) may not subscribe
 *   to the command or probe request topics at QoS 1 or 2: the broker would queue the commands
 *   sent while that PLC is away and deliver them late when it comes back (MQTT-3.1.2-5). Such a
 *   subscription is refused (0x80, E_MQTT_PERSISTENT, counted in persistentRefused); at QoS 0,
 *   or with a clean session, it is granted. (Granting QoS 0 instead is not possible with aedes:
 *   its SUBACK always reports the QoS asked for.)
 * - A fleet (issue 17, `redisUrl`): the brokers of every cloud instance cluster over Redis
 *   (lib/mqtt/cluster.js: mqemitter-redis, aedes-persistence-redis). The snapshot then merges the
 *   states arriving through the cluster's emitter (from a PLC on any instance), is stored in Redis
 *   by the instance the PLC publishes to, and is read from there for a plant this instance has
 *   not seen a state of yet.
 * - TLS (opts.tls {key, cert}): the TCP port speaks MQTT over TLS (mqtts) and the WebSocket port
 *   https/wss, nothing else; a plain-text client fails the handshake and is never read.
 * - Per-client limits (nodes/lib/access/peer-limits.js): a PUBLISH or SUBSCRIBE rate and a budget of
 *   refused subscriptions per client; past either the client is disconnected and counted
 *   (rateLimited, errorBudget). MQTT 3.1.1 has no way to tell a client why (MQTT 5's DISCONNECT
 *   reason 0x96 "message rate too high" does not exist there), so the reason goes to the log and
 *   the node's output. The PLC role is exempt: it publishes one probe response per twin probe.
 */
const { codedError } = require('../core/errors');
const net = require('node:net');
const tls = require('node:tls');
const { EventEmitter } = require('node:events');
const peerLimits = require('../access/peer-limits');
const { WebSocketServer, createWebSocketStream } = require('ws');
const auth = require('./auth');
const payloads = require('./payload');
const { createFrameGuard } = require('./frame-guard');
const { createMqttCluster } = require('./cluster');

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
  validatePayloads: true, // check twin commands and probes against the tag dictionary
  snapshot: true, // hand the merged PLC state to new state subscribers
  noDelay: true, // TCP_NODELAY on every socket; false only to reproduce a stock aedes server (bench)
  redisUrl: null, // a fleet's Redis (S7T_REDIS_URL): cluster with the other instances' brokers
  tls: null, // {key, cert} (PEM): mqtts on the TCP port, wss on the WebSocket port, no plain text
  ratePerS: peerLimits.DEFAULTS.ratePerS, // PUBLISH + SUBSCRIBE a second per client (0 = off)
  burst: peerLimits.DEFAULTS.burst, // packets above that rate absorbed at once
  errors: peerLimits.DEFAULTS.errors, // refused subscriptions per errorWindowMs (0 = off)
  errorWindowMs: peerLimits.DEFAULTS.errorWindowMs,
  exemptRoles: ['plc'], // roles without limits (the PLC answers every twin's probes)
};

/** Error with a stable `code`. */
const MqttServerError = codedError('MqttServerError');

const err = (code, message) => new MqttServerError(code, message);

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    const onError = (e) => { server.removeListener('listening', onListening); reject(err('E_MQTT_LISTEN', `cannot listen on ${host}:${port}: ${e.message}`)); };
    const onListening = () => { server.removeListener('error', onError); resolve(server.address().port); };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
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
  if (users.size === 0) throw err('E_MQTT_CONFIG', 'no MQTT users configured: every client would be refused');
  if (o.tls && !(o.tls.key && o.tls.cert)) throw err('E_MQTT_CONFIG', 'tls needs both a key and a certificate');
  for (const k of ['ratePerS', 'burst', 'errors', 'errorWindowMs']) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw err('E_MQTT_CONFIG', `${k} must be a number >= 0`);
  }
  for (const k of ['maxPayloadBytes', 'maxFrameBytes']) {
    if (!(Number.isInteger(o[k]) && o[k] > 0)) throw err('E_MQTT_CONFIG', `${k} must be a positive integer`);
  }
  if (!o.port && o.port !== 0 && !o.wsPort && o.wsPort !== 0) throw err('E_MQTT_CONFIG', 'neither a TCP nor a WebSocket port is set');
  const authorizer = auth.createAuthorizer(users);
  const events = new EventEmitter();
  const report = (ev) => { if (o.onEvent) { try { o.onEvent(ev); } catch { /* a logger must not break the broker */ } } events.emit('event', ev); };

  const counters = {
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

  const { Aedes } = await import('aedes');
  const cluster = o.redisUrl ? createMqttCluster({ url: o.redisUrl }) : null;
  let broker;
  try {
    broker = await Aedes.createBroker({
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
  const roleOf = new WeakMap(); // aedes client -> user
  const state = new Map(); // plant -> merged last-known PLC outputs
  const limitsOf = new WeakMap(); // aedes client -> peer limits (gone with the client)

  /** Count one packet (or, with `error`, one refusal) of a client: null, or why it is over. */
  function overLimit(client, kind) {
    const user = roleOf.get(client);
    if (!user || o.exemptRoles.includes(user.role)) return null;
    let l = limitsOf.get(client);
    if (!l) { l = peerLimits.createPeerLimits({ ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs }); limitsOf.set(client, l); }
    const over = kind === 'error' ? l.error() : l.frame();
    if (!over) return null;
    counters[over.code === 'E_RATE_LIMIT' ? 'rateLimited' : 'errorBudget'] += 1;
    report({ type: 'refused', code: over.code, message: `${over.message}`, clientId: client.id, user: user.username });
    return err(over.code, over.message);
  }

  broker.authenticate = (client, username, password, cb) => {
    const user = authorizer.authenticate(username, password);
    if (!user) {
      counters.authFailures += 1;
      report({ type: 'refused', code: 'E_MQTT_AUTH', message: `bad user name or password${username ? ` for "${username}"` : ''}`, clientId: client && client.id });
      const e = err('E_MQTT_AUTH', 'bad user name or password');
      e.returnCode = username ? 4 : 5; // 4 = bad user name or password, 5 = not authorized
      cb(e, false);
      return;
    }
    // MQTT-3.1.4-2 lets a new connection with a known client id take over the old session; a
    // client id is therefore bound to the user that holds it, or any twin could kick the PLC off.
    const holder = broker.clients[client.id];
    const holderUser = holder && holder !== client ? roleOf.get(holder) : null;
    if (holderUser && holderUser.username !== user.username) {
      counters.takeoverRefused += 1;
      report({ type: 'refused', code: 'E_MQTT_CLIENT_ID', message: `client id "${client.id}" is in use by another user`, clientId: client.id, user: user.username });
      const e = err('E_MQTT_CLIENT_ID', 'client id in use by another user');
      e.returnCode = 2; // identifier rejected
      cb(e, false);
      return;
    }
    roleOf.set(client, user);
    cb(null, true);
  };

  const refusePublish = (client, packet, code, message, cb) => {
    const user = roleOf.get(client);
    report({ type: 'refused', code, message: `${message} (topic "${packet.topic}")`, clientId: client.id, user: user && user.username });
    cb(err(code, message));
  };

  broker.authorizePublish = (client, packet, cb) => {
    // Only wills of clients no broker holds any more arrive without a client; with no user to
    // check them against, they are refused (a twin's own will is checked like its publishes).
    if (!client) { counters.publishRefused += 1; cb(err('E_MQTT_PUBLISH', 'will without a client')); return; }
    const limited = overLimit(client, 'frame');
    if (limited) { cb(limited); return; }
    const user = roleOf.get(client);
    if (!authorizer.canPublish(user, packet.topic)) {
      counters.publishRefused += 1;
      refusePublish(client, packet, 'E_MQTT_PUBLISH', `role "${user ? user.role : '?'}" may not publish here`, cb);
      return;
    }
    const size = packet.payload ? packet.payload.length : 0;
    if (size > o.maxPayloadBytes) {
      counters.payloadRefused += 1;
      refusePublish(client, packet, 'E_MQTT_TOO_LARGE', `payload of ${size} bytes exceeds ${o.maxPayloadBytes}`, cb);
      return;
    }
    const kind = auth.kindOf(packet.topic);
    try {
      if (o.validatePayloads && kind === 'cmd') payloads.checkCommand(packet.payload);
      else if (o.validatePayloads && kind === 'probe') payloads.checkProbe(packet.payload);
      else if (kind === 'state' && o.snapshot) mergeState(packet);
    } catch (e) {
      counters.payloadRefused += 1;
      refusePublish(client, packet, e.code || 'E_MQTT_PAYLOAD', e.message, cb);
      return;
    }
    // Retained messages would outlive the plant state they describe; nothing here is retained.
    packet.retain = false;
    counters.messagesIn += 1;
    counters.bytesIn += size;
    cb(null);
  };

  function mergeState(packet, store = true) {
    let values;
    try { values = payloads.decodeState(packet.payload); } catch { return; } // the PLC's own business
    const plant = auth.plantOf(packet.topic);
    state.set(plant, { ...(state.get(plant) || {}), ...values });
    if (cluster && store) cluster.store.merge(plant, values);
  }
  // In a cluster, a PLC publishing to another instance's broker reaches this one through the
  // emitter (its own publishes too: merging them twice changes nothing).
  const stateFilter = auth.TOPICS.stateTopic.replace('{plant}', '+');
  const onClusterState = (packet, cb) => { mergeState(packet, false); cb(); };
  if (cluster && o.snapshot) broker.mq.on(stateFilter, onClusterState);

  // Filters of the topics twins send to the PLC (commands, probe requests), any plant.
  const toPlc = [auth.TOPICS.commandTopic, auth.TOPICS.probeRequestTopic].map((t) => t.replace('{plant}', '+'));
  broker.authorizeSubscribe = (client, sub, cb) => {
    const limited = overLimit(client, 'frame');
    if (limited) { cb(limited); return; }
    const user = roleOf.get(client);
    if (authorizer.canSubscribe(user, sub.topic)) {
      if (client.clean === false && sub.qos > 0 && toPlc.some((f) => auth.filtersOverlap(f, sub.topic))) {
        counters.persistentRefused += 1;
        report({
          type: 'refused', code: 'E_MQTT_PERSISTENT', clientId: client.id, user: user && user.username,
          message: `a persistent session (clean session 0) may not subscribe to "${sub.topic}" at QoS ${sub.qos}: commands sent while it is away would be queued and delivered late; connect with a clean session or subscribe at QoS 0`,
        });
        cb(null, null); // SUBACK 0x80 for this filter; the connection stays
        return;
      }
      cb(null, sub);
      return;
    }
    counters.subscribeRefused += 1;
    report({ type: 'refused', code: 'E_MQTT_SUBSCRIBE', message: `role "${user ? user.role : '?'}" may not subscribe to "${sub.topic}"`, clientId: client.id, user: user && user.username });
    const spent = overLimit(client, 'error');
    if (spent) { cb(spent); return; }
    cb(null, null); // SUBACK 0x80 for this filter; the connection stays
  };

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
  const sendSnapshot = (client, topic, values) => {
    counters.snapshots += 1;
    client.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(values)), qos: 0, retain: true }, () => {});
  };
  broker.on('subscribe', (subs, client) => {
    if (!o.snapshot) return;
    for (const s of subs) {
      if (s.qos === 128) continue;
      // A fleet: a plant no state of which reached this instance yet is read from Redis.
      const named = auth.plantOf(s.topic);
      if (cluster && named && !state.has(named) && auth.kindOf(s.topic) === 'state') {
        cluster.store.load(named).then((values) => {
          if (!Object.keys(values).length || closed) return;
          state.set(named, { ...values, ...(state.get(named) || {}) });
          sendSnapshot(client, s.topic, state.get(named));
        });
        continue;
      }
      for (const [plant, values] of state) {
        const topic = auth.TOPICS.stateTopic.replace('{plant}', plant);
        if (!auth.topicMatches(s.topic, topic)) continue;
        sendSnapshot(client, topic, values);
      }
    }
  });

  const sockets = new Set();
  const track = (sock) => { sockets.add(sock); sock.once('close', () => sockets.delete(sock)); };
  let tcp = null;
  let wss = null;
  let httpServer = null;
  const ports = { tcp: null, ws: null };

  let closed = false;
  const closeAll = async () => {
    closed = true;
    for (const s of sockets) s.destroy();
    if (wss) for (const c of wss.clients) c.terminate();
    const brokerClosed = new Promise((r) => broker.close(() => r()));
    await Promise.allSettled([
      tcp ? new Promise((r) => tcp.close(() => r())) : null,
      wss ? new Promise((r) => wss.close(() => r())) : null,
      httpServer ? new Promise((r) => { httpServer.close(() => r()); httpServer.closeAllConnections(); }) : null,
      // A clustered broker's emitter closes when its Redis connections end: cut below if Redis is gone.
      cluster ? Promise.race([brokerClosed, new Promise((r) => setTimeout(r, 2000).unref())]) : brokerClosed,
    ]);
    if (cluster) await cluster.close();
  };

  try {
    if (o.port || o.port === 0) {
      const onSocket = (socket) => {
        socket.setNoDelay(o.noDelay);
        counters.connections += 1;
        track(socket);
        socket.on('error', () => {}); // resets are normal; aedes sees the close
        const guarded = createFrameGuard(socket, o.maxFrameBytes, () => {
          counters.oversized += 1;
          report({ type: 'refused', code: 'E_MQTT_FRAME', message: `a packet larger than ${o.maxFrameBytes} bytes was announced by ${socket.remoteAddress}:${socket.remotePort}` });
        });
        broker.handle(guarded);
      };
      if (o.tls) {
        // mqtts: aedes sees the socket only once the handshake is done; a failed handshake
        // (plain MQTT, a bad certificate) is counted and the socket dropped.
        tcp = tls.createServer({ key: o.tls.key, cert: o.tls.cert }, onSocket);
        tcp.on('tlsClientError', (e, sock) => { counters.tlsErrors += 1; sock.destroy(); });
        tcp.on('connection', track);
      } else tcp = net.createServer(onSocket);
      ports.tcp = await listen(tcp, o.port, o.host);
    }
    if (o.wsPort || o.wsPort === 0) {
      const onRequest = (req, res) => { res.writeHead(426, { 'Content-Type': 'text/plain' }); res.end('MQTT over WebSocket only\n'); };
      httpServer = o.tls ? require('node:https').createServer({ key: o.tls.key, cert: o.tls.cert }, onRequest) : require('node:http').createServer(onRequest);
      if (o.tls) httpServer.on('tlsClientError', () => { counters.tlsErrors += 1; });
      wss = new WebSocketServer({
        server: httpServer, path: o.wsPath, perMessageDeflate: false, maxPayload: o.maxFrameBytes,
        handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
      });
      wss.on('connection', (ws, req) => {
        if (req.socket) { req.socket.setNoDelay(o.noDelay); track(req.socket); }
        counters.connections += 1;
        ws.on('error', () => {});
        const stream = createWebSocketStream(ws);
        stream.on('error', () => {});
        broker.handle(stream, req);
      });
      wss.on('error', () => {});
      ports.ws = await listen(httpServer, o.wsPort, o.host);
    }
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
        const u = roleOf.get(c);
        return { id: c.id, user: u && u.username, role: u && u.role };
      });
    },
    /** @returns {object|undefined} the merged last-known state of a plant */
    snapshot: (plant) => (state.has(plant) ? { ...state.get(plant) } : undefined),
    /** Close every client, both listeners and the broker; the ports are free when it resolves. */
    close() {
      if (!closing) closing = closeAll();
      return closing;
    },
  };
}

module.exports = { createMqttServer, DEFAULTS, MqttServerError };
