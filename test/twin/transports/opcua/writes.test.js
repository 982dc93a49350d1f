'use strict';
/** The OPC UA transport's Writes, in order, conditions first (twin/transports/opcua/writes.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWrites, inputItems, CONDITIONS } = require('../../../../twin/transports/opcua/writes');
const ot = require('../../../../nodes/lib/opcua/tags');

test('inputItems: conditions of timed pairs first; what is not an input or not valid is counted and left out', () => {
  assert.ok(CONDITIONS.has('dmg'), 'dmg is the condition of sd');
  const errors = [];
  const items = inputItems({ sd: 1, zz: 1, c1: 1, st: 7, dmg: 1 }, 'plant1', (code) => errors.push(code));
  assert.deepEqual(items.map((i) => i.nodeId), [ot.cloudNodeId('dmg', { plant: 'plant1' }), ot.cloudNodeId('sd', { plant: 'plant1' })]);
  assert.deepEqual(items.map((i) => [i.dataType, i.value]), [['Boolean', true], ['Boolean', true]]);
  assert.deepEqual(errors.sort(), ['E_TYPE', 'E_UNKNOWN_TAG', 'E_UNKNOWN_TAG'].sort(), 'zz and c1 are not inputs; 7 is no BOOL');
});

test('each Write waits for the one before it; failures and bad results are counted', async () => {
  const pending = [];
  const side = { write: (items) => new Promise((resolve, reject) => pending.push({ items, resolve, reject })) };
  const stats = { sent: 0 };
  const errors = [];
  const w = createWrites({ side, plant: 'plant1', stats, countError: (code, msg) => errors.push([code, msg]) });
  w.inputs({ st: 1 });
  w.inputs({ st: 0 });
  w.after(() => side.write([{ nodeId: 'probe' }]));
  w.inputs({ zz: 1 }); // nothing valid: no Write at all
  await new Promise((r) => setImmediate(r));
  assert.equal(pending.length, 1, 'the second Write waits for the first');
  assert.equal(stats.sent, 2);
  pending[0].resolve([{ good: true }]);
  await new Promise((r) => setImmediate(r));
  assert.equal(pending.length, 2);
  assert.equal(pending[1].items[0].value, false);
  pending[1].reject(Object.assign(new Error('session closed'), { code: 'E_NOT_CONNECTED' }));
  await new Promise((r) => setImmediate(r));
  assert.equal(pending.length, 3, 'a failed Write does not stop the next one');
  let settled = false;
  w.settled().then(() => { settled = true; });
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'settled waits for the last Write');
  pending[2].resolve([{ good: false, status: 'BadUserAccessDenied', nodeId: 'probe' }]);
  await w.settled();
  assert.deepEqual(errors, [['E_UNKNOWN_TAG', 'not an input: zz'], ['E_NOT_CONNECTED', 'session closed'], ['BadUserAccessDenied', 'probe']]);
});
