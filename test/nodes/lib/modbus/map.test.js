'use strict';
/**
 * nodes/lib/modbus/map.js and the codec over another plant's table: the tank's registers read
 * from its values and written into inputs, the registers a twin may write on the cloud server,
 * and the codec's blocks, masks and relays by the tank's map.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadTable, demoTable } = require('../../../../nodes/lib/core/io-table');
const { createRegisterMap, twinWritableOf, rangesOf } = require('../../../../nodes/lib/modbus/map');
const codec = require('../../../../nodes/lib/modbus/codec');

const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });
const ZERO = { lvl: 0, tmp: 0, cnt: 0, rca: '', sp: 0, vlv: 0, rcp: '', sts: 0, vo: 0 };

test('the registers twins may write: the cloud-writable tags\' and the probe requests', () => {
  assert.deepEqual(twinWritableOf(demoTable()), [{ from: 0, to: 0 }, { from: 1000, to: 3047 }]);
  assert.deepEqual(twinWritableOf(tank), [{ from: 0, to: 11 }, { from: 1000, to: 3047 }]);
  assert.deepEqual(rangesOf([5, 1, 2, 3, 9]), [{ from: 1, to: 3 }, { from: 5, to: 5 }, { from: 9, to: 9 }]);
});

test('a read gives the tank\'s values as registers; a register no tag holds is refused', () => {
  const m = createRegisterMap(tank);
  const words = m.read(13, 2, { ...ZERO, lvl: 42.5 });
  assert.deepEqual(words, [0x422a, 0]);
  assert.throws(() => m.read(29, 1, ZERO), { code: 'E_MODBUS_MAP', exception: 2 });
});

test('a write sets inputs only, half a REAL keeps the other half, a bit no input defines is refused', () => {
  const m = createRegisterMap(tank);
  assert.deepEqual(m.write(0, [1], ZERO), { vlv: 1 });
  assert.deepEqual(m.write(1, [0x422a], { ...ZERO, sp: 0 }), { sp: 42.5 }, 'the high word of 42.5 over a low word of 0');
  assert.deepEqual(m.write(3, [4, 0x4d69, 0x6c6b], ZERO), { rcp: 'Milk' });
  assert.throws(() => m.write(13, [1], ZERO), { exception: 2 }, 'an output');
  assert.throws(() => m.write(0, [2], ZERO), { exception: 3 }, 'bit 1 of the valve\'s register');
});

test('the codec by the tank\'s map: blocks, masks, a relay of the commands block', () => {
  const c = codec.codecOf(tank);
  assert.equal(codec.codecOf(tank), c, 'made once per table');
  assert.deepEqual([c.COMMAND_BLOCK, c.STATE_BLOCK], [{ address: 0, count: 12 }, { address: 12, count: 17 }]);
  assert.equal(c.mask(0, 0xffff), 1);
  assert.equal(c.mask(1, 0xffff), 0xffff, 'a REAL\'s register passes');
  const words = c.encode(0, 12, { vlv: 1, sp: 42.5, rcp: 'Milk' });
  assert.deepEqual(c.decode(0, words), { vlv: 1, sp: 42.5, rcp: 'Milk' });
  assert.throws(() => c.encode(0, 2, { sp: 1 }), { code: 'E_MODBUS_NOT_MAPPED' }, 'half a REAL is no value');
  assert.throws(() => c.encode(0, 12, { sp: 101 }), { code: 'E_RANGE' });
  const relay = codec.createRelay({ address: 0, count: 12, table: tank });
  assert.deepEqual(relay.update(words).changed, { vlv: 1, sp: 42.5, rcp: 'Milk' });
  assert.deepEqual(relay.update(c.encode(0, 12, { vlv: 1, sp: 42.5, rcp: 'Beer' })).changed, { rcp: 'Beer' });
  assert.equal(codec.COMMAND_REGISTER, 0, 'the module\'s own constants stay the demo plant\'s');
  assert.deepEqual(codec.STATE_BLOCK, { address: 1, count: 4 });
});
