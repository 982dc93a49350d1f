'use strict';
/**
 * S7 addresses of an I/O table: data blocks and the M area, written as nodes7 writes them
 * (`DB5,REAL4`, `DB1,X0.6`, `DB2,S10.16`, `MW10`, `M2.0`) or as TIA Portal shows them
 * (`DB5.DBD4`, `%DB1.DBX0.6`, `%MW10`, `%M2.0`). Parsing only: which area, which byte and bit,
 * how wide the address says the value is. Whether that suits the tag's type is the table check's
 * business (./check.js). Browser-safe (plain CommonJS, no Node built-ins).
 */

/** Bytes each address type letter names (0 = one bit). */
const WIDTH = {
  X: 0,
  B: 1, BYTE: 1, SINT: 1, USINT: 1, C: 1, CHAR: 1,
  W: 2, WORD: 2, I: 2, INT: 2, UINT: 2,
  D: 4, DW: 4, DWORD: 4, DI: 4, DINT: 4, UDINT: 4, R: 4, REAL: 4,
  LR: 8, LREAL: 8,
  S: null, STRING: null,
};
/** The M area's nodes7 prefixes: MW10 = a WORD at MB10. */
const M_WIDTH = { M: 0, MX: 0, MB: 1, MC: 1, MW: 2, MI: 2, MD: 4, MDI: 4, MR: 4, MLR: 8 };
/** The M area prefix a table writes for each type. */
const M_PREFIX = {
  BYTE: 'MB', USINT: 'MB', SINT: 'MB', WORD: 'MW', UINT: 'MW', INT: 'MW', DWORD: 'MD', UDINT: 'MD', DINT: 'MD', REAL: 'MR', LREAL: 'MLR',
};
/** TIA's data block access widths: DB5.DBD4. */
const TIA_DB = { DBX: 0, DBB: 1, DBW: 2, DBD: 4 };
/** The largest byte offset an address may name (an S7-1500 data block holds at most 16 MB). */
const MAX_BYTE = 0xffffff;

/**
 * Parse one S7 address.
 * @param {string} text
 * @returns {{area: 'DB'|'M', db: number, key: string, byte: number, bit: number, width: number|null,
 *   hint: string, length?: number}|null} key names the area (`DB5`, `M`); width in bytes (0 = a
 *   bit, null = a STRING whose length the address does not say); hint = the type letters as
 *   written; null when the text is no address of ours
 */
function parseAddress(text) {
  const s = String(text ?? '').trim().replace(/^%/, '').toUpperCase();
  let m = /^DB(\d+),([A-Z]+)(\d+)(?:\.(\d+))?$/.exec(s);
  if (m) {
    const hint = m[2];
    if (!Object.hasOwn(WIDTH, hint)) return null;
    return finish('DB', Number(m[1]), hint, WIDTH[hint], m[3], m[4]);
  }
  m = /^DB(\d+)\.(DB[XBWD])(\d+)(?:\.(\d+))?$/.exec(s);
  if (m) return finish('DB', Number(m[1]), m[2], TIA_DB[m[2]], m[3], m[4]);
  m = /^(M[A-Z]*)(\d+)(?:\.(\d+))?$/.exec(s);
  if (m && Object.hasOwn(M_WIDTH, m[1])) return finish('M', 0, m[1], M_WIDTH[m[1]], m[2], m[3]);
  return null;
}

/** The parsed address, or null when its numbers do not make one. */
function finish(area, db, hint, width, byteText, tail) {
  const byte = Number(byteText);
  if (byte > MAX_BYTE || (area === 'DB' && (db < 1 || db > 65535))) return null;
  const out = { area, db, key: area === 'DB' ? `DB${db}` : 'M', byte, bit: 0, width, hint };
  if (width === 0) { // a bit: the part after the dot is required and 0..7
    if (tail === undefined || Number(tail) > 7) return null;
    out.bit = Number(tail);
  } else if (width === null) { // STRING: DB2,S10.16 = at most 16 characters from byte 10
    if (tail !== undefined) {
      out.length = Number(tail);
      out.width = out.length + 2;
    }
  } else if (tail !== undefined) {
    return null; // arrays (DB1,INT4.3) are no single tag
  }
  return out;
}

/**
 * The address a table writes for a tag of `type` at a parsed place, in nodes7's syntax where
 * nodes7 has a name for the type (`DB5,REAL4`, `MW10`), ours where it has not (`DB5,UDINT8`).
 * @param {{area: string, db: number, byte: number, bit: number}} addr
 * @param {string} type
 * @param {number} [length] a STRING's
 * @returns {string}
 */
function formatAddress(addr, type, length) {
  if (addr.area === 'M') {
    if (type === 'BOOL') return `M${addr.byte}.${addr.bit}`;
    return `${M_PREFIX[type]}${addr.byte}`;
  }
  if (type === 'BOOL') return `DB${addr.db},X${addr.byte}.${addr.bit}`;
  if (type === 'STRING') return `DB${addr.db},S${addr.byte}.${length}`;
  return `DB${addr.db},${type}${addr.byte}`;
}

/**
 * An address in TIA Portal's notation, as its "Offset" column and watch tables show it:
 * `%DB5.DBD4`, `%DB1.DBX0.6`, `%MW10`.
 * @param {{area: string, db: number, byte: number, bit: number}} addr
 * @param {number} size bytes (0 or 1 for a bit: see bit)
 * @param {boolean} isBit
 */
function tiaAddress(addr, size, isBit) {
  const w = isBit ? 'X' : { 1: 'B', 2: 'W', 4: 'D' }[size] || 'B';
  const at = isBit ? `${addr.byte}.${addr.bit}` : String(addr.byte);
  return addr.area === 'M' ? `%M${w === 'X' ? '' : w}${at}` : `%DB${addr.db}.DB${w}${at}`;
}

module.exports = { parseAddress, formatAddress, tiaAddress, MAX_BYTE };
