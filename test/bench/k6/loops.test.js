'use strict';
/** bench/k6/loops.js: a runtime's event loop delay and collections, read from prom-client's own exposition. */
const test = require('node:test');
const assert = require('node:assert/strict');
const client = require('prom-client');
const { samples, figuresOf, describe } = require('../../../bench/k6/loops');

/** prom-client's text for a registry holding the process metrics the runtimes' /s7twin/metrics carry. */
async function exposition(gcs, lagMax, lagP99) {
  const reg = new client.Registry();
  const gc = new client.Histogram({ name: 'nodejs_gc_duration_seconds', help: 'gc', labelNames: ['kind'], buckets: [0.001, 0.01, 0.1, 1], registers: [reg] });
  for (const [kind, s] of gcs) gc.observe({ kind }, s);
  new client.Gauge({ name: 'nodejs_eventloop_lag_max_seconds', help: 'max', registers: [reg] }).set(lagMax);
  new client.Gauge({ name: 'nodejs_eventloop_lag_p99_seconds', help: 'p99', registers: [reg] }).set(lagP99);
  return reg.metrics();
}

test('samples: names, labels and values of an exposition; comments skipped', () => {
  assert.deepEqual(samples('# HELP x y\n# TYPE x gauge\nx 1.5\ny{kind="major",le="0.01"} 3\n'),
    [{ name: 'x', labels: {}, value: 1.5 }, { name: 'y', labels: { kind: 'major', le: '0.01' }, value: 3 }]);
});

test('figuresOf and describe: the loop delay in ms, and per kind the collections since the mark, those over 10 ms counted', async () => {
  const before = figuresOf(await exposition([['minor', 0.002], ['major', 0.02]], 0.012, 0.011));
  assert.equal(before.lagMaxMs, 12);
  assert.deepEqual(before.gc.major, { count: 1, sum: 0.02, upTo10ms: 0, over10ms: 1 });
  const now = figuresOf(await exposition([['minor', 0.002], ['minor', 0.003], ['minor', 0.015], ['major', 0.02], ['major', 0.005]], 0.0475, 0.0136));
  assert.equal(describe('cloud', now, before),
    'cloud: loop delay max 47.5 ms, p99 13.6 ms; GC minor 2 (18 ms, 1 over 10 ms), major 1 (5 ms, 0 over 10 ms)');
});
