'use strict';
/**
 * nodes/lib/stream/receiver.js: each block's place in its signal by the index of its first sample:
 * in order, a gap (samples lost, counted once), out of order (not taken), and values checked
 * against the signal when the receiver knows it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createStreamReceiver } = require('../../../../nodes/lib/stream/receiver');

const block = (sig, i, n, f = (k) => k) => ({ sig, i, values: Int32Array.from({ length: n }, (_, j) => f(i + j)) });

test('blocks in order, a gap, a late block and a repeat, per signal', () => {
  const rx = createStreamReceiver();
  assert.equal(rx.accept(block('a', 100, 10)), 'in-order', 'the first block sets the start');
  assert.equal(rx.accept(block('a', 110, 10)), 'in-order');
  assert.equal(rx.accept(block('b', 0, 5)), 'in-order', 'another signal on its own');
  assert.equal(rx.accept(block('a', 150, 10)), 'gap');
  assert.equal(rx.accept(block('a', 130, 10)), 'out-of-order', 'late: not taken');
  assert.equal(rx.accept(block('a', 150, 10)), 'out-of-order', 'a repeat');
  assert.equal(rx.accept(block('a', 160, 1)), 'in-order');
  assert.deepEqual(rx.counters, { blocks: 5, samples: 36, inOrder: 4, gaps: 1, lost: 30, outOfOrder: 2, wrong: 0 });
  assert.deepEqual(rx.signals(), { a: { next: 161 }, b: { next: 5 } });
});

test('samples that are not what the signal says are counted wrong', () => {
  const rx = createStreamReceiver({ expect: (k) => 2 * k });
  rx.accept(block('s', 0, 4, (k) => 2 * k));
  rx.accept(block('s', 4, 4, (k) => (k === 6 ? 0 : 2 * k)));
  assert.equal(rx.counters.wrong, 1);
});
