'use strict';
/**
 * Which nodes7 items read and write the tags of an I/O table: the one place that knows nodes7's
 * address syntax. A BOOL is written as its bit (`DB1,X0.6`, `M2.0`); every other type as the
 * bytes the table's codec makes of it (`DB10,BYTE0.4`, `MB10.2`), so one codec (nodes/lib/core/
 * table/types.js) holds every type's encoding, UDINT, SINT, UINT and S7 STRINGs included, which
 * nodes7 has no names for. Reads take whole byte ranges of an area (`DB10,BYTE0.30`, `MB2.10`).
 */
const { encode } = require('../core/table/types');
const { s7Error } = require('./errors');

/**
 * The nodes7 address of bytes `start`..`start+length-1` of an area.
 * @param {{area: 'DB'|'M', db: number}} a
 * @param {number} start
 * @param {number} length
 * @returns {string}
 */
function rangeAddress(a, start, length) {
  return a.area === 'M' ? `MB${start}.${length}` : `DB${a.db},BYTE${start}.${length}`;
}

/**
 * The nodes7 address that writes a tag: its bit for a BOOL, its bytes otherwise.
 * @param {{type: string, size: number, addr: {area: string, db: number, byte: number, bit: number}}} tag
 * @returns {string}
 * @throws {S7Error} E_TYPE for a tag without an address
 */
function nodes7Address(tag) {
  const { area, db, byte, bit } = tag.addr || {};
  if (area !== 'DB' && area !== 'M') throw s7Error('E_TYPE', `no nodes7 address for tag ${tag.short}`);
  if (tag.type === 'BOOL') return area === 'M' ? `M${byte}.${bit}` : `DB${db},X${byte}.${bit}`;
  return rangeAddress(tag.addr, byte, tag.size);
}

/**
 * The nodes7 write item of a tag's normalised value: a boolean for a bit, the value's bytes (a
 * number for one byte, an array for more) for the others.
 * @param {object} tag
 * @param {number|string} value normalised (the table's normalise)
 * @returns {{addr: string, value: boolean|number|number[]}}
 */
function writeItem(tag, value) {
  const addr = nodes7Address(tag);
  if (tag.type === 'BOOL') return { addr, value: value === 1 };
  const bytes = [...encode(tag, value)];
  return { addr, value: bytes.length === 1 ? bytes[0] : bytes };
}

module.exports = { nodes7Address, rangeAddress, writeItem };
