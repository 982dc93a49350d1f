'use strict';
/**
 * The compact JSON payloads of the MQTT path (the PLC's own client speaks them, see plc/mqtt.js):
 *
 *   s7twin/<plant>/cmd        {"se":1,"dmg":0}          inputs a twin wants written
 *   s7twin/<plant>/state      {"c1":1,"red":0}          outputs that changed in one PLC scan
 *   s7twin/<plant>/probe/req  {"i":slot,"v":value}      or an array of them
 *   s7twin/<plant>/probe/res/<slot>  {"i":slot,"v":value}  or an array of them (topics: mqtt-topics.js)
 *
 * The broker checks what a twin publishes before any PLC can see it: a command must name only
 * tags the plant's I/O table marks cloud-writable, with values of the right type and range; a
 * probe must name valid slots and UDInt values. Where no table is given, the demo plant's is
 * meant. Pure functions, no RED.
 */
const { codedError } = require('../core/errors');
const { demoTable, UDINT_MAX } = require('../core/io-table');

/** Error with a stable `code`. */
const MqttPayloadError = codedError('MqttPayloadError');

const utf8 = new TextDecoder();

function parseJson(payload, what) {
  // A Buffer is a Uint8Array, and a browser's MQTT client (the browser twin) hands one over.
  const text = payload instanceof Uint8Array ? utf8.decode(payload) : String(payload);
  try {
    return JSON.parse(text);
  } catch {
    throw new MqttPayloadError('E_MQTT_JSON', `${what} is not JSON`);
  }
}

const isPlainObject = (o) => o !== null && typeof o === 'object' && !Array.isArray(o);

/**
 * Check a command payload.
 * @param {Buffer|string} payload
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {Object<string, number|string>} the normalised values (booleans as 0/1)
 * @throws {MqttPayloadError|TagError} E_MQTT_JSON, E_MQTT_CMD, E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE
 */
function checkCommand(payload, table = demoTable()) {
  const obj = parseJson(payload, 'command');
  if (!isPlainObject(obj) || Object.keys(obj).length === 0) {
    throw new MqttPayloadError('E_MQTT_CMD', 'command must be a non-empty object {short: value}');
  }
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[k] = table.checkWrite(k, v).value;
  return out;
}

/**
 * What a command payload names, for the command log of a refused one: its JSON object as sent
 * (unchecked), or undefined when it is not one (or too large to be worth reading).
 * @param {Buffer|string} payload
 * @param {number} [maxBytes] larger payloads are not read
 * @returns {object|undefined}
 */
function askedOf(payload, maxBytes = 4096) {
  if (!payload || payload.length > maxBytes) return undefined;
  try {
    const obj = parseJson(payload, 'command');
    return isPlainObject(obj) && Object.keys(obj).length > 0 ? obj : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Check a probe request (or response) payload.
 * @param {Buffer|string} payload
 * @param {number} [slots] number of probe slots (the table's plc.probeSlots; the demo plant's 1,024)
 * @returns {{many: boolean, items: Array<{i:number, v:number}>}}
 * @throws {MqttPayloadError} E_MQTT_JSON, E_MQTT_PROBE
 */
function checkProbe(payload, slots = demoTable().PROBE_SLOTS) {
  const obj = parseJson(payload, 'probe');
  const many = Array.isArray(obj);
  const list = many ? obj : [obj];
  if (list.length === 0 || list.length > slots) throw new MqttPayloadError('E_MQTT_PROBE', `probe must hold 1..${slots} items`);
  for (const p of list) {
    if (!isPlainObject(p) || !Number.isInteger(p.i) || p.i < 0 || p.i >= slots || !Number.isInteger(p.v) || p.v < 0 || p.v > UDINT_MAX) {
      throw new MqttPayloadError('E_MQTT_PROBE', `probe items are {"i": 0..${slots - 1}, "v": 0..${UDINT_MAX}}`);
    }
  }
  return { many, items: list.map((p) => ({ i: p.i, v: p.v })) };
}

/**
 * Decode a state payload: an object of tag short names and values (numbers; text for a STRING).
 * Unknown names and values of the wrong kind are kept out.
 * @param {Buffer|string} payload
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {Object<string, number|string>}
 * @throws {MqttPayloadError} E_MQTT_JSON, E_MQTT_STATE
 */
function decodeState(payload, table = demoTable()) {
  const obj = parseJson(payload, 'state');
  if (!isPlainObject(obj)) throw new MqttPayloadError('E_MQTT_STATE', 'state must be an object {short: value}');
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    const t = table.get(k);
    if (t && t.short === k && typeof v === (t.type === 'STRING' ? 'string' : 'number')) out[k] = v;
  }
  return out;
}

module.exports = { MqttPayloadError, checkCommand, askedOf, checkProbe, decodeState, UDINT_MAX };
