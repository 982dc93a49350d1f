'use strict';
/**
 * Which nodes7 item addresses a tag of the I/O table, by its S7 type. The one place that knows
 * nodes7's address syntax for the table's types: a type added to the table (REAL, WORD, STRING,
 * another DB or the M area) gets its address here and nowhere else.
 */
const { s7Error } = require('./errors');

/**
 * The nodes7 address of a tag from the dictionary (BOOL → X, INT, DINT, UDINT → DWORD).
 * @param {{addr: {db:number, type:string, byte:number, bit:number}}} tag
 * @returns {string}
 * @throws {S7Error} E_TYPE for a type nodes7 is not asked to read or write here
 */
function nodes7Address(tag) {
  const { db, type, byte, bit } = tag.addr;
  switch (type) {
    case 'BOOL': return `DB${db},X${byte}.${bit}`;
    case 'INT': return `DB${db},INT${byte}`;
    case 'DINT': return `DB${db},DINT${byte}`;
    case 'UDINT': return `DB${db},DWORD${byte}`;
    default: throw s7Error('E_TYPE', `no nodes7 address for type ${type}`);
  }
}

module.exports = { nodes7Address };
