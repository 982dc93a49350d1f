'use strict';
/**
 * What the I/O table node makes of its properties (nodes/lib/core/table/config.js): the table as
 * the editor writes it (an object) or as JSON text, its plants, and a refusal that says why.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { readTableConfig } = require('../../../../../nodes/lib/core/table/config');
const { createTable } = require('../../../../../nodes/lib/core/io-table');

const DEF = { name: 'tank', tags: [{ name: 'Setpoint', short: 'sp', type: 'REAL', s7: 'DB11,REAL0', dir: 'in', cloudWritable: true }] };

test('a table as an object (the editor\'s) and as JSON text give the same table', () => {
  const a = readTableConfig({ table: DEF, plants: 'tank1, tank2' }, createTable);
  const b = readTableConfig({ table: JSON.stringify(DEF), plants: 'tank1' }, createTable);
  assert.equal(a.error, null);
  assert.equal(b.error, null);
  assert.deepEqual(a.plants, ['tank1', 'tank2']);
  assert.equal(a.table.fingerprint, b.table.fingerprint);
  assert.equal(a.table.get('sp').name, 'Setpoint');
});

test('no table, text that is no JSON, a table with an error: refused with a code, naming the tag', () => {
  assert.equal(readTableConfig({ table: '' }, createTable).error.code, 'E_TABLE_JSON');
  assert.equal(readTableConfig({ table: null }, createTable).error.code, 'E_TABLE_JSON');
  assert.equal(readTableConfig({ table: '{"tags": [' }, createTable).error.code, 'E_TABLE_JSON');
  const bad = readTableConfig({ table: { tags: [{ ...DEF.tags[0], s7: 'DB11,REAL1' }] } }, createTable);
  assert.equal(bad.error.code, 'E_TABLE');
  assert.match(bad.error.message, /tag "Setpoint"/);
  assert.equal(bad.table, null);
});
