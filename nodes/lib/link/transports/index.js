'use strict';
/**
 * The link's transports: how the edge and the cloud's edge endpoint reach each other. WebSocket
 * (the default: the edge dials the cloud's Node-RED) or a message bus the plant's IT may already
 * run: AMQP 0-9-1 (RabbitMQ), Apache Kafka, MQTT (the bundle's own broker), or ZeroMQ (no broker:
 * the cloud binds, the edge connects). The same envelopes cross each, and the link's promises hold
 * on each (one edge per plant, the sync heartbeat and clock offset, deadlines, one answer per
 * command, a snapshot after a reconnect); docs/link-transports.md says how, and what each costs.
 *
 * Every transport gives both sides a "connection" (the seam lib/link/ws-transport.js describes;
 * `send(data, dl)` may carry the frame's deadline, which a transport that queues uses to drop it
 * rather than deliver it late), so the endpoints (lib/link/endpoint-core.js) and the dialer
 * (lib/link/dialer.js) are the same whatever carries their frames. A frame is whatever the
 * session's codec wrote (lib/link/frame.js JSON_CODEC today; a codec is agreed per session by
 * name), so a stream of sample blocks in a binary codec rides the same connections.
 *
 *   const conn = dial('amqp', 'amqp://127.0.0.1:5672', { token, plant, username, password });
 *   conn.on('open' | 'refused' | 'frame' | 'close', …)
 *   const listener = listen('amqp', { url, username, password, admitRequest: endpoint.admitRequest });
 *   await listener.start(); … await listener.close();
 */
const { dialWs } = require('../ws-transport');
const { dialBus, createBusListener } = require('./bus-session');
const { LinkTransportError } = require('./clients');

/**
 * The transports: label, the URL schemes their broker (or bind) address takes, the carrier
 * module of a message bus, and the default address of a development system.
 */
const TRANSPORTS = Object.freeze({
  ws: { id: 'ws', label: 'WebSocket', schemes: ['ws:', 'wss:'] },
  amqp: { id: 'amqp', label: 'AMQP 0-9-1 (RabbitMQ)', schemes: ['amqp:', 'amqps:'], carrier: './amqp', url: 'amqp://127.0.0.1:5672' },
  kafka: { id: 'kafka', label: 'Apache Kafka', schemes: ['kafka:'], carrier: './kafka', url: 'kafka://127.0.0.1:9092' },
  mqtt: { id: 'mqtt', label: 'MQTT', schemes: ['mqtt:', 'mqtts:'], carrier: './mqtt', url: 'mqtt://127.0.0.1:1883' },
  zmq: { id: 'zmq', label: 'ZeroMQ', schemes: ['tcp:'], carrier: './zmq', url: 'tcp://127.0.0.1:5560' },
});

/** Every transport id, WebSocket first. */
const IDS = Object.keys(TRANSPORTS);

/** Names users write for a transport. */
const ALIASES = { '': 'ws', websocket: 'ws', rabbitmq: 'amqp', zeromq: 'zmq', '0mq': 'zmq' };

/**
 * A transport id from a setting (a node property, S7T_LINK_TRANSPORT): empty means WebSocket.
 * @param {string|undefined|null} value
 * @returns {string} one of IDS
 * @throws {LinkTransportError} E_LINK_TRANSPORT
 */
function transportId(value) {
  const v = String(value === undefined || value === null ? '' : value).trim().toLowerCase();
  const id = ALIASES[v] !== undefined ? ALIASES[v] : v;
  if (!TRANSPORTS[id]) throw new LinkTransportError('E_LINK_TRANSPORT', `unknown link transport "${value}" (${IDS.join(', ')})`);
  return id;
}

/**
 * A broker (or bind) address for a transport, checked: its scheme, and the credentials written
 * in it (`amqp://user:password@host`) taken out, so that logs may show the URL.
 * @param {string} id a transport id
 * @param {string} url
 * @returns {{url: string, username?: string, password?: string}} url without credentials
 * @throws {LinkTransportError} E_LINK_URL
 */
function brokerUrl(id, url) {
  let u;
  try { u = new URL(String(url || '').trim()); } catch { u = null; }
  const t = TRANSPORTS[id];
  if (!u || !t.schemes.includes(u.protocol) || !u.hostname) {
    throw new LinkTransportError('E_LINK_URL', `the ${t.label} link needs a URL of the form ${t.schemes[0]}//host:port, not "${url}"`);
  }
  const out = {};
  if (u.username) out.username = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  out.url = u.toString().replace(/\/$/, '');
  return out;
}

const carrierOf = (id) => require(TRANSPORTS[id].carrier);

/**
 * The edge side: one session (a WebSocket, or a session on a message bus) to the cloud.
 * @param {string} id a transport id
 * @param {string} url the cloud's edge endpoint (ws) or the broker's (bind) address
 * @param {object} o
 * @param {string} [o.token] the edge's link token
 * @param {string} o.plant
 * @param {string} [o.username] the broker login (else the URL's)
 * @param {string} [o.password]
 * @param {number} o.maxPayload
 * @param {number} o.handshakeTimeoutMs
 * @param {object[]} [o.codecs] the codecs the edge speaks, best first
 * @param {string|Buffer|Array} [o.ca] WebSocket over TLS: CA certificate(s)
 * @returns {EventEmitter & object} a connection that also emits open and refused(status)
 * @throws {LinkTransportError} E_LINK_URL, E_LINK_CLIENT_MISSING
 */
function dial(id, url, o) {
  if (id === 'ws') return dialWs(url, o);
  const b = brokerUrl(id, url);
  const login = { username: o.username || b.username, password: o.password || b.password };
  const carrier = carrierOf(id).edgeCarrier(b.url, { ...o, ...login });
  return dialBus(carrier, { ...o, transport: id });
}

/**
 * The cloud side of a message bus: take edge sessions and hand each admitted one to the endpoint
 * (WebSocket sessions come through the HTTP server's upgrades instead).
 * @param {string} id a transport id other than ws
 * @param {object} o
 * @param {string} o.url the broker's address, or the ZeroMQ bind address
 * @param {string} [o.username] the broker login (else the URL's)
 * @param {string} [o.password]
 * @param {(r: object) => void} o.admitRequest the edge endpoint's
 * @param {number} o.maxPayload
 * @param {object[]} [o.codecs]
 * @returns {{start(): Promise<void>, close(): Promise<void>, counters: object, sessions(): number, carrier: object}}
 * @throws {LinkTransportError} E_LINK_TRANSPORT (ws), E_LINK_URL, E_LINK_CLIENT_MISSING
 */
function listen(id, o) {
  if (id === 'ws') throw new LinkTransportError('E_LINK_TRANSPORT', 'WebSocket edges come through the HTTP server\'s upgrades, not a listener');
  const b = brokerUrl(id, o.url);
  const carrier = carrierOf(id).cloudCarrier({ ...o, url: b.url, username: o.username || b.username, password: o.password || b.password });
  const l = createBusListener(carrier, { ...o, transport: id });
  return Object.assign(l, { carrier });
}

module.exports = { TRANSPORTS, IDS, LinkTransportError, transportId, brokerUrl, dial, listen };
