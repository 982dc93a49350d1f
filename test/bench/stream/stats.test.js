'use strict';
/**
 * bench/stream/stats.js: the stream benchmark's figures in the study's terms: each frame's
 * latency (receipt − sending), jitter as the mean and SD of |l(i+1) − l(i)| (its equation 2),
 * each sample's latency from its PLC time (every sample counted once, newer ones waiting less),
 * and throughput over the window.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createStreamStats, jitterOf, SAMPLE_POINTS } = require('../../../bench/stream/stats');

test('jitter is the mean absolute difference of consecutive latencies, with its SD', () => {
  const j = jitterOf([10, 12, 9, 9, 14]); // differences 2, 3, 0, 5
  assert.equal(j.jitter, 2.5);
  assert.ok(Math.abs(j.jitterSd - Math.sqrt(((0.5 ** 2) + (0.5 ** 2) + (2.5 ** 2) + (2.5 ** 2)) / 3)) < 1e-9);
  assert.deepEqual(jitterOf([4]), { jitter: null, jitterSd: null });
});

test('frame latency and jitter, samples a second over the window', () => {
  const s = createStreamStats();
  s.add({ ts: 1000, t: 990, hz: 1000, n: 100 }, 1004);
  s.add({ ts: 1100, t: 1090, hz: 1000, n: 100 }, 1106);
  s.add({ ts: 1200, t: 1190, hz: 1000, n: 100 }, 1203);
  const r = s.summary(1000);
  assert.equal(r.frames, 3);
  assert.equal(r.samples, 300);
  assert.equal(r.samplesPerS, 300);
  assert.equal(r.latency.mean, (4 + 6 + 3) / 3);
  assert.equal(r.jitter, (2 + 3) / 2);
  assert.equal(r.perSample, undefined, 'no per-sample figures for the generator\'s frames');
  assert.equal(r.spanMs, 199);
});

test('each sample\'s latency from its PLC time: all n counted, spread from the oldest to the newest', () => {
  const s = createStreamStats({ perSample: true });
  // 1,000 samples at 10 kHz taken from t = 0 (the last at 99.9 ms), received at 150 ms.
  s.add({ ts: 120, t: 0, hz: 10000, n: 1000 }, 150);
  const r = s.summary(1000);
  assert.equal(r.perSample.n, 1000, `every sample once (in ${SAMPLE_POINTS} points)`);
  assert.ok(Math.abs(r.perSample.mean - (150 - 99.9 / 2)) < 0.2, `mean ${r.perSample.mean}`);
  assert.ok(r.perSample.max <= 150.1 && r.perSample.max > 148, `the oldest waited about 150 ms (${r.perSample.max})`);
  assert.ok(r.perSample.min >= 50 && r.perSample.min < 52, `the newest about 50 (${r.perSample.min})`);
  assert.equal(r.plcPart.mean, 120, 'the oldest sample\'s wait before the frame left the edge');
  const few = createStreamStats({ perSample: true });
  few.add({ ts: 5, t: 0, hz: 1000, n: 3 }, 10);
  assert.equal(few.summary(1000).perSample.n, 3);
});
