'use strict';
/** nodes/lib/opcua/data-value.js: DataValues and status codes as plain values. */
const test = require('node:test');
const assert = require('node:assert/strict');
const dv = require('../../../../nodes/lib/opcua/data-value');

const status = (name) => ({ name, isGood: () => name === 'Good' });
const at = new Date(1700000000123);

test('source time in ms with picoseconds; server clock as exact picoseconds; null without a timestamp', () => {
  assert.equal(dv.sourceTime({ sourceTimestamp: at, sourcePicoseconds: 500000000 }), 1700000000123.5);
  assert.equal(dv.sourceTime({}), null);
  assert.equal(dv.serverClock({ serverTimestamp: at, serverPicoseconds: 7 }), 1700000000123n * 1000000000n + 7n);
  assert.equal(dv.serverClock({}), null);
  // Two reads in the same millisecond stay apart.
  assert.ok(dv.serverClock({ serverTimestamp: at, serverPicoseconds: 8 }) > dv.serverClock({ serverTimestamp: at, serverPicoseconds: 7 }));
});

test('a notification carries node id, value, status, source time, and the server clock only when asked for', () => {
  const item = { itemToMonitor: { nodeId: { toString: () => 'ns=1;s=plant1.StartButton' } } };
  const value = { value: { value: true }, statusCode: status('Good'), sourceTimestamp: at, serverTimestamp: at, serverPicoseconds: 1 };
  assert.deepEqual(dv.notification(item, value, false), {
    nodeId: 'ns=1;s=plant1.StartButton', value: true, status: value.statusCode, ts: 1700000000123, clock: null,
  });
  assert.equal(dv.notification(item, value, true).clock, 1700000000123n * 1000000000n + 1n);
});

test('write requests and results, read results', () => {
  const enums = { AttributeIds: { Value: 13 }, DataType: { Boolean: 1, UInt32: 7 } };
  const items = [{ nodeId: 'a', dataType: 'Boolean', value: true }, { nodeId: 'b', dataType: 'UInt32', value: 5 }];
  assert.deepEqual(dv.writeRequest(items, enums), [
    { nodeId: 'a', attributeId: 13, value: { value: { dataType: 1, value: true } } },
    { nodeId: 'b', attributeId: 13, value: { value: { dataType: 7, value: 5 } } },
  ]);
  assert.deepEqual(dv.writeResults([status('Good'), status('BadUserAccessDenied')], items), [
    { nodeId: 'a', status: 'Good', good: true }, { nodeId: 'b', status: 'BadUserAccessDenied', good: false },
  ]);
  const read = [{ value: { value: 3 }, statusCode: status('Good'), serverTimestamp: at }, { value: { value: null }, statusCode: status('BadNodeIdUnknown') }];
  assert.deepEqual(dv.readResults(read, ['x', 'y'], false), [
    { nodeId: 'x', value: 3, good: true, status: 'Good', clock: null },
    { nodeId: 'y', value: null, good: false, status: 'BadNodeIdUnknown', clock: null },
  ]);
  assert.equal(dv.readResults(read, ['x', 'y'], true)[0].clock, 1700000000123n * 1000000000n);
});
