'use strict';
/**
 * nodes/lib/opcua/fresh.js: which notifications from the cloud OPC UA server the edge may write
 * to the PLC. Clocks are server clocks in picoseconds (BigInt), as session.js reports them.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createFreshFilter } = require('../../../../nodes/lib/opcua/fresh');

const ms = (n) => BigInt(n) * 1000000000n; // a server clock at n ms

test('nothing is a command before the first baseline: initial values are kept aside, then taken as seen', () => {
  const f = createFreshFilter();
  assert.equal(f.holding, true);
  assert.equal(f.accept('st', 1, ms(100), 'st=1', 0), false, 'initial value of StartButton');
  assert.equal(f.accept('sd', 0, ms(100), 'sd=0', 0), false);
  assert.equal(f.seen('st'), undefined, 'kept aside, not judged yet');
  // The baseline read answers (its clock is the time of the read); values as read.
  const later = f.rebase([{ key: 'st', value: 1, clock: ms(110) }, { key: 'sd', value: 0, clock: ms(110) }], 10);
  assert.deepEqual(later, [], 'the initial values are older than the read: no command');
  assert.equal(f.holding, false);
  assert.equal(f.counters.held, 2);
  assert.equal(f.accept('st', 1, ms(120), null, 20), false, 'unchanged');
  assert.equal(f.accept('st', 0, ms(130), null, 30), true, 'a twin released the button after the baseline');
  assert.equal(f.accept('st', 0, ms(140), null, 40), false);
  assert.deepEqual({ ...f.counters }, { held: 2, stale: 0, unchanged: 2, fresh: 1, baselines: 1 });
});

test('a sample older than the baseline read, published after it, is stale; a pulse after it passes whole', () => {
  const f = createFreshFilter();
  f.rebase([{ key: 'sd', value: 1, clock: ms(200) }], 0);
  // Sampled at 190 ms (before the read) with the old value, delivered with the next publish.
  assert.equal(f.accept('sd', 0, ms(190), null, 5), false);
  assert.equal(f.counters.stale, 1);
  assert.equal(f.seen('sd'), 1, 'what was seen is still the read value');
  // A box leaves the detector and the next enters inside one publish: 1 → 0 → 1, in time order.
  assert.equal(f.accept('sd', 0, ms(210), null, 6), true);
  assert.equal(f.accept('sd', 1, ms(220), null, 6), true);
  assert.equal(f.seen('sd'), 1);
});

test('hold() (connection lost) until the next rebase: republished notifications are no commands', () => {
  const f = createFreshFilter();
  f.rebase([{ key: 'dmg', value: 0, clock: ms(100) }], 0);
  assert.equal(f.accept('dmg', 1, ms(150), null, 1), true);
  f.hold(); // the cloud connection dropped
  // Queued in the server while the edge was away, republished after the reconnect: late.
  assert.equal(f.accept('dmg', 0, ms(300), null, 2), false);
  assert.equal(f.accept('dmg', 1, ms(310), null, 2), false);
  // The baseline read after the session came back: dmg is 1 there.
  f.rebase([{ key: 'dmg', value: 1, clock: ms(400) }], 3);
  assert.equal(f.accept('dmg', 1, ms(410), null, 4), false, 'equal to the baseline');
  assert.equal(f.accept('dmg', 0, ms(420), null, 5), true);
  assert.equal(f.counters.baselines, 2);
});

test('a notification kept aside that is newer than the read is a command, handed back by rebase()', () => {
  const f = createFreshFilter();
  // Written by a twin after the read was served; its notification came before the read's answer.
  assert.equal(f.accept('p1f', 1, ms(510), 'p1f=1', 0), false);
  assert.equal(f.accept('sk', 1, ms(490), 'sk=1', 0), false, 'older than the read');
  const later = f.rebase([{ key: 'p1f', value: 0, clock: ms(500) }, { key: 'sk', value: 1, clock: ms(500) }], 1);
  assert.deepEqual(later, ['p1f=1'], 'the twin\'s command is not lost');
  assert.equal(f.seen('p1f'), 1);
  assert.equal(f.accept('p1f', 1, ms(520), null, 2), false, 'and not written twice');
  assert.equal(f.accept('p1f', 0, ms(530), null, 3), true);
});

test('kept aside while holding is bounded: the oldest go first, as seen values', () => {
  const f = createFreshFilter({ maxKept: 2 });
  f.accept('a', 1, ms(1), 'a1', 0);
  f.accept('a', 2, ms(2), 'a2', 0);
  f.accept('a', 3, ms(3), 'a3', 0); // pushes a1 out
  assert.equal(f.counters.held, 1);
  assert.deepEqual(f.rebase([{ key: 'a', value: 0, clock: ms(0) }], 1), ['a2', 'a3'], 'both newer than the read, each a change');
});

test('the server clock is consulted only within staleWindowMs of a baseline', () => {
  const f = createFreshFilter({ staleWindowMs: 1000 });
  // A value written with a server timestamp far in the future becomes the baseline's clock.
  f.rebase([{ key: 'sk', value: 1, clock: ms(1e12) }], 0);
  assert.equal(f.accept('sk', 0, ms(600), null, 500), false, 'inside the window: judged by the clock');
  assert.equal(f.accept('sk', 0, ms(700), null, 1500), true, 'after it: by value only, so the key is not blocked');
});

test('values without a server clock are judged by value', () => {
  const f = createFreshFilter();
  f.rebase([{ key: 'se', value: 0, clock: null }], 0);
  assert.equal(f.accept('se', 0, null, null, 1), false);
  assert.equal(f.accept('se', 1, null, null, 2), true);
  assert.equal(f.accept('sp', 1, null, null, 3), true, 'a key the read did not answer: compared with nothing seen');
});
