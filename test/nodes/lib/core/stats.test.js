'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { summarise, createWindow } = require('../../../../nodes/lib/core/stats');

test('summarise computes the study columns plus p95, p99 and jitter', () => {
  const s = summarise([10, 20, 30, 40, 50]);
  assert.equal(s.n, 5);
  assert.equal(s.mean, 30);
  assert.equal(s.median, 30);
  assert.equal(s.min, 10);
  assert.equal(s.max, 50);
  assert.equal(s.range, 40);
  assert.ok(Math.abs(s.sd - 15.811) < 0.001);
  assert.equal(s.jitter, 10);
  assert.ok(s.q1 <= s.median && s.median <= s.q3);
  assert.equal(s.iqr, s.q3 - s.q1);
  assert.ok(Math.abs(s.p99 - 49.6) < 1e-9, "p99 interpolates linearly (R-7, as Excel PERCENTILE.INC and numpy)");
});

test('summarise of nothing is n=0, of one sample has zero spread', () => {
  assert.deepEqual(summarise([]), { n: 0 });
  const one = summarise([7]);
  assert.equal(one.sd, 0);
  assert.equal(one.jitter, 0);
});

test('window keeps the most recent samples in order and counts them all', () => {
  const w = createWindow(3);
  for (const v of [1, 2, 3, 4, 5]) w.push(v);
  assert.deepEqual(w.values(), [3, 4, 5]);
  assert.equal(w.total, 5);
  assert.equal(w.summary().n, 3);
  assert.equal(w.summary().total, 5);
});

test('a window grows as samples come, keeps the last `size` in order, and brief() agrees with summary()', () => {
  const w = createWindow(50);
  assert.equal(w.brief().n, 0);
  const all = [];
  for (let i = 0; i < 137; i++) {
    const v = (i * 37) % 101; // not sorted, repeats
    w.push(v);
    all.push(v);
    if (i === 20 || i === 49 || i === 136) {
      const kept = all.slice(-50);
      assert.deepEqual(w.values(), kept, `after ${i + 1} samples`);
      const s = w.summary();
      const b = w.brief();
      assert.equal(b.n, kept.length);
      assert.equal(b.total, i + 1);
      assert.ok(Math.abs(b.mean - s.mean) < 1e-9, 'running mean = mean of what is kept');
      for (const k of ['median', 'p95', 'p99']) assert.equal(b[k], s[k], k);
    }
  }
  w.clear();
  assert.deepEqual(w.values(), []);
  assert.equal(w.brief().n, 0);
});
