'use strict';
/** nodes/lib/timer/samples.js: an overall window, one per variable, the least recently timed evicted. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSamples, variableLine } = require('../../../../nodes/lib/timer/samples');

const setup = (o = {}) => {
  const counters = { evicted: 0 };
  return { s: createSamples({ windowSize: 100, variableWindow: 10, maxVariables: 2, counters, ...o }), counters };
};

test('samples reach the overall window and their variable\'s line', () => {
  const { s } = setup();
  s.add('a', 1);
  s.add('a', 3);
  s.add('b', 10);
  assert.equal(s.summary().total, 3);
  assert.equal(s.brief().total, 3);
  const lines = s.lines();
  assert.deepEqual(Object.keys(lines), ['a', 'b']);
  assert.equal(lines.a.n, 2);
  assert.equal(lines.a.mean, 2);
  assert.equal(lines.b.median, 10);
});

test('past maxVariables the least recently timed variable goes; its samples stay overall', () => {
  const { s, counters } = setup();
  s.add('a', 1);
  s.add('b', 2);
  s.add('a', 3); // a is now the most recent
  s.add('c', 4);
  assert.deepEqual(Object.keys(s.lines()), ['a', 'c']);
  assert.equal(counters.evicted, 1);
  assert.equal(s.summary().total, 4);
});

test('linesAsync gives the same lines as lines, in slices', async () => {
  const { s } = setup({ maxVariables: 500 });
  for (let i = 0; i < 300; i++) s.add(`v${i}`, i);
  assert.deepEqual(await s.linesAsync(0), s.lines());
});

test('variableLine rounds to 3 decimals', () => {
  const line = variableLine({ brief: () => ({ total: 2, mean: 1.23456, median: 1, p95: 2.0004, p99: 2.0006 }) });
  assert.deepEqual(line, { n: 2, mean: 1.235, median: 1, p95: 2, p99: 2.001 });
});
