'use strict';
/**
 * nodes/lib/s7/address.js: the nodes7 items of every tag of a table. Bits as bits, every other
 * type as its bytes from the table's codec; the values of a write item are what nodes7 writes.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { demoTable, loadTable } = require('../../../../nodes/lib/core/io-table');
const { nodes7Address, rangeAddress, writeItem } = require('../../../../nodes/lib/s7/address');

const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });

test('a bit as its bit, other types as their bytes, in a data block or the M area', () => {
  const demo = demoTable();
  assert.equal(nodes7Address(demo.get('c1')), 'DB1,X2.0');
  assert.equal(nodes7Address(demo.get('ng')), 'DB1,BYTE4.2');
  assert.equal(nodes7Address(demo.get('nb')), 'DB1,BYTE8.4');
  assert.equal(nodes7Address(tank.get('vo')), 'M2.0');
  assert.equal(nodes7Address(tank.get('sts')), 'MB10.2');
  assert.equal(nodes7Address(tank.get('rcp')), 'DB11,BYTE6.18');
  assert.equal(rangeAddress({ area: 'DB', db: 10 }, 0, 30), 'DB10,BYTE0.30');
  assert.equal(rangeAddress({ area: 'M', db: 0 }, 2, 10), 'MB2.10');
});

test('write items carry the bytes the PLC holds: a REAL\'s IEEE bits, a STRING\'s header and characters', () => {
  assert.deepEqual(writeItem(tank.get('vlv'), 1), { addr: 'DB11,X4.0', value: true });
  assert.deepEqual(writeItem(tank.get('sp'), 1), { addr: 'DB11,BYTE0.4', value: [0x3f, 0x80, 0, 0] });
  assert.deepEqual(writeItem(tank.get('rcp'), 'Ab').value, [16, 2, 0x41, 0x62, ...Array(14).fill(0)]);
  const byte = { short: 'b', type: 'USINT', size: 1, addr: { area: 'DB', db: 3, byte: 7, bit: 0 } };
  assert.deepEqual(writeItem(byte, 200), { addr: 'DB3,BYTE7.1', value: 200 }, 'one byte as a number: nodes7 takes no array of one');
});

test('every tag of both tables gets an address nodes7 parses', () => {
  for (const t of [...demoTable().tags, ...tank.tags]) assert.match(nodes7Address(t), /^(DB\d+,(X\d+\.\d|BYTE\d+\.\d+)|M\d+\.\d|MB\d+\.\d+)$/, t.short);
});

test('a tag without an address is refused with E_TYPE, not guessed', () => {
  assert.throws(() => nodes7Address({ short: 'x', type: 'REAL' }), { code: 'E_TYPE', name: 'S7Error' });
});
