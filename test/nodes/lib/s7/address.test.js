'use strict';
/** nodes/lib/s7/address.js: the nodes7 address of every S7 type the I/O table uses. */
const test = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../../../nodes/lib/core/tags');
const { nodes7Address } = require('../../../../nodes/lib/s7/address');

test('each S7 type of the table has its nodes7 syntax', () => {
  assert.equal(nodes7Address({ addr: { db: 1, type: 'BOOL', byte: 3, bit: 7 } }), 'DB1,X3.7');
  assert.equal(nodes7Address({ addr: { db: 4, type: 'INT', byte: 10, bit: 0 } }), 'DB4,INT10');
  assert.equal(nodes7Address({ addr: { db: 1, type: 'DINT', byte: 8, bit: 0 } }), 'DB1,DINT8');
  assert.equal(nodes7Address({ addr: { db: 2, type: 'UDINT', byte: 12, bit: 0 } }), 'DB2,DWORD12');
});

test('every tag of the table gets an address', () => {
  for (const t of tags.tags) assert.match(nodes7Address(t), /^DB\d+,(X\d+\.\d|INT\d+|DINT\d+|DWORD\d+)$/, t.short);
});

test('a type without a nodes7 address is refused with E_TYPE, not guessed', () => {
  assert.throws(() => nodes7Address({ addr: { db: 1, type: 'REAL', byte: 0, bit: 0 } }), { code: 'E_TYPE', name: 'S7Error' });
});
