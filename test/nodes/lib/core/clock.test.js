'use strict';
/**
 * lib/clock.js: the offset between two clocks from timestamped exchanges, and the conservative
 * deadline the edge judges by. Simulated clocks with known offsets and one-way delays.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const clock = require('../../../../nodes/lib/core/clock');

/** One exchange between an edge clock and a cloud clock ahead of it by `offset`. */
function exchange(est, { at, offset, up, down, hold = 0 }) {
  const t1 = at;
  const t2 = at + up + offset;
  const t3 = t2 + hold;
  const t4 = at + up + hold + down;
  return est.add(t1, t2, t3, t4);
}

test('now() is monotonic and close to the wall clock', () => {
  const a = clock.now();
  const b = clock.now();
  assert.ok(b >= a);
  assert.ok(Math.abs(a - Date.now()) < 1000);
});

test('a symmetric exchange gives the exact offset; an asymmetric one stays within its bound', () => {
  const est = clock.createOffsetEstimator({ driftPpm: 0 });
  const s = exchange(est, { at: 1000, offset: 5000, up: 10, down: 10, hold: 2 });
  assert.equal(s.offset, 5000);
  assert.equal(s.delay, 20);
  const skew = clock.createOffsetEstimator({ driftPpm: 0 });
  exchange(skew, { at: 1000, offset: -300, up: 40, down: 2 });
  const e = skew.estimate(1042);
  assert.ok(Math.abs(e.offset - (-300)) <= e.uncertainty, `true offset within ${e.offset} ± ${e.uncertainty}`);
  assert.equal(e.uncertainty, 21);
});

test('the sample with the tightest bound wins, and the bound grows with its age at the drift rate', () => {
  const est = clock.createOffsetEstimator({ driftPpm: 1000 });
  exchange(est, { at: 0, offset: 70, up: 50, down: 50 }); // delay 100: bound 50
  exchange(est, { at: 1000, offset: 70, up: 1, down: 1 }); // delay 2: bound 1
  const e = est.estimate(1002);
  assert.equal(e.delay, 2);
  assert.equal(e.uncertainty, 1);
  // 10 s later the tight sample's bound has grown by 10 ms.
  assert.equal(est.estimate(11002).uncertainty, 11);
});

test('localDeadline is never later than the true deadline on the local clock, whatever the path asymmetry', () => {
  for (const [up, down] of [[1, 1], [30, 1], [1, 30], [0, 45]]) {
    const est = clock.createOffsetEstimator({ driftPpm: 0 });
    const offset = 123456; // cloud = edge + offset
    exchange(est, { at: 10000, offset, up, down });
    const cloudDeadline = 20000 + offset; // 20000 on the edge's clock
    const local = est.localDeadline(cloudDeadline, 10100);
    assert.ok(local <= 20000, `up ${up} down ${down}: local deadline ${local} is not after the true 20000`);
    assert.ok(local >= 20000 - (up + down), 'and no earlier than the bound requires');
  }
});

test('with drift, the deadline is pulled in by the growth of the bound until then', () => {
  const est = clock.createOffsetEstimator({ driftPpm: 1000 });
  exchange(est, { at: 0, offset: 0, up: 1, down: 1 });
  // Judged at 2: the deadline 10,002 ms ahead; the bound grows by 10 ms over that time.
  assert.equal(est.localDeadline(10002, 2), 10002 - 1 - 10);
});

test('no estimate before the first exchange, after a reset, or from an impossible exchange', () => {
  const est = clock.createOffsetEstimator();
  assert.equal(est.estimate(0), null);
  assert.equal(est.localDeadline(100, 0), null);
  assert.equal(est.add(10, 5, 4, 12), null, 't3 before t2');
  assert.equal(est.add(10, 20, 30, 5), null, 'an answer before the question');
  assert.equal(est.stats().rejected, 2);
  exchange(est, { at: 0, offset: 1, up: 1, down: 1 });
  assert.notEqual(est.estimate(2), null);
  est.reset();
  assert.equal(est.estimate(2), null);
});

test('keeps at most `samples` exchanges', () => {
  const est = clock.createOffsetEstimator({ samples: 3 });
  for (let i = 0; i < 10; i += 1) exchange(est, { at: i * 10, offset: 0, up: 1, down: 1 });
  assert.equal(est.stats().samples, 3);
});
