'use strict';
/** bench/k6/clusters.js: when a k6 run's slow probes came, from k6's per-sample JSON output. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { clustersOf } = require('../../../bench/k6/clusters');

const ROOT = path.join(__dirname, '..', '..', '..');

test('clustersOf: only windows with a probe over the limit, oldest first, with their probes and slowest', () => {
  const t = Date.parse('2026-11-29T00:00:00Z');
  const points = [[t + 900, 50], [t, 10], [t + 100, 31], [t + 300, 12], [t + 950, 80], [t + 1000, 5]];
  assert.deepEqual(clustersOf(points, { slowMs: 30, windowMs: 250 }), {
    points: 6, slow: 3, windows: 4,
    clusters: [{ at: t, n: 2, slow: 1, max: 31 }, { at: t + 750, n: 2, slow: 2, max: 80 }],
  });
  assert.equal(clustersOf([], { slowMs: 30, windowMs: 250 }).points, 0);
});

test('the command reads k6\'s JSON lines: probe_rtt points only, the clusters in UTC', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-clusters-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'run.json');
  const point = (metric, time, value) => JSON.stringify({ metric, type: 'Point', data: { time, value, tags: {} } });
  fs.writeFileSync(file, [
    JSON.stringify({ type: 'Metric', metric: 'probe_rtt', data: { type: 'trend' } }),
    point('probe_rtt', '2026-11-29T00:00:00.100Z', 12),
    point('probe_rtt', '2026-11-29T00:00:00.600Z', 95),
    point('probe_rtt_warmup', '2026-11-29T00:00:00.700Z', 400),
    point('ws_msgs_received', '2026-11-29T00:00:00.700Z', 1),
  ].join('\n'));
  const out = execFileSync(process.execPath, [path.join(ROOT, 'bench', 'k6', 'clusters.js'), file], { encoding: 'utf8' });
  assert.match(out, /^2 probes, 1 over 30 ms, in 1 of 2 windows of 250 ms/);
  assert.match(out, /2026-11-29T00:00:00\.600Z {2}probes 1 {2}slow 1 {2}slowest 95 ms/);
});
