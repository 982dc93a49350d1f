'use strict';
/** closeWithin (nodes/lib/runtime/close-guard.js): a node's close reaches done once, in time, whatever the work does. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { closeWithin } = require('../../../../nodes/lib/runtime/close-guard');

function fakeNode() {
  const warnings = [];
  return { warnings, warn: (m) => warnings.push(m) };
}
const closed = (node, o) => new Promise((resolve) => {
  const t0 = Date.now();
  let calls = 0;
  closeWithin(node, () => { calls += 1; setTimeout(() => resolve({ calls, ms: Date.now() - t0 }), 60); }, o);
});

test('work that finishes: done once, after `after`, no warning', async () => {
  const node = fakeNode();
  const order = [];
  const r = await closed(node, { ms: 5000, what: 'x close', work: async () => { order.push('work'); }, after: () => order.push('after') });
  assert.equal(r.calls, 1);
  assert.deepEqual(order, ['work', 'after']);
  assert.deepEqual(node.warnings, []);
});

test('work that fails or throws: done once, the failure warned', async () => {
  const node = fakeNode();
  assert.equal((await closed(node, { ms: 5000, what: 'x close', work: () => Promise.reject(new Error('disk gone')) })).calls, 1);
  assert.equal((await closed(node, { ms: 5000, what: 'y close', work: () => { throw new Error('sync'); } })).calls, 1);
  assert.deepEqual(node.warnings, ['x close: disk gone', 'y close: sync']);
});

test('work that never ends: done after ms, warned, and not again', async () => {
  const node = fakeNode();
  const r = await closed(node, { ms: 50, what: 'z close', work: () => new Promise(() => {}) });
  assert.equal(r.calls, 1);
  assert.ok(r.ms >= 50);
  assert.match(node.warnings[0], /^z close: did not close within 50 ms/);
});
