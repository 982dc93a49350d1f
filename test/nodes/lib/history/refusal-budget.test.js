'use strict';
/**
 * lib/history/refusal-budget.js: the first refusals of a sender per window are logged, the rest
 * counted and summed up once the window ends; memory stays bounded however many senders flood.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createRefusalBudget, OVERFLOW } = require('../../../../nodes/lib/history/refusal-budget');

function budget(opts = {}) {
  let t = 1000;
  const summaries = [];
  const b = createRefusalBudget({ perWindow: 3, windowMs: 60000, now: () => t, onMuted: (s) => summaries.push(s), ...opts });
  return { b, summaries, at: (ms) => { t = ms; } };
}

test('the first perWindow refusals of a sender are logged, the rest counted by code; the summary comes as the window ends', () => {
  const { b, summaries, at } = budget();
  const sender = { via: 'mqtt', user: 'twin', host: '10.0.0.5' };
  const taken = [];
  for (let i = 0; i < 10; i += 1) { at(1000 + i); taken.push(b.take('k', sender, i % 2 ? 'E_RANGE' : 'E_MQTT_PUBLISH')); }
  assert.deepEqual(taken, [true, true, true, false, false, false, false, false, false, false]);
  assert.deepEqual(summaries, [], 'nothing summed up while the window runs');
  assert.equal(b.take('other', { via: 'mqtt', user: 'lab', host: '10.0.0.6' }, 'E_RANGE'), true, 'another sender has its own budget');
  at(1009 + 60000);
  b.sweep();
  assert.deepEqual(summaries, [{ sender, muted: 7, codes: { E_MQTT_PUBLISH: 3, E_RANGE: 4 }, since: 1003, until: 1009 }]);
  assert.equal(b.size(), 0, 'ended windows are forgotten');
  assert.deepEqual(b.counters, { refusals: 11, muted: 7, summaries: 1 });
});

test('a sender refused again after its window gets a fresh budget, and its last window\'s summary first', () => {
  const { b, summaries, at } = budget({ perWindow: 1 });
  const sender = { via: 'modbus', host: '10.0.0.7' };
  assert.equal(b.take('k', sender, 'E_RATE_LIMIT'), true);
  assert.equal(b.take('k', sender, 'E_RATE_LIMIT'), false);
  at(70000);
  assert.equal(b.take('k', sender, 'E_RATE_LIMIT'), true);
  assert.equal(summaries.length, 1);
  assert.equal(summaries[0].muted, 1);
  b.sweep(true);
  assert.equal(summaries.length, 1, 'a window without muted refusals needs no summary');
});

test('memory is bounded: past maxSenders, new senders share one overflow sender, never logged line by line', () => {
  const { b, summaries } = budget({ perWindow: 1, maxSenders: 3 });
  assert.equal(b.take('a', { host: 'a' }, 'E_X'), true);
  assert.equal(b.take('b', { host: 'b' }, 'E_X'), true);
  assert.equal(b.take('c', { host: 'c' }, 'E_X'), true);
  assert.equal(b.take('d', { host: 'd' }, 'E_X'), false, 'a fourth sender: counted');
  assert.equal(b.take('e', { host: 'e' }, 'E_Y'), false);
  assert.ok(b.size() <= 3);
  b.sweep(true);
  const overflow = summaries.find((s) => s.sender.overflow);
  assert.deepEqual([overflow.muted, overflow.codes], [2, { E_X: 1, E_Y: 1 }]);
  assert.equal(OVERFLOW, '*');
});
