'use strict';
/**
 * Twin transport over MQTT over WebSocket (the twin transport interface of docs/twin.md): the
 * MQTT transport (./mqtt.js, mqtt.js) with a ws:// or wss:// URL, the cloud broker's WebSocket
 * listener (S7T_MQTT_WS_PORT, path /mqtt). A protocol of its own so that the headless twin and
 * the benchmark name it like the related study does
 * (shared/reference/http-mqtt-mqttws-digital-twin-study.txt: MQTT over TCP, MQTT over
 * WebSocket, HTTP); the browser twin speaks it with the same module.
 *
 *   npm run twin -- --protocol mqttws --url ws://127.0.0.1:9001/mqtt --username twin --password pw
 */
const mqtt = require('./mqtt');

/**
 * @param {object} opts as ./mqtt.js, with a ws:// or wss:// url
 */
function createTransport(opts = {}) {
  if (!opts.url || !/^wss?:\/\//.test(opts.url)) {
    throw new mqtt.TransportError('E_TRANSPORT_CONFIG', 'the mqttws transport needs a ws:// or wss:// url (ws://host:9001/mqtt)');
  }
  return mqtt.createTransport(opts);
}

module.exports = { DEFAULTS: mqtt.DEFAULTS, TransportError: mqtt.TransportError, createTransport };
