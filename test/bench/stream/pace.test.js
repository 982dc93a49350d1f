'use strict';
/**
 * bench/stream/pace.js: the study's Algorithm 1 (sleep what is left of the period; a stream that
 * ran over carries the excess, and the next ones go without sleeping until it is made up), with a
 * timer's overshoot carried too, so the rate holds on average.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPacer } = require('../../../bench/stream/pace');

test('sleeps what is left of the period; an overrun is made up by the next streams', () => {
  const p = createPacer(40); // 25 ms
  assert.equal(p.next(5), 20);
  assert.equal(p.next(30), 0, 'ran over by 5 ms');
  assert.equal(p.behindMs, 5);
  assert.equal(p.next(10), 10, '25 − 10 − the 5 carried');
  assert.equal(p.behindMs, 0);
  assert.equal(p.next(60), 0);
  assert.equal(p.next(20), 0, 'still 35 + 20 − 25 = 30 behind');
  assert.equal(p.behindMs, 30);
  assert.equal(p.next(0), 0);
  assert.equal(p.next(0), 20, 'made up');
});

test('a sleep\'s overshoot is carried as the study\'s algorithm carries a slow stream', () => {
  const p = createPacer(10); // 100 ms
  assert.equal(p.next(10, 0), 90);
  assert.equal(p.next(10, 2), 88, 'the last sleep came 2 ms late');
  // Over many streams the streams' period averages the rate's even when every timer fires late.
  let t = 0;
  let sleep = 0;
  for (let i = 0; i < 1000; i++) {
    const late = 1.3;
    t += sleep + (i ? late : 0) + 4;
    sleep = p.next(4, i ? late : 0);
  }
  assert.ok(Math.abs(t / 1000 - 100) < 0.2, `${t / 1000} ms a stream`);
  assert.throws(() => createPacer(0), { code: 'E_BENCH_ARGS' });
});
