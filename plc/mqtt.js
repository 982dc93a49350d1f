'use strict';
/**
 * MQTT client of the virtual PLC, behaving like an S7-1500 running Siemens' LMQTT library:
 * - publishes the outputs that changed in a scan, as compact JSON of short names
 *   (`{"c1":1,"red":0}`), on `s7twin/<plant>/state` (QoS 0 by default, 1 selectable), never retained;
 * - publishes every streamed output once on each (re)connect, so a subscriber starts complete;
 * - applies `{short: value}` commands from `s7twin/<plant>/cmd` after checking them against the
 *   PLC's table (malformed JSON, unknown or non-writable tags, bad values → the whole message
 *   is rejected and counted, nothing is written);
 * - answers probes: `.../probe/req` `{"i":slot,"v":value}` (or an array of them) is written to
 *   the request slots, and after the scan that copied them `.../probe/res/<slot>` carries
 *   `{"i":slot,"v":response}` (an array for an array request, on its first slot's topic): one
 *   response topic per slot, so a twin receives its own answers only (nodes/lib/mqtt/topics.js);
 * - reconnects by itself (mqtt.js reconnectPeriod) with a clean session, so no broker keeps
 *   commands for it while it is away;
 * - never applies a retained command or probe request: a broker hands those to every new
 *   subscriber, however old they are (MQTT-3.3.1-6, flagged retained, MQTT-3.3.1-8), and the
 *   PLC takes only what a twin sends now (an old command written late could move the plant);
 *   they are counted in mqttStale.
 * Topic names come from the table's `mqtt` section.
 */
const mqtt = require('mqtt');
const payloads = require('../nodes/lib/mqtt/payload');
const { topicsOf, answerSlot } = require('../nodes/lib/mqtt/topics');
const { PlcError } = require('./errors');

const DEFAULTS = {
  plant: 'plant1',
  qos: 0,
  reconnectMs: 1000, // pause between reconnect attempts
  connectTimeoutMs: 5000,
  keepaliveS: 10,
  maxPayload: 65536, // bytes; a larger command or probe message is rejected unread
};
/**
 * Parse and check one command message: the MQTT path's payload rules (nodes/lib/mqtt/payload.js),
 * the same the broker applies before any PLC sees a message.
 * @param {Buffer|string} payload
 * @param {object} [table] the PLC's (default: the demo plant's)
 * @returns {Object<string, number|string>} normalised values
 * @throws {MqttPayloadError|TagError} E_MQTT_JSON, E_MQTT_CMD, E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE
 */
const parseCommand = (payload, table) => payloads.checkCommand(payload, table);

/**
 * Parse and check one probe request message (nodes/lib/mqtt/payload.js).
 * @returns {{many: boolean, items: Array<{slot:number, value:number}>}}
 * @throws {MqttPayloadError} E_MQTT_JSON, E_MQTT_PROBE
 */
function parseProbe(payload, slots) {
  const { many, items } = payloads.checkProbe(payload, slots);
  return { many, items: items.map((p) => ({ slot: p.i, value: p.v })) };
}

/**
 * Start the MQTT client.
 * @param {object} image the process image
 * @param {{url:string, plant?:string, username?:string, password?:string, qos?:0|1, ca?:Buffer,
 *   counters:object, setInputs:Function, setProbe:Function, onReject?:Function}} opts
 * @returns {{afterScan(ev):void, stop():Promise<void>, readonly connected:boolean}}
 */
function startMqtt(image, opts) {
  const cfg = { ...DEFAULTS, ...opts };
  if (!cfg.url) throw new PlcError('E_CONFIG', 'mqtt.url is required');
  if (cfg.qos !== 0 && cfg.qos !== 1) throw new PlcError('E_CONFIG', `mqtt.qos must be 0 or 1, got ${cfg.qos}`);
  const c = cfg.counters;
  Object.assign(c, {
    mqttConnects: 0, mqttDisconnects: 0, mqttErrors: 0, mqttPublished: 0, mqttCommands: 0, mqttRejected: 0,
    mqttProbes: 0, mqttStale: 0,
  });
  const { table } = image;
  const STREAMED = table.outputs.filter((t) => !t.noStream).map((t) => t.short);
  const T = topicsOf(cfg.plant, table);
  const client = mqtt.connect(cfg.url, {
    username: cfg.username,
    password: cfg.password,
    clientId: `s7twin-plc-${cfg.plant}-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
    reconnectPeriod: cfg.reconnectMs,
    // mqtt.js stops for good after a refused CONNACK (bad credentials, broker not ready); a PLC
    // keeps trying, and the refusal is counted in mqttErrors.
    reconnectOnConnackError: true,
    connectTimeout: cfg.connectTimeoutMs,
    keepalive: cfg.keepaliveS,
    clean: true, // no persistent session: nothing is queued for the PLC while it is away
    // mqtts:// or wss:// to a broker whose certificate a private CA signed (S7T_CA_FILE)
    ...(cfg.ca ? { ca: cfg.ca } : {}),
  });
  let waiting = []; // probe requests queued for the next scan
  let connected = false;

  const reject = (source, err) => {
    c.mqttRejected += 1;
    if (cfg.onReject) cfg.onReject({ source, code: err.code || 'E_INTERNAL', message: err.message });
  };
  const publish = (t, obj) => {
    if (!connected) return; // LMQTT drops while disconnected; the snapshot on reconnect catches up
    client.publish(t, JSON.stringify(obj), { qos: cfg.qos, retain: false });
    c.mqttPublished += 1;
  };

  client.on('connect', () => {
    connected = true;
    c.mqttConnects += 1;
    if (client.stream && typeof client.stream.setNoDelay === 'function') client.stream.setNoDelay(true);
    client.subscribe([T.cmd, T.req], { qos: cfg.qos });
    const values = image.values();
    publish(T.state, Object.fromEntries(STREAMED.map((k) => [k, values[k]])));
  });
  client.on('close', () => { if (connected) c.mqttDisconnects += 1; connected = false; });
  client.on('error', () => { c.mqttErrors += 1; }); // refused, bad credentials...: mqtt.js retries
  client.on('message', (t, payload, packet) => {
    // A retained message comes from the broker's store, not from a twin now: never applied.
    if (packet && packet.retain) { c.mqttStale += 1; return; }
    if (payload.length > cfg.maxPayload) {
      reject(t === T.req ? 'mqtt-probe' : 'mqtt-cmd', new PlcError('E_TOO_LARGE', `payload of ${payload.length} bytes`));
      return;
    }
    if (t === T.cmd) {
      try {
        cfg.setInputs(parseCommand(payload, table));
        c.mqttCommands += 1;
      } catch (err) { reject('mqtt-cmd', err); }
    } else if (t === T.req) {
      try {
        const p = parseProbe(payload, image.probeSlots);
        for (const { slot, value } of p.items) cfg.setProbe(slot, value);
        waiting.push(p);
        c.mqttProbes += 1;
      } catch (err) { reject('mqtt-probe', err); }
    }
  });

  return {
    get connected() { return connected; },
    /** After each scan: changed outputs out, then the responses of the probes this scan copied. */
    afterScan(ev) {
      const changed = {};
      let any = false;
      for (const k of STREAMED) if (k in ev.changed) { changed[k] = ev.changed[k]; any = true; }
      if (any) publish(T.state, changed);
      if (waiting.length) {
        const done = waiting;
        waiting = [];
        for (const p of done) {
          const res = p.items.map(({ slot }) => ({ i: slot, v: image.probeResponse(slot) }));
          publish(T.res(answerSlot(res)), p.many ? res : res[0]);
        }
      }
    },
    stop() {
      return new Promise((resolve) => client.end(true, {}, () => resolve()));
    },
  };
}

module.exports = { startMqtt, parseCommand, parseProbe, DEFAULTS };
