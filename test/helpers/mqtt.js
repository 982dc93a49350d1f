'use strict';
/**
 * mqtt.js clients for the broker tests: connect once (no reconnects), keep what they receive,
 * subscribe and learn the granted QoS, end.
 */
const mqtt = require('mqtt');

/**
 * Connect and resolve once CONNACK arrived; reject on a refusal. No reconnects.
 * @returns {Promise<object>} the client, with `msgs`: [{topic, payload (JSON), retain}] received
 */
function connect(url, opts = {}) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 10000, ...opts });
    c.msgs = [];
    c.on('message', (topic, payload, packet) => c.msgs.push({ topic, payload: JSON.parse(payload.toString()), retain: packet.retain }));
    c.once('connect', () => resolve(c));
    c.once('error', (e) => { c.end(true); reject(e); });
  });
}

/** Subscribe; resolves with the granted QoS per filter (mqtt.js reports a 0x80 grant as an error). */
const sub = (c, topic) => new Promise((resolve, reject) => c.subscribe(topic, { qos: 0 }, (e, granted) => {
  if (e && e.packet && Array.isArray(e.packet.granted)) resolve(e.packet.granted.map((qos) => ({ qos })));
  else if (e) reject(e);
  else resolve(granted);
}));

const end = (c) => new Promise((r) => c.end(true, {}, () => r()));

module.exports = { connect, sub, end };
