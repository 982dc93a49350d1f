'use strict';
/** The browser twin's rolling round-trip window (no canvas needed). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSeries, createChart, yTop } = require('../../../twin/browser/chart');

test('a series keeps the last spanMs of samples and at most maxPoints, counting every one', () => {
  const s = createSeries({ spanMs: 1000, maxPoints: 3 });
  s.push(0, 5);
  s.push(500, 6);
  s.push(900, 7);
  assert.deepEqual(s.values(), [5, 6, 7]);
  s.push(950, 8);
  assert.deepEqual(s.values(), [6, 7, 8], 'over maxPoints: the oldest goes');
  s.prune(1600);
  assert.deepEqual(s.values(), [7, 8], 'older than 1600 - 1000 ms: gone');
  s.prune(5000);
  assert.equal(s.size, 0);
  assert.equal(s.last(), null);
  assert.equal(s.total, 4);
});

test('chart statistics per variable and overall, over what the window holds', () => {
  const c = createChart(['c1', 'p1bw'], { spanMs: 10000 });
  c.push('c1', 0, 10);
  c.push('p1bw', 1, 20);
  c.push('p1bw', 2, 30);
  c.push('nope', 3, 99); // not a timed variable: ignored
  const st = c.stats();
  assert.equal(st.c1.n, 1);
  assert.equal(st.c1.last, 10);
  assert.equal(st.p1bw.mean, 25);
  assert.equal(st.overall.n, 3);
  assert.equal(st.overall.mean, 20);
  assert.equal(st.overall.total, 3);
  c.prune(10002);
  assert.equal(c.stats().overall.n, 1, 'only the sample at t=2 is within 10 s of 10002');
  assert.equal(c.stats().overall.total, 3, 'the total still counts them all');
});

test('the y axis always shows the 100 ms line and the largest sample', () => {
  assert.equal(yTop([]), 125);
  assert.equal(yTop([3, 8, 12]), 125);
  assert.equal(yTop([180]), 200);
  assert.equal(yTop([950]), 1500);
  assert.ok(yTop([4000]) >= 4000);
});

test('a trend\'s range: the window\'s values and the one held before it, with room for a flat line', () => {
  const { trendRange } = require('../../../twin/browser/chart');
  assert.equal(trendRange([], null), null, 'nothing seen: nothing drawn');
  assert.deepEqual(trendRange([[0, 10], [1, 30]], 20), { lo: 10, hi: 30 });
  assert.deepEqual(trendRange([], 5), { lo: 4.75, hi: 5.25 }, 'a value that has not changed in the window still shows');
  assert.deepEqual(trendRange([[0, 0]], null), { lo: -1, hi: 1 });
});
