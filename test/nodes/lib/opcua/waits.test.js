'use strict';
/** nodes/lib/opcua/waits.js: waits that end on their own, or all at once on cancel. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWaits } = require('../../../../nodes/lib/opcua/waits');

test('a wait resolves after its time and is no longer pending', async () => {
  const waits = createWaits();
  const p = waits.wait(5);
  assert.equal(waits.size, 1);
  await p;
  assert.equal(waits.size, 0);
});

test('cancel ends every pending wait at once; waits after it work as before', async () => {
  const waits = createWaits();
  const ended = [];
  const long = [waits.wait(60000).then(() => ended.push('a')), waits.wait(60000).then(() => ended.push('b'))];
  assert.equal(waits.size, 2);
  waits.cancel();
  let timer;
  const outcome = await Promise.race([
    Promise.all(long).then(() => 'ended'),
    new Promise((r) => { timer = setTimeout(() => r('still pending'), 5000); }),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, 'ended');
  assert.deepEqual(ended.sort(), ['a', 'b']);
  assert.equal(waits.size, 0);
  await waits.wait(1);
});
