'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();
const { commandItems, probeItems, createStateDiffer } = require('../../../../nodes/lib/s7/edge');
const { nodes7Address } = require('../../../../nodes/lib/s7/connection');

test('commandItems maps every value to a nodes7 item, booleans as true/false', () => {
  assert.deepEqual(commandItems({ se: 1, dmg: false, sk: true }), [
    { short: 'se', addr: 'DB1,X0.2', value: true },
    { short: 'dmg', addr: 'DB1,X0.6', value: false },
    { short: 'sk', addr: 'DB1,X1.0', value: true },
  ]);
});

test('commandItems is all or nothing: one bad value refuses the whole frame with a stable code', () => {
  assert.throws(() => commandItems({ se: 1, nope: 1 }), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => commandItems({ se: 1, c1: 1 }), { code: 'E_NOT_WRITABLE' });
  assert.throws(() => commandItems({ se: 1, dmg: 2 }), { code: 'E_TYPE' });
  assert.throws(() => commandItems({ se: 0.5 }), { code: 'E_TYPE' });
  assert.throws(() => commandItems({}), { code: 'E_EMPTY' });
});

test('probeItems checks slot and UDInt range and addresses the DB2 request slots', () => {
  assert.deepEqual(probeItems({ 0: 7, 1023: 4294967295 }), [
    { slot: 0, value: 7, addr: 'DB2,DWORD0' },
    { slot: 1023, value: 4294967295, addr: 'DB2,DWORD4092' },
  ]);
  assert.throws(() => probeItems({ 1024: 1 }), { code: 'E_SLOT' });
  assert.throws(() => probeItems({ '-1': 1 }), { code: 'E_SLOT' });
  assert.throws(() => probeItems({ x: 1 }), { code: 'E_SLOT' });
  assert.throws(() => probeItems({ 1: -1 }), { code: 'E_RANGE' });
  assert.throws(() => probeItems({ 1: 1.5 }), { code: 'E_TYPE' });
  assert.throws(() => probeItems({}), { code: 'E_EMPTY' });
});

test('nodes7Address covers every tag type of the table', () => {
  assert.equal(nodes7Address(tags.get('c1')), 'DB1,X2.0');
  assert.equal(nodes7Address(tags.get('ng')), 'DB1,BYTE4.2');
  assert.equal(nodes7Address(tags.get('nb')), 'DB1,BYTE8.4');
});

test('the state differ reports everything first, then only changes, never noStream tags', () => {
  const d = createStateDiffer();
  const buf = Buffer.alloc(tags.ioDbSize);
  const first = d.update(buf);
  assert.equal(first.first, true);
  assert.equal(Object.keys(first.changed).length, tags.tags.filter((t) => !t.noStream).length);
  assert.equal('scn' in first.values, false);
  tags.writeTag(buf, tags.get('c1'), 1);
  tags.writeTag(buf, tags.get('nb'), 70000);
  tags.writeTag(buf, tags.get('scn'), 5);
  assert.deepEqual(d.update(buf).changed, { c1: 1, nb: 70000 });
  assert.deepEqual(d.update(buf).changed, {});
  d.reset();
  assert.equal(d.update(buf).first, true);
});

test('the tank: a command writes each type as its bytes, ranges checked first; the differ decodes three areas', () => {
  const path = require('node:path');
  const tank = require('../../../../nodes/lib/core/io-table').loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables',
    'tank.json') });
  assert.deepEqual(commandItems({ sp: 42.5, vlv: 1, rcp: 'A' }, tank), [
    { short: 'sp', addr: 'DB11,BYTE0.4', value: [0x42, 0x2a, 0, 0] },
    { short: 'vlv', addr: 'DB11,X4.0', value: true },
    { short: 'rcp', addr: 'DB11,BYTE6.18', value: [16, 1, 0x41, ...Array(15).fill(0)] },
  ]);
  assert.throws(() => commandItems({ sp: 100.5 }, tank), { code: 'E_RANGE' });
  assert.throws(() => commandItems({ vlv: 1, rcp: 7 }, tank), { code: 'E_TYPE' }, 'all or nothing');
  assert.throws(() => commandItems({ lvl: 1 }, tank), { code: 'E_NOT_WRITABLE' });
  const d = createStateDiffer(tank);
  const areas = { DB10: Buffer.alloc(30), DB11: Buffer.alloc(24), M: Buffer.alloc(12) };
  assert.equal(d.update(areas).first, true);
  areas.M[2] = 1;
  tank.writeTag(areas.DB10, tank.get('lvl'), 12.5);
  assert.deepEqual(d.update(areas).changed, { lvl: 12.5, vo: 1 });
});
