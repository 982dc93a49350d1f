'use strict';
/**
 * Twin transport over the MQTT path (the twin transport interface of docs/twin.md): the twin is an MQTT client of the cloud's
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
 *
 * The parts: ./mqtt/inbox.js (what comes in), ./mqtt/probes.js (probe slots and their
 * subscriptions), ./wire.js (bytes on the TCP socket), ./reconnect.js (the link counted).
 */
const mqtt = require('mqtt');
const { topicsOf } = require('../../nodes/lib/mqtt/topics');
const { tableOf } = require('../../nodes/lib/core/io-table');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { TransportError, createErrorCounter, createConnectWaiter, connectTimeoutMessage } = require('./common');
const { createReconnect } = require('./reconnect');
const { createWireCounter } = require('./wire');
const { createPacketBook } = require('./mqtt/bytes');
const { createInbox } = require('./mqtt/inbox');
const { createProbeSlots } = require('./mqtt/probes');

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
 * The options checked.
 * @param {object} opts as createTransport's
 * @returns {{o: object, qos: 0|1, id: string}}
 */
function configure(opts) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.url || !/^(mqtts?|wss?):\/\//.test(o.url)) {
    throw new TransportError('E_TRANSPORT_CONFIG', 'the mqtt transport needs a url (mqtt://host:1883 or ws://host:9001/mqtt)');
  }
  const qos = Number(o.qos);
  if (qos !== 0 && qos !== 1) throw new TransportError('E_TRANSPORT_CONFIG', `qos must be 0 or 1, got ${o.qos}`);
  const id = String(o.id || `${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  return { o, qos, id };
}

/**
 * mqtt.js' options for the twin's client: clean sessions, our own subscriptions and reconnect
 * pace, and, in Node, a WebSocket with no per-message deflate whose TCP socket is counted.
 * @param {object} o the transport's options
 * @param {string} id twin id
 * @param {number} reconnectPeriod ms before mqtt.js' first reconnect
 * @param {(sock: object) => void} onSocket the TCP socket under a WebSocket, at its upgrade
 */
function clientOptions(o, id, reconnectPeriod, onSocket) {
  return {
    username: o.username,
    password: o.password,
    clientId: `s7twin-twin-${id}`.slice(0, 23), // MQTT 3.1.1 servers need only accept 23 characters
    clean: true,
    keepalive: o.keepaliveS,
    connectTimeout: o.connectTimeoutMs,
    reconnectPeriod,
    resubscribe: false, // subscriptions are made on every connect
    ...(o.ca ? { ca: o.ca } : {}), // mqtts:// with a private CA (--ca, S7T_CA_FILE)
    ...(!IN_NODE ? {} : {
      createWebsocket: (url, protocols, wo) => {
        const WebSocket = require('ws');
        const ws = new WebSocket(url, protocols, { ...(wo && wo.wsOptions), perMessageDeflate: false, ...(o.ca ? { ca: o.ca } : {}) });
        ws.on('upgrade', (res) => onSocket(res.socket));
        return ws;
      },
    }),
  };
}

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
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo plant's)
 */
function createTransport(opts = {}) {
  const { o, qos, id } = configure(opts);
  const table = tableOf(o.table);
  const T = topicsOf(o.plant, table);
  const backoff = createBackoff(o.backoff || {});
  const valueCbs = [];
  const probeCbs = [];
  const image = {};
  const stats = {
    connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, snapshots: 0, errors: 0, errorCodes: {},
    badFrames: 0, coalesced: 0, probesDropped: 0, resyncs: 0, authFailures: 0, bytesOut: 0, bytesIn: 0, payloadBytesOut: 0, payloadBytesIn: 0,
  };
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'mqtt transport' });
  const rc = createReconnect({ stats, backoff });
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));
  const wire = createWireCounter();
  const book = createPacketBook();
  const noDelay = o.noDelay !== false && o.noDelay !== 'false';
  let client = null;
  let dirty = false;
  const up = () => client && client.connected;
  const probes = createProbeSlots({ topics: T, qos, stats, countError, client: () => client, up, publish });
  const onMessage = createInbox({
    topics: T, plant: o.plant, stats, countError, image, up, resendImage: (d) => publish(T.cmd, d), valueCbs, probeCbs, table,
  });

  function publish(t, obj) {
    const text = JSON.stringify(obj);
    client.publish(t, text, { qos, retain: false });
    stats.sent += 1;
    stats.payloadBytesOut += utf8.encode(text).length;
  }

  function fail(err) {
    rc.close();
    if (client) client.end(true);
    if (!firstConnect.reject(err)) countError(err.code, err.message);
  }

  function onConnect() {
    if (client.stream && typeof client.stream.setNoDelay === 'function') wire.use(client.stream, { noDelay });
    const again = rc.up();
    client.subscribe([T.state], { qos }, (err) => { if (err) countError('E_MQTT_SUBSCRIBE', err.message); });
    probes.resubscribe();
    // Back after a drop: bring the PLC up to date with the plant as it is now.
    if (again && (dirty || Object.keys(image).length)) publish(T.cmd, { ...image });
    dirty = false;
    firstConnect.resolve();
  }

  function open() {
    client = mqtt.connect(o.url, clientOptions(o, id, backoff.next(), (sock) => wire.use(sock, { noDelay })));
    client.on('connect', onConnect);
    client.on('packetsend', (p) => book.add('up', p));
    client.on('packetreceive', (p) => book.add('down', p));
    client.on('offline', () => {
      backoff.disconnected();
      client.options.reconnectPeriod = backoff.next();
    });
    client.on('reconnect', () => { client.options.reconnectPeriod = backoff.next(); });
    client.on('close', () => {
      if (stats.connected) stats.connected = false;
      wire.retire();
    });
    client.on('error', (err) => {
      stats.lastError = err.message;
      // CONNACK 4 (bad user name or password) / 5 (not authorized): retrying will not help.
      if (err.code === 4 || err.code === 5) {
        stats.authFailures += 1;
        fail(new TransportError('E_UNAUTHORIZED', `the MQTT broker refused the login (${err.message}) at ${o.url}`));
      }
    });
    client.on('message', onMessage);
  }

  return {
    /** Connect; resolves once connected, rejects with E_CONNECT_TIMEOUT or E_UNAUTHORIZED. */
    connect() {
      if (rc.closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      const p = firstConnect.wait(o.connectTimeoutMs, () => connectTimeoutMessage(`no connection to ${o.url}`, o.connectTimeoutMs, stats));
      if (!client) open();
      return p;
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
    probe: probes.probe,
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      rc.close();
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (!client) return Promise.resolve();
      const c = client;
      return new Promise((resolve) => {
        const t = setTimeout(() => c.end(true, {}, () => resolve()), 1000);
        c.end(false, {}, () => { clearTimeout(t); resolve(); });
      }).then(() => wire.retire());
    },
    stats() {
      const b = wire.bytes();
      return { ...stats, errorCodes: { ...stats.errorCodes }, bytesIn: b.in, bytesOut: b.out, where: book.rows() };
    },
    topics: T,
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
