'use strict';
/**
 * The Modbus register map of an I/O table: which holding registers carry which tag, made from the
 * table (a tag's own `modbus` entry where it has one, the rest laid out here), so the PLC's
 * Modbus server, the cloud's, the edge's codec and the twins all use one map.
 *
 * A tag's `modbus`: absent = placed here; `null` = not on Modbus; `{reg, bit}` for a BOOL (bit
 * 0..15 of register reg); `{reg}` for the others, which take their natural number of registers
 * (`{reg, words: 1}` keeps only the low 16 bits of a 32-bit integer, as the demo plant's BoxesIn).
 *
 *   BOOL                    one bit; several BOOLs share a register
 *   BYTE SINT USINT WORD INT UINT   1 register (signed types as 16-bit two's complement)
 *   DWORD DINT UDINT REAL   2 registers, high word first (REAL as its IEEE 754 bits)
 *   LREAL                   4 registers, high word first
 *   STRING[n]               1 register with the actual length, then 2 characters per register
 *
 * Tags without an entry are placed after the last register in use (from modbus.commandRegister,
 * 0, when none is): the inputs the cloud writes first (BOOLs packed 16 to a register, then the
 * others in table order), then the other inputs, then the outputs the same way. The registers of
 * the cloud-writable tags form the commands block (what a twin writes), the outputs' the states
 * block: the edge polls each as one read. Probe slots live at
 * probeRequestBase + 2i and probeResponseBase + 2i (one UDInt each, high word first).
 *
 * Browser-safe: plain CommonJS, no Node built-ins.
 */
const { TYPES, shortReal } = require('./types');

const WORD_MAX = 0xffff;

/** Registers a value of this tag takes on Modbus by nature (0 = one bit). */
function naturalWords(tag) {
  if (tag.type === 'BOOL') return 0;
  if (tag.type === 'STRING') return 1 + Math.ceil(tag.length / 2);
  return Math.max(1, TYPES[tag.type].bytes / 2);
}

/**
 * Lay out the registers and report what collides.
 * @param {Array<{t: object, i: number, tag: {type: string, length?: number, dir: string}}>} rows
 *   every tag whose type parsed, with its row
 * @param {{commandRegister?: number, probeRequestBase: number, probeResponseBase: number, probeSlots: number}} o
 * @param {{error: Function}} f findings (./check.js)
 * @returns {Map<object, {reg: number, bit?: number, words: number}|null>} the raw tag object → its place
 */
function layoutModbus(rows, o, f) {
  const places = new Map();
  const owner = new Map(); // register -> {row, bits: Set|null (null = the whole register)}
  const limit = Math.min(o.probeRequestBase, o.probeResponseBase);
  const claim = (row, reg, bit) => {
    if (reg >= limit) {
      f.error(row.t, row.i, 'modbus', 'E_TAG_MODBUS', `register ${reg} is past ${limit - 1}: the probe slots start at ${limit}`);
      return false;
    }
    const cur = owner.get(reg);
    if (cur && (bit === undefined || cur.bits === null || cur.bits.has(bit))) {
      f.error(row.t, row.i, 'modbus', 'E_TAG_MODBUS', `register ${reg}${bit === undefined ? '' : ` bit ${bit}`} is already tag "${cur.row.t.name}"'s`);
      return false;
    }
    if (bit === undefined) owner.set(reg, { row, bits: null });
    else if (cur) cur.bits.add(bit);
    else owner.set(reg, { row, bits: new Set([bit]) });
    return true;
  };
  const auto = [];
  for (const row of rows) {
    const m = row.t.modbus;
    if (m === undefined) { auto.push(row); continue; }
    if (m === null || m === false) { places.set(row.t, null); continue; }
    const place = explicitPlace(row, m, f);
    if (!place) continue;
    let ok = true;
    if (place.bit !== undefined) ok = claim(row, place.reg, place.bit);
    else for (let k = 0; k < place.words && ok; k++) ok = claim(row, place.reg + k);
    if (ok) places.set(row.t, place);
  }
  let next = Math.max(o.commandRegister ?? 0, ...[...owner.keys()].map((r) => r + 1));
  const group = (r) => (r.t.cloudWritable === true ? 'cmd' : r.tag.dir);
  for (const g of ['cmd', 'in', 'out']) {
    const bools = auto.filter((r) => group(r) === g && r.tag.type === 'BOOL');
    bools.forEach((row, k) => {
      const place = { reg: next + Math.floor(k / 16), bit: k % 16, words: 0 };
      if (claim(row, place.reg, place.bit)) places.set(row.t, place);
    });
    next += Math.ceil(bools.length / 16);
    for (const row of auto.filter((r) => group(r) === g && r.tag.type !== 'BOOL')) {
      const place = { reg: next, words: naturalWords(row.tag) };
      next += place.words;
      let ok = true;
      for (let k = 0; k < place.words && ok; k++) ok = claim(row, place.reg + k);
      if (ok) places.set(row.t, place);
    }
  }
  return places;
}

/** A tag's own `modbus` entry, checked. @returns {{reg, bit?, words}|null} */
function explicitPlace(row, m, f) {
  const bad = (text) => { f.error(row.t, row.i, 'modbus', 'E_TAG_MODBUS', text); return null; };
  if (typeof m !== 'object' || !Number.isInteger(m.reg) || m.reg < 0
    || m.reg > WORD_MAX) return bad(`modbus must be {reg} with a register 0..65535, or null for none; got ${JSON.stringify(m)}`);
  if (row.tag.type === 'BOOL') {
    if (!Number.isInteger(m.bit) || m.bit < 0 || m.bit > 15) return bad(`a BOOL on Modbus needs {reg, bit} with bit 0..15; got ${JSON.stringify(m)}`);
    return { reg: m.reg, bit: m.bit, words: 0 };
  }
  if (m.bit !== undefined) return bad('only a BOOL takes a bit of a register');
  const natural = naturalWords(row.tag);
  const words = m.words ?? natural;
  const truncates = words === 1 && natural === 2 && TYPES[row.tag.type].kind === 'int';
  if (words !== natural && !truncates) return bad(`a ${row.tag.type} takes ${natural} register${natural > 1 ? 's' : ''}${natural === 2
    && TYPES[row.tag.type].kind === 'int' ? ' (or words: 1 for its low 16 bits)' : ''}; got words ${JSON.stringify(m.words)}`);
  if (truncates && row.t.cloudWritable) return bad('a tag the cloud writes cannot be cut to its low 16 bits on Modbus');
  if (m.reg + words - 1 > WORD_MAX) return bad(`registers ${m.reg}..${m.reg + words - 1} run past 65535`);
  return { reg: m.reg, words };
}

/** The registers of a set of places: {address, count} spanning them, or null. */
function span(places) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of places) {
    if (!p) continue;
    lo = Math.min(lo, p.reg);
    hi = Math.max(hi, p.reg + Math.max(1, p.words) - 1);
  }
  return lo === Infinity ? null : { address: lo, count: hi - lo + 1 };
}

const toWord = (n) => n & WORD_MAX;
const signed16 = (w) => (w > 0x7fff ? w - 0x10000 : w);

/**
 * A value's registers.
 * @param {{type: string, length?: number, modbus: {words: number}}} tag a non-BOOL tag with a place
 * @param {number|string} value normalised
 * @returns {number[]}
 */
function wordsOf(tag, value) {
  const n = tag.modbus.words;
  if (tag.type === 'STRING') {
    const out = [value.length];
    for (let k = 0; k < n - 1; k++) out.push(((value.charCodeAt(2 * k) || 0) << 8) | (value.charCodeAt(2 * k + 1) || 0));
    return out;
  }
  const buf = new DataView(new ArrayBuffer(8));
  switch (tag.type) {
    case 'REAL': buf.setFloat32(0, value); break;
    case 'LREAL': buf.setFloat64(0, value); break;
    default:
      if (n === 1) return [toWord(value)];
      buf.setUint32(0, value >>> 0);
  }
  const out = [];
  for (let k = 0; k < n; k++) out.push(buf.getUint16(2 * k));
  return out;
}

/**
 * A value from its registers (the inverse of wordsOf; a 32-bit integer cut to one register reads
 * back as 0..65535).
 * @param {object} tag
 * @param {number[]} words tag.modbus.words registers
 * @returns {number|string}
 */
function valueOf(tag, words) {
  if (tag.type === 'STRING') {
    const len = Math.min(words[0], tag.length);
    let s = '';
    for (let k = 0; k < len; k++) {
      const w = words[1 + (k >> 1)] || 0;
      s += String.fromCharCode(k % 2 ? w & 0xff : w >> 8);
    }
    return s;
  }
  if (words.length === 1) {
    const kind = tag.type;
    if (kind === 'INT') return signed16(words[0]);
    if (kind === 'SINT') return Math.max(-128, Math.min(127, signed16(words[0])));
    return words[0];
  }
  const buf = new DataView(new ArrayBuffer(8));
  words.forEach((w, k) => buf.setUint16(2 * k, w));
  switch (tag.type) {
    case 'REAL': return shortReal(buf.getFloat32(0));
    case 'LREAL': return buf.getFloat64(0);
    case 'DINT': return buf.getInt32(0);
    default: return buf.getUint32(0);
  }
}

module.exports = { layoutModbus, naturalWords, span, wordsOf, valueOf, WORD_MAX };
