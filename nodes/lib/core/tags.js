'use strict';
/**
 * The tag dictionary: one reading of `io-table.json` shared by the virtual PLC, the nodes, the
 * flows and the twins. Pure functions, no I/O beyond loading the table once.
 */
const { codedError } = require('./errors');
const TABLE = require('./io-table.json');

const TYPES = {
  BOOL: { bytes: 0, min: 0, max: 1 },
  INT: { bytes: 2, min: -32768, max: 32767 },
  DINT: { bytes: 4, min: -2147483648, max: 2147483647 },
  UDINT: { bytes: 4, min: 0, max: 4294967295 },
};

/** The largest UDInt: a probe value is a whole number 0..UDINT_MAX. */
const UDINT_MAX = TYPES.UDINT.max;
/** The PLC's probe slots (io-table plc.probeSlots): one UDInt per slot in each probe DB. */
const PROBE_SLOTS = TABLE.plc.probeSlots;
/**
 * Holding registers of the Modbus map: the I/O block, then probe requests at probeRequestBase + 2i
 * and responses at probeResponseBase + 2i for every probe slot (two registers per UDInt).
 */
const MODBUS_REGISTERS = TABLE.modbus.probeResponseBase + 2 * PROBE_SLOTS;

/** Whether `slot` is one of `slots` probe slots: a whole number 0..slots - 1. */
const isProbeSlot = (slot, slots = PROBE_SLOTS) => Number.isInteger(slot) && slot >= 0 && slot < slots;
/** Whether `value` is a probe value: a UDInt, a whole number 0..UDINT_MAX. */
const isProbeValue = (value) => Number.isInteger(value) && value >= 0 && value <= UDINT_MAX;

/** Error with a stable `code`, as ws does for its errors. */
const TagError = codedError('TagError');

/**
 * Parse an S7 address of the form used in the table ("DB1,X2.6", "DB1,INT4", "DB1,DINT8").
 * @param {string} addr
 * @returns {{db:number, type:string, byte:number, bit:number}}
 */
function parseS7(addr) {
  const m = /^DB(\d+),(X|INT|DINT|UDINT)(\d+)(?:\.(\d))?$/.exec(addr);
  if (!m) throw new TagError('E_ADDRESS', `unsupported S7 address "${addr}"`);
  const type = m[2] === 'X' ? 'BOOL' : m[2];
  return { db: Number(m[1]), type, byte: Number(m[3]), bit: m[4] === undefined ? 0 : Number(m[4]) };
}

const tags = TABLE.tags.map((t) => Object.freeze({ ...t, addr: parseS7(t.s7) }));
const byShort = new Map(tags.map((t) => [t.short, t]));
const byName = new Map(tags.map((t) => [t.name, t]));

/** Size in bytes of the I/O data block: enough for every tag in it. */
const ioDbSize = tags.reduce((n, t) => Math.max(n, t.addr.byte + Math.max(1, TYPES[t.type].bytes)), 0);

/**
 * Look a tag up by short name (envelopes) or long name (PLC symbols).
 * @param {string} key
 * @returns {object|undefined}
 */
function get(key) {
  return byShort.get(key) || byName.get(key);
}

/**
 * Check a value a cloud command wants written, without writing anything.
 * Booleans accept true/false and 0/1; integers must be whole and in range.
 * @param {string} short tag short name
 * @param {*} value
 * @returns {{tag: object, value: number}} the normalised value (booleans as 0/1)
 * @throws {TagError} E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE
 */
function checkWrite(short, value) {
  const tag = byShort.get(short);
  if (!tag) throw new TagError('E_UNKNOWN_TAG', `unknown tag "${short}"`);
  if (!tag.cloudWritable) throw new TagError('E_NOT_WRITABLE', `tag "${short}" (${tag.name}) is not writable from the cloud`);
  return { tag, value: normalise(tag, value) };
}

/**
 * Check the values of a `state` or `snap` frame (what the edge reports the PLC shows): every key
 * must be a streamed tag of the table, every value of its type and range.
 * @param {object} d values keyed by short name
 * @throws {TagError} E_UNKNOWN_TAG, E_TYPE, E_RANGE (the first found)
 */
function checkState(d) {
  for (const [short, value] of Object.entries(d || {})) {
    const tag = byShort.get(short);
    if (!tag || tag.noStream) throw new TagError('E_UNKNOWN_TAG', `unknown tag "${short}" in a plant state`);
    normalise(tag, value);
  }
}

/**
 * Normalise a value for a tag's type: booleans to 0/1, integers checked for range.
 * @throws {TagError} E_TYPE, E_RANGE
 */
function normalise(tag, value) {
  if (tag.type === 'BOOL') {
    if (value === true || value === 1) return 1;
    if (value === false || value === 0) return 0;
    throw new TagError('E_TYPE', `tag "${tag.short}" is BOOL; got ${JSON.stringify(value)}`);
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TagError('E_TYPE', `tag "${tag.short}" is ${tag.type}; got ${JSON.stringify(value)}`);
  }
  const lim = TYPES[tag.type];
  const min = tag.min ?? lim.min;
  const max = tag.max ?? lim.max;
  if (value < min || value > max) throw new TagError('E_RANGE', `tag "${tag.short}" value ${value} outside ${min}..${max}`);
  return value;
}

/**
 * Read one tag from a data-block buffer (big-endian, as S7 stores it).
 * @param {Buffer} buf the whole data block
 * @param {object} tag
 * @returns {number}
 */
function readTag(buf, tag) {
  const { byte, bit, type } = tag.addr;
  switch (type) {
    case 'BOOL': return (buf[byte] >> bit) & 1;
    case 'INT': return buf.readInt16BE(byte);
    case 'DINT': return buf.readInt32BE(byte);
    case 'UDINT': return buf.readUInt32BE(byte);
    default: throw new TagError('E_TYPE', `unknown type ${type}`);
  }
}

/**
 * Write one tag into a data-block buffer (big-endian). The value must already be normalised.
 * @param {Buffer} buf
 * @param {object} tag
 * @param {number} value
 */
function writeTag(buf, tag, value) {
  const { byte, bit, type } = tag.addr;
  switch (type) {
    case 'BOOL':
      buf[byte] = value ? buf[byte] | (1 << bit) : buf[byte] & ~(1 << bit);
      return;
    case 'INT': buf.writeInt16BE(value, byte); return;
    case 'DINT': buf.writeInt32BE(value, byte); return;
    case 'UDINT': buf.writeUInt32BE(value >>> 0, byte); return;
    default: throw new TagError('E_TYPE', `unknown type ${type}`);
  }
}

/**
 * Every tag's value in a data-block buffer, keyed by short name.
 * @param {Buffer} buf
 * @param {(tag: object) => boolean} [filter]
 * @returns {Object<string, number>}
 */
function decodeBlock(buf, filter = () => true) {
  const out = {};
  for (const t of tags) if (filter(t)) out[t.short] = readTag(buf, t);
  return out;
}

/**
 * The tags whose values differ between two snapshots (objects keyed by short name).
 * @returns {Object<string, number>} only the changed entries, with the new values
 */
function diff(prev, next) {
  const out = {};
  for (const k of Object.keys(next)) if (prev[k] !== next[k]) out[k] = next[k];
  return out;
}

/**
 * Pack the BOOL tags of one Modbus register into a 16-bit word.
 * @param {number} reg register number from the table (commandRegister or stateRegister)
 * @param {Object<string, number>} values keyed by short name; missing tags count as 0
 * @returns {number}
 */
function packRegister(reg, values) {
  let word = 0;
  for (const t of tags) {
    if (t.type === 'BOOL' && t.modbus && t.modbus.reg === reg && values[t.short]) word |= 1 << t.modbus.bit;
  }
  return word;
}

/**
 * Unpack a 16-bit Modbus register into the BOOL tags that live in it.
 * @returns {Object<string, number>} keyed by short name
 */
function unpackRegister(reg, word) {
  const out = {};
  for (const t of tags) {
    if (t.type === 'BOOL' && t.modbus && t.modbus.reg === reg) out[t.short] = (word >> t.modbus.bit) & 1;
  }
  return out;
}

/**
 * The timed pairs of the study's Table 1: which input event should make which output change.
 * @returns {Array<{output:string, name:string, trigger:string, value:number, with:object}>}
 */
function timedPairs() {
  return tags.filter((t) => t.timed).map((t) => ({
    output: t.short, name: t.name, trigger: t.timed.trigger, value: t.timed.value, with: t.timed.with || {},
  }));
}

/** Fill `{plant}` and `{i}` placeholders of the table's topic and node-id templates. */
function template(str, vars) {
  return str.replace(/\{(\w+)\}|\{4\*i\}/g, (m, k) => (m === '{4*i}' ? String(4 * vars.i) : String(vars[k])));
}

module.exports = {
  TABLE, TYPES, TagError, tags, UDINT_MAX, PROBE_SLOTS, MODBUS_REGISTERS, isProbeSlot, isProbeValue, ioDbSize,
  get, checkWrite, checkState, normalise, readTag, writeTag, decodeBlock, diff,
  packRegister, unpackRegister, timedPairs, template, parseS7,
  inputs: tags.filter((t) => t.dir === 'in'),
  outputs: tags.filter((t) => t.dir === 'out'),
};
