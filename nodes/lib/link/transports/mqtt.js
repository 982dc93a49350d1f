'use strict';
/**
 * The link over MQTT (mqtt.js to the bundle's own broker, s7twin-mqtt-broker on aedes; any MQTT
 * 3.1.1 broker with per-topic ACLs does). Two topics per plant (lib/mqtt/topics.js LINK_TOPICS):
 *
 *   s7twin/<plant>/link/up     the plant's edge → the cloud (ACL: only that plant's edge user,
 *                              role `edge@<plant>`, may publish here)
 *   s7twin/<plant>/link/down   the cloud (role `link`) → the plant's edge
 *
 * What MQTT does not give by itself, and how the link provides it
 * (lib/link/transports/bus-session.js):
 * - Who may speak for a plant: the broker's login and ACLs say who publishes on a plant's `up`
 *   topic; the cloud takes a session's hello only from its own plant's topic (a hello naming
 *   another plant is refused, 403), then checks the link token and one edge per plant as on the
 *   WebSocket.
 * - No request/response, no session: both ends connect with a clean session at QoS 0, so the
 *   broker keeps nothing for a client that is away (a command is never queued and delivered after
 *   a reconnect); the session id in every message tells one dial from the next, and the down topic
 *   of a plant, which every session of the plant reads, carries each session's frames to it only.
 * - The broker hides a dropped connection of the other side: the sync heartbeat is the liveness.
 */
const { loadClient } = require('./clients');
const { linkTopicsOf } = require('../../mqtt/topics');

const DEFAULTS = {
  connectTimeoutMs: 5000,
  keepaliveS: 30, // MQTT's own keep-alive; the link's sync heartbeat finds a silent peer sooner
  reconnectMs: 1000, // the cloud's client reconnects this often while its broker is away
};

/** A client id of at most 23 characters (MQTT 3.1.1's guaranteed length). */
const clientId = (prefix) => `${prefix}${Math.random().toString(36).slice(2, 10)}`.slice(0, 23);

/**
 * TCP_NODELAY on the client's socket, as on every socket of ours: mqtt.js leaves Nagle's algorithm
 * on, and a message written right after another then waits for the broker's delayed ACK (about
 * 40 ms).
 */
function noDelay(client) {
  if (client.stream && typeof client.stream.setNoDelay === 'function') client.stream.setNoDelay(true);
}

/** Resolve once the client is connected; reject on the first error or close before that. */
function connected(client) {
  return new Promise((resolve, reject) => {
    const fail = (err) => { client.removeListener('connect', ok); reject(err || new Error('the MQTT connection closed before CONNACK')); };
    const ok = () => { client.removeListener('error', fail); client.removeListener('close', fail); resolve(); };
    client.once('connect', ok);
    client.once('error', fail);
    client.once('close', fail);
  });
}

/** Subscribe, and fail if the broker refused the filter (SUBACK 0x80: not allowed by the ACLs). */
async function subscribe(client, filter) {
  const refused = () => Object.assign(new Error(`the MQTT broker refused the subscription to ${filter} (check the user's role)`), { code: 'E_MQTT_SUBSCRIBE' });
  let granted;
  try {
    granted = await client.subscribeAsync(filter, { qos: 0 });
  } catch (err) {
    // mqtt.js 5 rejects a SUBACK of 0x80 (failure) itself
    if (err.packet && err.packet.cmd === 'suback') throw refused();
    throw err;
  }
  if (!granted.length || granted[0].qos === 128) throw refused();
}

/**
 * The cloud's carrier: subscribes to every plant's up topic, publishes on each plant's down topic.
 * @param {object} o
 * @param {string} o.url mqtt://host:port or mqtts://
 * @param {string} [o.username] a user of role `link`
 * @param {string} [o.password]
 * @returns {object} a cloud carrier (lib/link/transports/bus-session.js)
 */
function cloudCarrier(o) {
  const mqtt = loadClient('mqtt');
  const opts = { ...DEFAULTS, ...o };
  const upAll = linkTopicsOf('+').up;
  let downFn = () => {};
  let upFn = () => {};
  let client = null;
  let up = false;
  return {
    async start(onMessage) {
      client = mqtt.connect(opts.url, {
        username: opts.username, password: opts.password, clientId: clientId('s7t-link-'), clean: true,
        reconnectPeriod: opts.reconnectMs, connectTimeout: opts.connectTimeoutMs, keepalive: opts.keepaliveS,
      });
      client.on('error', () => {});
      client.on('message', (topic, payload) => {
        const plant = topic.split('/')[1];
        onMessage(payload, { plant, remote: `mqtt:${plant}` });
      });
      client.on('connect', () => {
        up = true;
        noDelay(client);
        // mqtt.js subscribes again after a reconnect; the first time is ours.
        subscribe(client, upAll).then(() => upFn(), (err) => downFn(err));
      });
      client.on('close', () => {
        if (!up) return;
        up = false;
        downFn(new Error('the MQTT broker connection closed'));
      });
      await connected(client);
    },
    send(to, buf) {
      if (!client || !up) throw new Error('the MQTT broker is not connected');
      client.publish(linkTopicsOf(to).down, buf, { qos: 0 });
    },
    onDown(fn) { downFn = fn; },
    onUp(fn) { upFn = fn; },
    async close() {
      up = false;
      if (client) await client.endAsync(true).catch(() => {});
    },
  };
}

/**
 * The edge's carrier for one session: its own MQTT connection (clean session), the plant's topics.
 * @param {string} url mqtt://host:port or mqtts://
 * @param {object} o
 * @param {string} o.plant
 * @param {string} [o.username] a user of role `edge@<plant>`
 * @param {string} [o.password]
 * @param {number} [o.handshakeTimeoutMs]
 * @returns {object} an edge carrier (lib/link/transports/bus-session.js)
 */
function edgeCarrier(url, o) {
  const mqtt = loadClient('mqtt');
  const opts = { ...DEFAULTS, ...o };
  const topics = linkTopicsOf(opts.plant);
  let messageFn = () => {};
  let downFn = () => {};
  let client = null;
  let closed = false;
  return {
    async open() {
      client = mqtt.connect(url, {
        username: opts.username, password: opts.password, clientId: clientId(`s7t-e-${opts.plant.slice(0, 6)}-`), clean: true,
        reconnectPeriod: 0, connectTimeout: opts.handshakeTimeoutMs || opts.connectTimeoutMs, keepalive: opts.keepaliveS,
      });
      client.on('message', (topic, payload) => messageFn(payload));
      await connected(client);
      noDelay(client);
      client.on('error', () => {});
      client.on('close', () => { if (!closed) downFn(new Error('the MQTT broker connection closed')); });
      await subscribe(client, topics.down);
    },
    send(buf) {
      if (!client || !client.connected) throw new Error('the MQTT broker is not connected');
      client.publish(topics.up, buf, { qos: 0 });
    },
    onMessage(fn) { messageFn = fn; },
    onDown(fn) { downFn = fn; },
    async close() {
      closed = true;
      if (client) await client.endAsync(true).catch(() => {});
    },
  };
}

module.exports = { DEFAULTS, cloudCarrier, edgeCarrier };
