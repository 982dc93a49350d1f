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
 * tags the dictionary marks cloud-writable, with values of the right type and range; a probe
 * must name valid slots and UDInt values. Pure functions, no RED.
 */
const { codedError } = require('../core/errors');
const tags = require('../core/tags');

const { UDINT_MAX } = tags;

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
 * @returns {Object<string, number>} the normalised values (booleans as 0/1)
 * @throws {MqttPayloadError|TagError} E_MQTT_JSON, E_MQTT_CMD, E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE
 */
function checkCommand(payload) {
  const obj = parseJson(payload, 'command');
  if (!isPlainObject(obj) || Object.keys(obj).length === 0) {
    throw new MqttPayloadError('E_MQTT_CMD', 'command must be a non-empty object {short: value}');
  }
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[k] = tags.checkWrite(k, v).value;
  return out;
}

/**
 * Check a probe request (or response) payload.
 * @param {Buffer|string} payload
 * @param {number} [slots] number of probe slots (io-table plc.probeSlots)
 * @returns {{many: boolean, items: Array<{i:number, v:number}>}}
 * @throws {MqttPayloadError} E_MQTT_JSON, E_MQTT_PROBE
 */
function checkProbe(payload, slots = tags.PROBE_SLOTS) {
  const obj = parseJson(payload, 'probe');
  const many = Array.isArray(obj);
  const list = many ? obj : [obj];
  if (list.length === 0 || list.length > slots) throw new MqttPayloadError('E_MQTT_PROBE', `probe must hold 1..${slots} items`);
  for (const p of list) {
    if (!isPlainObject(p) || !tags.isProbeSlot(p.i, slots) || !tags.isProbeValue(p.v)) {
      throw new MqttPayloadError('E_MQTT_PROBE', `probe items are {"i": 0..${slots - 1}, "v": 0..${UDINT_MAX}}`);
    }
  }
  return { many, items: list.map((p) => ({ i: p.i, v: p.v })) };
}

/**
 * Decode a state payload: an object of tag short names and numbers. Unknown names are kept out.
 * @param {Buffer|string} payload
 * @returns {Object<string, number>}
 * @throws {MqttPayloadError} E_MQTT_JSON, E_MQTT_STATE
 */
function decodeState(payload) {
  const obj = parseJson(payload, 'state');
  if (!isPlainObject(obj)) throw new MqttPayloadError('E_MQTT_STATE', 'state must be an object {short: value}');
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    const t = tags.get(k);
    if (t && t.short === k && typeof v === 'number') out[k] = v;
  }
  return out;
}

module.exports = { MqttPayloadError, checkCommand, checkProbe, decodeState, UDINT_MAX };
