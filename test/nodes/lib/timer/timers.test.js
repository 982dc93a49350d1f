'use strict';
/** nodes/lib/timer/timers.js: open timers by id, stopped by id or variable, expired oldest first, bounded. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createTimers } = require('../../../../nodes/lib/timer/timers');

function setup(o = {}) {
  let t = 0;
  const counters = { started: 0, stopped: 0, expired: 0, duplicates: 0, unmatched: 0, overflow: 0 };
  const samples = [];
  const timers = createTimers({ protocol: 'p', timeoutMs: 100, maxPending: 3, now: () => t, counters, onSample: (v, ms) => samples.push([v, ms]), ...o });
  return { timers, counters, samples, at: (v) => { t = v; } };
}

test('a timer is finished by its id with its duration, and the sample recorded', () => {
  const s = setup();
  s.timers.start('a', 'c1');
  s.at(7);
  assert.deepEqual(s.timers.stop({ id: 'a' }), [{ protocol: 'p', variable: 'c1', id: 'a', ms: 7 }]);
  assert.deepEqual(s.samples, [['c1', 7]]);
  assert.deepEqual(s.timers.stop({ id: 'a' }), [], 'finished once');
  assert.equal(s.counters.unmatched, 1);
  assert.equal(s.timers.finish('a', 9), null);
});

test('stopping a variable finishes all its timers; a number id becomes its own variable', () => {
  const s = setup();
  s.timers.start('a', 'c1', 0);
  s.timers.start('b', 'c1', 2);
  s.timers.start(5, undefined, 3);
  const out = s.timers.stop({ variable: 'c1' }, 10);
  assert.deepEqual(out.map((r) => [r.id, r.ms]), [['a', 10], ['b', 8]]);
  assert.deepEqual(s.timers.stop({ id: 5 }, 4), [{ protocol: 'p', variable: '5', id: '5', ms: 1 }]);
});

test('a repeated start keeps the first; past maxPending starts are refused; a bad id throws', () => {
  const s = setup();
  assert.equal(s.timers.start('a'), true);
  assert.equal(s.timers.start('a'), false);
  s.timers.start('b');
  s.timers.start('c');
  assert.equal(s.timers.start('d'), false);
  assert.deepEqual([s.counters.duplicates, s.counters.overflow, s.timers.size], [1, 1, 3]);
  assert.throws(() => s.timers.start({}), { code: 'E_TIMER_ID' });
});

test('sweep expires the timers past the timeout, oldest first, and leaves the younger', () => {
  const s = setup();
  s.timers.start('a', 'v', 0);
  s.timers.start('b', 'v', 50);
  assert.deepEqual(s.timers.sweep(120), [{ variable: 'v', id: 'a' }]);
  assert.equal(s.counters.expired, 1);
  assert.equal(s.timers.size, 1);
  s.timers.clear();
  assert.equal(s.timers.size, 0);
  assert.deepEqual(s.timers.stop({ variable: 'v' }, 200), [], 'clear forgets the variable too');
});
