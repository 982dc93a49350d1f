'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const p = require('../../../../nodes/lib/mqtt/payload');

const code = (c) => (e) => e.code === c;

test('checkCommand accepts cloud-writable inputs and normalises booleans', () => {
  assert.deepEqual(p.checkCommand(Buffer.from('{"se":1,"dmg":false,"st":true}')), { se: 1, dmg: 0, st: 1 });
  assert.deepEqual(p.checkCommand('{"p1f":0}'), { p1f: 0 });
});

test('checkCommand refuses what the PLC must never write', () => {
  assert.throws(() => p.checkCommand('{"se":1'), code('E_MQTT_JSON'));
  assert.throws(() => p.checkCommand('[]'), code('E_MQTT_CMD'));
  assert.throws(() => p.checkCommand('{}'), code('E_MQTT_CMD'));
  assert.throws(() => p.checkCommand('null'), code('E_MQTT_CMD'));
  assert.throws(() => p.checkCommand('{"c1":1}'), code('E_NOT_WRITABLE'));
  assert.throws(() => p.checkCommand('{"nope":1}'), code('E_UNKNOWN_TAG'));
  assert.throws(() => p.checkCommand('{"se":2}'), code('E_TYPE'));
  assert.throws(() => p.checkCommand('{"se":1,"red":1}'), code('E_NOT_WRITABLE'));
});

test('checkProbe accepts one item or an array, refuses bad slots and values', () => {
  assert.deepEqual(p.checkProbe('{"i":3,"v":42}'), { many: false, items: [{ i: 3, v: 42 }] });
  assert.deepEqual(p.checkProbe('[{"i":0,"v":0},{"i":1023,"v":4294967295}]').items.length, 2);
  for (const bad of ['{"i":-1,"v":1}', '{"i":1024,"v":1}', '{"i":1.5,"v":1}', '{"i":1,"v":4294967296}', '{"i":1,"v":-1}', '[]', '"x"', '{"i":1}']) {
    assert.throws(() => p.checkProbe(bad), code('E_MQTT_PROBE'), bad);
  }
  assert.throws(() => p.checkProbe('nope'), code('E_MQTT_JSON'));
});

test('decodeState keeps tag short names with numeric values only', () => {
  assert.deepEqual(p.decodeState('{"c1":1,"red":0,"ConveyorBelt":1,"x":1,"grn":"1"}'), { c1: 1, red: 0 });
  assert.throws(() => p.decodeState('[1]'), code('E_MQTT_STATE'));
});
