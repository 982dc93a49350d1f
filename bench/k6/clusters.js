#!/usr/bin/env node
'use strict';
/**
 * When a k6 run's slow probes came: k6's per-sample output (`--out json=FILE`) of
 * bench/k6/ws-probes.js, cut into windows (250 ms), and the windows that held probes slower
 * than a limit (30 ms), with their time (UTC, to set beside the runtimes' own logs), probes, slow
 * probes and slowest. Slow probes spread over the whole run are a system near its capacity; a few
 * windows holding most of them are stalls, each to be found in one process's log at that time.
 *
 *   .tools/bin/k6 run -q --out json=run.json -e TWINS=1000 -e SECONDS=20 bench/k6/ws-probes.js
 *   node bench/k6/clusters.js run.json [--slow-ms 30] [--window-ms 250]
 */
const fs = require('node:fs');
const readline = require('node:readline');
const { parseArgs } = require('node:util');

/**
 * @param {Array<[number, number]>} points [time ms, round trip ms], any order
 * @param {{slowMs: number, windowMs: number}} o
 * @returns {{points: number, slow: number, windows: number, clusters: Array<{at: number, n: number, slow: number, max: number}>}}
 */
function clustersOf(points, o) {
  if (!points.length) return { points: 0, slow: 0, windows: 0, clusters: [] };
  let t0 = Infinity;
  for (const [t] of points) t0 = Math.min(t0, t);
  const windows = new Map();
  let slow = 0;
  for (const [t, ms] of points) {
    const k = Math.floor((t - t0) / o.windowMs);
    const w = windows.get(k) || { at: t0 + k * o.windowMs, n: 0, slow: 0, max: 0 };
    w.n += 1;
    if (ms > o.slowMs) { w.slow += 1; slow += 1; }
    w.max = Math.max(w.max, ms);
    windows.set(k, w);
  }
  const clusters = [...windows.values()].filter((w) => w.slow > 0).sort((a, b) => a.at - b.at);
  return { points: points.length, slow, windows: windows.size, clusters };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'slow-ms': { type: 'string', default: '30' }, 'window-ms': { type: 'string', default: '250' } },
  });
  if (positionals.length !== 1) {
    console.error('usage: node bench/k6/clusters.js run.json [--slow-ms 30] [--window-ms 250]');
    process.exit(2);
  }
  const o = { slowMs: Number(values['slow-ms']), windowMs: Number(values['window-ms']) };
  const points = [];
  const lines = readline.createInterface({ input: fs.createReadStream(positionals[0]) });
  for await (const line of lines) {
    if (!line.includes('"probe_rtt"') || !line.includes('"Point"')) continue;
    const j = JSON.parse(line);
    if (j.metric === 'probe_rtt') points.push([Date.parse(j.data.time), j.data.value]);
  }
  const r = clustersOf(points, o);
  const share = r.slow ? (100 * r.clusters.slice().sort((a, b) => b.slow - a.slow).slice(0, 5).reduce((s, w) => s + w.slow, 0)) / r.slow : 0;
  console.log(`${r.points} probes, ${r.slow} over ${o.slowMs} ms, in ${r.clusters.length} of ${r.windows} windows of ${o.windowMs} ms`
    + ` (the 5 worst windows hold ${share.toFixed(0)} % of them)`);
  for (const w of r.clusters) console.log(`${new Date(w.at).toISOString()}  probes ${w.n}  slow ${w.slow}  slowest ${w.max.toFixed(0)} ms`);
}

if (require.main === module) main().catch((err) => { console.error(err.message); process.exit(1); });

module.exports = { clustersOf };
