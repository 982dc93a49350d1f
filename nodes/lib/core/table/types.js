'use strict';
/**
 * The S7 elementary types an I/O table may use, as a non-optimized data block (or the M area)
 * stores them: sizes, value ranges, where TIA places them, and the one codec of values to and
 * from the PLC's bytes (big-endian, as S7 stores them). The virtual PLC, the edge and the Modbus
 * map all encode and decode through here.
 *
 * Runs in a browser too (the config node's editor checks a table as it is typed): plain CommonJS,
 * no Node built-ins; bytes are read through a DataView, so a Buffer or a Uint8Array both do.
 */
const { codedError } = require('../errors');

/** Error with a stable `code` (E_TYPE, E_RANGE, …), naming the tag it is about. */
const TagError = codedError('TagError');

const REAL_MAX = 3.4028234663852886e38; // the largest finite IEEE 754 single
/** The longest S7 STRING: one byte of maximum length, one of actual length, at most 254 characters. */
const STRING_MAX = 254;

/**
 * Every type by name. bytes: the size (0 = one bit; STRING is 2 + its declared length); kind:
 * how a value is checked; align: in a non-optimized data block TIA places every member of two
 * bytes or more (and every STRING) on an even byte, BOOLs bit after bit, one-byte types on the
 * next byte.
 */
const TYPES = Object.freeze({
  BOOL: Object.freeze({ bytes: 0, min: 0, max: 1, kind: 'bool', align: 0, tia: 'Bool' }),
  BYTE: Object.freeze({ bytes: 1, min: 0, max: 0xff, kind: 'int', align: 1, tia: 'Byte' }),
  USINT: Object.freeze({ bytes: 1, min: 0, max: 0xff, kind: 'int', align: 1, tia: 'USInt' }),
  SINT: Object.freeze({ bytes: 1, min: -0x80, max: 0x7f, kind: 'int', align: 1, tia: 'SInt' }),
  WORD: Object.freeze({ bytes: 2, min: 0, max: 0xffff, kind: 'int', align: 2, tia: 'Word' }),
  UINT: Object.freeze({ bytes: 2, min: 0, max: 0xffff, kind: 'int', align: 2, tia: 'UInt' }),
  INT: Object.freeze({ bytes: 2, min: -0x8000, max: 0x7fff, kind: 'int', align: 2, tia: 'Int' }),
  DWORD: Object.freeze({ bytes: 4, min: 0, max: 0xffffffff, kind: 'int', align: 2, tia: 'DWord' }),
  UDINT: Object.freeze({ bytes: 4, min: 0, max: 0xffffffff, kind: 'int', align: 2, tia: 'UDInt' }),
  DINT: Object.freeze({ bytes: 4, min: -0x80000000, max: 0x7fffffff, kind: 'int', align: 2, tia: 'DInt' }),
  REAL: Object.freeze({ bytes: 4, min: -REAL_MAX, max: REAL_MAX, kind: 'real', align: 2, tia: 'Real' }),
  LREAL: Object.freeze({ bytes: 8, min: -Number.MAX_VALUE, max: Number.MAX_VALUE, kind: 'real', align: 2, tia: 'LReal' }),
  STRING: Object.freeze({ bytes: null, min: undefined, max: undefined, kind: 'string', align: 2, tia: 'String' }),
});

/**
 * Parse a type as a table writes it: `REAL`, `udint`, `STRING[16]`, `String` (254 characters).
 * @param {string} text
 * @returns {{type: string, length?: number, size: number}|null} null when it is no type of ours
 */
function parseType(text) {
  const m = /^\s*([A-Za-z]+)\s*(?:\[\s*(\d+)\s*\])?\s*$/.exec(String(text ?? ''));
  if (!m) return null;
  const type = m[1].toUpperCase();
  if (!Object.hasOwn(TYPES, type)) return null;
  if (type === 'STRING') {
    const length = m[2] === undefined ? STRING_MAX : Number(m[2]);
    if (length < 1 || length > STRING_MAX) return null;
    return { type, length, size: length + 2 };
  }
  if (m[2] !== undefined) return null;
  return { type, size: Math.max(1, TYPES[type].bytes) };
}

/** A type's name as the table writes it back: `STRING[16]`, `REAL`. */
const typeName = (type, length) => (type === 'STRING' ? `STRING[${length}]` : type);

/** Bytes a tag's value takes (a BOOL takes one bit of one byte: 1). */
const sizeOf = (tag) => (tag.type === 'STRING' ? tag.length + 2 : Math.max(1, TYPES[tag.type].bytes));

const viewOf = (buf) => new DataView(buf.buffer, buf.byteOffset, buf.byteLength);

/**
 * The shortest decimal that is the same single-precision float: what TIA's watch table shows for
 * a REAL (0.1, not 0.100000001490116). Every part compares and sends REALs this way, so a value
 * read twice is the same number twice.
 * @param {number} f a float32 value as a double
 * @returns {number}
 */
function shortReal(f) {
  if (!Number.isFinite(f) || f === 0) return f;
  for (let p = 1; p < 9; p++) {
    const s = Number(f.toPrecision(p));
    if (Math.fround(s) === f) return s;
  }
  return f;
}

/** Latin-1 text of an S7 STRING's characters (one byte each). */
function charsOf(buf, start, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(buf[start + i]);
  return s;
}

/**
 * Read one value from an area's bytes.
 * @param {Uint8Array} buf the area (byte 0 = the area's byte 0)
 * @param {{type: string, length?: number, addr: {byte: number, bit: number}}} tag
 * @returns {number|string} BOOL as 0/1, numbers as numbers, STRING as text
 */
function readValue(buf, tag) {
  const { byte, bit } = tag.addr;
  const v = viewOf(buf);
  switch (tag.type) {
    case 'BOOL': return (buf[byte] >> bit) & 1;
    case 'BYTE': case 'USINT': return v.getUint8(byte);
    case 'SINT': return v.getInt8(byte);
    case 'WORD': case 'UINT': return v.getUint16(byte);
    case 'INT': return v.getInt16(byte);
    case 'DWORD': case 'UDINT': return v.getUint32(byte);
    case 'DINT': return v.getInt32(byte);
    case 'REAL': return shortReal(v.getFloat32(byte));
    case 'LREAL': return v.getFloat64(byte);
    case 'STRING': {
      // The actual length byte is what the PLC wrote; never trust it past the declared length.
      const n = Math.min(buf[byte + 1], tag.length, buf[byte] || tag.length);
      return charsOf(buf, byte + 2, n);
    }
    default: throw new TagError('E_TYPE', `unknown type ${tag.type}`);
  }
}

/**
 * Write one normalised value (see normalise) into an area's bytes. A STRING writes its maximum
 * length, its actual length and its characters, and zeroes the rest of its room.
 * @param {Uint8Array} buf
 * @param {object} tag
 * @param {number|string} value
 */
function writeValue(buf, tag, value) {
  const { byte, bit } = tag.addr;
  const v = viewOf(buf);
  switch (tag.type) {
    case 'BOOL': buf[byte] = value ? buf[byte] | (1 << bit) : buf[byte] & ~(1 << bit); return;
    case 'BYTE': case 'USINT': v.setUint8(byte, value); return;
    case 'SINT': v.setInt8(byte, value); return;
    case 'WORD': case 'UINT': v.setUint16(byte, value); return;
    case 'INT': v.setInt16(byte, value); return;
    case 'DWORD': case 'UDINT': v.setUint32(byte, value >>> 0); return;
    case 'DINT': v.setInt32(byte, value); return;
    case 'REAL': v.setFloat32(byte, value); return;
    case 'LREAL': v.setFloat64(byte, value); return;
    case 'STRING': {
      const s = String(value);
      buf[byte] = tag.length;
      buf[byte + 1] = s.length;
      for (let i = 0; i < tag.length; i++) buf[byte + 2 + i] = i < s.length ? s.charCodeAt(i) : 0;
      return;
    }
    default: throw new TagError('E_TYPE', `unknown type ${tag.type}`);
  }
}

/**
 * The bytes of one value as the PLC holds them (a BOOL: one byte, 0 or 1).
 * @param {object} tag
 * @param {number|string} value normalised
 * @returns {Uint8Array} sizeOf(tag) bytes
 */
function encode(tag, value) {
  const out = new Uint8Array(sizeOf(tag));
  if (tag.type === 'BOOL') { out[0] = value ? 1 : 0; return out; }
  writeValue(out, { ...tag, addr: { byte: 0, bit: 0 } }, value);
  return out;
}

/**
 * Check a value for a tag and bring it to the one form every part uses: BOOL as 0/1 (true/false
 * accepted), whole numbers in the type's range (and the tag's min/max), REAL as the nearest
 * single-precision value in its shortest decimal, STRING as text of at most its length, one byte
 * per character.
 * @param {{short: string, type: string, length?: number, min?: number, max?: number}} tag
 * @param {*} value
 * @returns {number|string}
 * @throws {TagError} E_TYPE, E_RANGE (naming the tag)
 */
function normalise(tag, value) {
  const t = TYPES[tag.type];
  if (!t) throw new TagError('E_TYPE', `tag "${tag.short}" has unknown type ${tag.type}`);
  const shown = JSON.stringify(value) ?? String(value);
  if (t.kind === 'bool') {
    if (value === true || value === 1) return 1;
    if (value === false || value === 0) return 0;
    throw new TagError('E_TYPE', `tag "${tag.short}" is BOOL; got ${shown}`);
  }
  if (t.kind === 'string') {
    if (typeof value !== 'string') throw new TagError('E_TYPE', `tag "${tag.short}" is ${typeName(tag.type, tag.length)}; got ${shown}`);
    if (value.length > tag.length) throw new TagError('E_RANGE', `tag "${tag.short}" holds at most ${tag.length} characters; got ${value.length}`);
    for (let i = 0; i < value.length; i++) {
      if (value.charCodeAt(i) > 0xff) throw new TagError('E_TYPE', `tag "${tag.short}": an S7 STRING holds one byte per character; "${value[i]}" is not one`);
    }
    return value;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || (t.kind === 'int' && !Number.isInteger(value))) {
    throw new TagError('E_TYPE', `tag "${tag.short}" is ${tag.type}; got ${shown}`);
  }
  const min = tag.min ?? t.min;
  const max = tag.max ?? t.max;
  if (value < min || value > max) throw new TagError('E_RANGE', `tag "${tag.short}" value ${value} outside ${min}..${max}`);
  if (tag.type === 'REAL') return shortReal(Math.fround(value));
  return value === 0 ? 0 : value; // -0 is 0 on the PLC
}

module.exports = {
  TYPES, TagError, REAL_MAX, STRING_MAX, parseType, typeName, sizeOf, shortReal, readValue, writeValue, encode, normalise,
};
