'use strict';
/**
 * Where the time goes under load: the cost meter reads real /proc figures of real processes and
 * of the machine, and the report turns a missed load target into a line that names them.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createCostMeter, readMachine } = require('../../bench/lib/cost');
const { loadTimeLines, TARGETS } = require('../../bench/lib/report');

test('the cost meter measures this process, the machine, and skips a missing pid', async () => {
  const before = readMachine();
  assert.ok(before && before.cores >= 1 && before.total > before.busy, 'machine CPU from /proc/stat');
  const meter = createCostMeter({ self: process.pid, absent: null });
  meter.start();
  const end = Date.now() + 300;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1); // keep one core busy
  const c = meter.end();
  meter.stop();
  assert.ok(x > 0);
  assert.ok(c.self.cpuPct > 0, `this process used CPU: ${c.self.cpuPct}`);
  assert.equal(typeof c.self.waitPct, 'number', 'run-queue wait read from /proc/<pid>/schedstat');
  assert.ok(c.self.waitPct >= 0 && c.self.waitPct <= 100, `run-queue wait share: ${c.self.waitPct}`);
  assert.ok(c.self.rssPeakMB > 0);
  assert.equal(c.absent, undefined, 'a process that does not run is not reported');
  assert.ok(c.machine.cpuPct > 0 && c.machine.cpuPct <= 100, `machine busy share ${c.machine.cpuPct}`);
  assert.equal(c.machine.cores, before.cores);
});

function level(p99, mean, cost) {
  return { summary: { n: 100, p99, mean }, cost };
}

test('a WebSocket load level that misses the p99 target is explained in "where the time goes"', () => {
  const cost = {
    cloud: { cpuPct: 51, waitPct: 12 }, edge: { cpuPct: 30, waitPct: 7 }, plc: { cpuPct: 8 }, toxiproxy: { cpuPct: 40 }, load: { cpuPct: 60 },
    machine: { cpuPct: 94, cores: 2 },
  };
  const s = {
    machine: { cpus: 2 },
    profiles: {
      local: { load: { ws: { 1000: level(45, 20, {}) } } },
      wan: { floor: { mean: 30.7 }, load: { ws: { 500: level(TARGETS.loadP99 - 1, 45, cost), 1000: level(237, 80, cost) } } },
    },
  };
  const lines = loadTimeLines(s);
  assert.equal(lines.length, 1, 'only the level that missed the target');
  const [l] = lines;
  assert.match(l, /wan WebSocket–S7 at 1000 twins: p99 237 ms/);
  assert.match(l, /network floor 30\.7 ms/);
  assert.match(l, /the same level on loopback: p99 45 ms/);
  assert.match(l, /Toxiproxy 40 %/);
  assert.match(l, /load generator 60 %/);
  assert.match(l, /94 % busy over its 2 cores \(saturated/);
  assert.match(l, /waiting for a core \(% of the level\): cloud 12 %, edge 7 %/);

  s.profiles.wan.load.ws[1000] = level(80, 40, cost);
  assert.deepEqual(loadTimeLines(s), [], 'nothing to explain when the target holds');
});
