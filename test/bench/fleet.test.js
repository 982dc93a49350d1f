'use strict';
/**
 * The benchmark's fleet section (cloud instances sharing plants over Redis): bench/lib/report.js fleetLines() renders a made-up
 * fleet result as the report shows it; bench/lib/fleet-bench.js mergeLoads() adds up the plants'
 * load results; bench/run.js checks the fleet options. (The section itself runs in
 * `node bench/run.js --fleet`; the fleet it runs on is tested in test/e2e/fleet.test.js.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { fleetLines } = require('../../bench/lib/report');
const { mergeLoads } = require('../../bench/lib/fleet-bench');
const { createHist } = require('../../bench/lib/hist');
const { runBench, parseCli } = require('../../bench/run');

const sum = (median, p99, n = 100) => ({ n, median, p95: p99, p99, mean: median, max: p99 });
const cost = (cloud) => ({
  redis: { cpuPct: 1.5, rssMeanMB: 12, rssPeakMB: 13 },
  cloud1: { cpuPct: cloud, rssMeanMB: 200, rssPeakMB: 210 },
  cloud2: { cpuPct: cloud + 1, rssMeanMB: 190, rssPeakMB: 195 },
  'edge-plant1': { cpuPct: 10 }, 'edge-plant2': { cpuPct: 12 }, 'plc-plant1': { cpuPct: 5 }, load: { cpuPct: 7 }, machine: { cpuPct: 60, cores: 2 },
});
const load = (twins, p99, c) => ({
  twinsPerPlant: twins,
  perPlant: [
    { plant: 'plant1', users: twins, errorPct: 0, summary: sum(6, p99), throughput: 2 * twins },
    { plant: 'plant2', users: twins, errorPct: 0.5, summary: sum(7, p99), throughput: 2 * twins },
  ],
  total: { users: 2 * twins, errors: 0, errorPct: 0.25, summary: sum(6.5, p99, 200), throughput: 4 * twins },
  cost: cost(c),
});
const FIXTURE = {
  options: { backplaneBlock: 100, twinsPerPlant: [50, 200], thinkMs: 500, loadSeconds: 10, stateEveryMs: 100, scanMs: 10 },
  errors: [],
  instances: 2,
  plants: ['plant1', 'plant2'],
  backplane: {
    local: { ok: 1000, errors: 0, timeouts: 0, summary: sum(5.5, 12) }, remote: { ok: 1000, errors: 1, timeouts: 0, summary: sum(6.12, 13.4) },
    redisFloor: sum(0.21, 0.9, 990), addedMedianMs: 0.62, addedP99Ms: 1.4,
  },
  loads: [load(50, 20, 10), load(200, 45, 30)],
  failover: {
    killed: 'cloud1',
    twins: [
      {
        id: 'f1', sent: 170, answers: { ack: 80, E_EDGE_DOWN: 90 }, unanswered: 0, duplicates: 0, appliedLate: 0, appliedRefused: 0, wentBack: 0,
        finalOk: true, detectedMs: 25, recoveryMs: 4200, failovers: 0,
      },
      {
        id: 'f2', sent: 175, answers: { ack: 174, E_OUTCOME_UNKNOWN: 1 }, unanswered: 0, duplicates: 0, appliedLate: 0, appliedRefused: 0, wentBack: 0,
        finalOk: true, detectedMs: null, recoveryMs: 110, failovers: 1,
      },
    ],
    recoveryMs: 4200,
    load: load(50, 30, 10),
  },
  watchers: {
    plant: 'plant1', targetP99Ms: 100, reached: 500,
    levels: [
      { watchers: 50, connected: 50, frames: 4000, framesPerWatcherPerS: 10, statesPerS: 10, summary: sum(2, 6), cost: cost(5), held: true },
      { watchers: 200, connected: 200, frames: 16000, framesPerWatcherPerS: 10, statesPerS: 10, summary: sum(5, 106), cost: cost(20), held: false },
      { watchers: 500, connected: 500, frames: 40000, framesPerWatcherPerS: 10, statesPerS: 10, summary: sum(9, 60), cost: cost(40), held: true },
      { watchers: 1000, connected: 1000, frames: 60000, framesPerWatcherPerS: 7.5, statesPerS: 10, summary: sum(80, 240), cost: cost(90), held: false },
    ],
  },
};

test('fleet section: backplane cost against its target, load levels with CPU per process, failover, watchers reached', () => {
  const md = fleetLines(FIXTURE).join('\n');
  assert.match(md, /^## Fleet$/m);
  assert.match(md, /2 cloud instances .* 2 plants \(plant1, plant2\)/);
  assert.match(md, /\| the edge's instance \| 100 \| 0 \| 5\.50 \| 12 \| 12 \| 5\.50 \|/);
  assert.match(md, /\| another instance \| 100 \| 1 \| 6\.12 \| 13\.40 \| 13\.40 \| 6\.12 \|/);
  assert.match(md, /Added by the backplane: \*\*0\.62 ms at the median\*\* \(target under 1 ms: met\), 1\.40 ms at p99/);
  assert.match(md, /Redis's own floor on this machine, .* \(990 times\): p50 0\.21 ms, p99 0\.90 ms/);
  // One row per load level: twins, errors, p50/p99, throughput, each instance's CPU, Redis, edges summed, PLCs, generator, machine.
  assert.match(md, /\| 200 \| 400 \| 200 \| 0\.3 % \| 6\.5 \| 45 \| 800 \| 30 \| 31 \| 1\.5 \| 22 \| 5 \| 7 \| 60 \|/);
  assert.match(md, /\| plant2 \| 200 \| 100 \| 0\.5 % \| 7 \| 45 \| 400 \|/);
  assert.match(md, /\| cloud1 \| 30 \| 200 \| 210 \|/);
  assert.match(md, /\| f1 \| 170 \| ack 80, E_EDGE_DOWN 90 \| 0 \| 0 \| 0 \| 0 \| 0 \| yes \| 25 \| 4200 \|/);
  assert.match(md, /\| f2 \| .* \| yes \| – \| 110 \|/);
  assert.match(md, /Failover time \(the slowest twin acknowledged again\): \*\*4200 ms\*\*/);
  assert.match(md, /\| 1000 \| 1000 \| 60000 \| 7\.5 \| 80 \| 240 \| 240 \| \*\*no\*\* \| 90 \+ 91 \| 1\.5 \| 7 \| 60 \|/);
  assert.match(md, /\| 200 \| 200 \| 16000 \| 10 \| 5 \| 106 \| 106 \| \*\*no\*\* \|/, 'a level that missed, below one that held');
  assert.match(md, /reaches \*\*500 watching twins\*\* with p99 under 100 ms\./);
});

test('fleet section: a target missed is bold, and a fleet that did not start says why', () => {
  const missed = { ...FIXTURE, backplane: { ...FIXTURE.backplane, addedMedianMs: 1.25 } };
  assert.match(fleetLines(missed).join('\n'), /\*\*1\.25 ms at the median\*\* \(target under 1 ms: \*\*not met\*\*\)/);
  assert.match(fleetLines({ errors: ['E_REDIS_MISSING redis-server not found'] }).join('\n'), /did not run: E_REDIS_MISSING redis-server not found/);
});

test('mergeLoads adds up counts and merges the plants\' histograms', () => {
  const h = (vals) => { const x = createHist(); for (const v of vals) x.record(v); return x; };
  const m = mergeLoads([
    { users: 2, sent: 10, ok: 8, errors: 1, warmup: 1, throughput: 4, hist: h([1, 2, 3]) },
    { users: 3, sent: 10, ok: 9, errors: 0, warmup: 1, throughput: 5, hist: h([4, 5]) },
  ]);
  assert.equal(m.users, 5);
  assert.equal(m.ok, 17);
  assert.equal(m.throughput, 9);
  assert.equal(m.summary.n, 5);
  assert.ok(Math.abs(m.summary.median - 3) < 0.01);
  assert.ok(Math.abs(m.errorPct - 100 / 20) < 1e-9);
});

test('bench --fleet options: levels parsed, bad ones refused before anything starts', async () => {
  const cli = parseCli(['--fleet-twins', '20,100', '--fleet-watchers', '10,50']);
  assert.equal(cli.fleet, true, 'a fleet option implies --fleet');
  assert.deepEqual(cli.fleetTwins, [20, 100]);
  assert.deepEqual(cli.fleetWatchers, [10, 50]);
  assert.equal(parseCli([]).fleet, false);
  await assert.rejects(runBench({ fleet: true, fleetTwins: [0], profiles: [], log: () => {} }), { code: 'E_BENCH_ARGS', message: /whole numbers above 0/ });
  await assert.rejects(runBench({ fleet: true, fleetTwins: [1200], profiles: [], log: () => {} }), { code: 'E_BENCH_ARGS', message: /at most 1000 per plant/ });
});
