'use strict';
/**
 * The benchmark's fleet section (cloud instances sharing plants over Redis): `node bench/run.js
 * --fleet` runs it on a fleet of its own (system/fleet.js: redis-server, N cloud instances, M plants each with a virtual PLC and
 * an edge) and the report gets a fleet section (bench/lib/report.js). Four measurements:
 *
 * - backplane: probe round trips of one twin of plant1 on the instance holding plant1's edge
 *   (local) and on another instance (every frame crosses Redis twice), interleaved in blocks; the
 *   backplane's cost is the difference of the medians (target under 1 ms).
 * - load: per level of `twinsPerPlant`, that many probing twins on every plant at once, spread
 *   over the instances (twin k of a plant on instance k mod N): p50/p99, errors, throughput, and
 *   CPU and memory of every cloud instance, edge, PLC, Redis and the load generator
 *   (bench/lib/cost.js); the capacity model in docs/fleet.md is built from these.
 * - failover: the same load, and instance 1 killed (-9) while one twin per plant streams commands
 *   with the fault suite's bookkeeping (bench/lib/fleet-faults.js): time until commands are
 *   acknowledged again, unanswered, applied late, undone; probes lost by the load twins.
 * - watchers: watch-only twins (viewer token) of plant1 spread over the instances while a driver
 *   changes an input every `stateEveryMs`: the delay from the edge sending a state (its `ts`,
 *   same machine clock) to each watcher receiving it, per level; `reached` is the largest level
 *   whose p99 is under 100 ms with every state received (levels go on past one that misses: one
 *   stall of a shared machine costs a level its p99; they stop at one far off).
 */
const WebSocket = require('ws');
const { startFleet } = require('../../system/fleet');
const { runInstanceKill } = require('./fleet-faults');
const { runLoad } = require('./load');
const { createCostMeter } = require('./cost');
const { createHist } = require('./hist');
const { createTransport } = require('../../twin/transports/ws');

const DEFAULTS = {
  instances: 2,
  scanMs: 10,
  plants: 2,
  backplaneProbes: 1000, // per placement (local, remote)
  backplaneBlock: 100,
  probeThink: { thinkMs: 10, thinkWidthMs: 10 },
  twinsPerPlant: [50, 200], // load levels; failover runs under the first
  loadSeconds: 10,
  thinkMs: 500,
  // Each instance's twin endpoint takes 1000 peers (its Max peers setting): two instances, at most
  // 1999 watchers beside the driver.
  watchers: [50, 200, 500, 1000, 1500, 1999],
  redisFloorSamples: 1000,
  watchSeconds: 8,
  stateEveryMs: 100,
  watchP99Ms: 100, // the target: a level "reaches" its watchers when p99 stays under this
  connectBatch: 50,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const short = () => Math.random().toString(36).slice(2, 7);

/** Merge load results (one per plant) into one: counts summed, histograms merged. */
function mergeLoads(list) {
  const hist = createHist();
  const out = { users: 0, sent: 0, ok: 0, timeouts: 0, wrong: 0, errors: 0, warmup: 0, connectErrors: 0, late: 0, throughput: 0 };
  for (const r of list) {
    for (const k of Object.keys(out)) out[k] += r[k] || 0;
    if (r.hist) hist.add(r.hist);
  }
  const attempts = out.ok + out.warmup + out.errors;
  out.errorPct = attempts ? (100 * out.errors) / attempts : 0;
  out.summary = hist.summary();
  return out;
}

/** Strip what the report does not keep (histograms, raw samples). */
const lean = (r) => { const { hist, samples, ...rest } = r; return rest; };

/** Probing twins of every plant at once, twin k on instance k mod N. */
async function loadAll(fleet, o, users, durationMs) {
  const per = await Promise.all(fleet.plants.map((plant) => runLoad({
    protocol: 'ws', users, durationMs, thinkMs: o.thinkMs, slotBase: 1,
    makeTransport: (k) => createTransport(fleet.twin(plant, k % fleet.clouds.length, { id: `${plant.slice(-2)}${k}x${short()}` })),
  }).then((r) => ({ plant, ...r }))));
  return { twinsPerPlant: users, perPlant: per.map((r) => ({ plant: r.plant, ...lean(r) })), total: lean(mergeLoads(per)) };
}

/**
 * Watch-only twins of `plant`: raw WebSocket viewers (the load generator would cost more than the
 * fan-out under test), each timing every state frame from its `ts`.
 */
async function runWatchers(fleet, plant, n, o) {
  const hist = createHist();
  const socks = [];
  let connectErrors = 0;
  let frames = 0;
  let measuring = false;
  const urls = fleet.clouds.map((_, i) => `${fleet.viewer(plant, i).url.split(',')[0]}?plant=${encodeURIComponent(plant)}`);
  const token = fleet.viewer(plant, 0).token;
  // The driver first: a twin of the plant toggling an input (the PLC echoes inputs in its state).
  const driver = createTransport(fleet.twin(plant, 0, { id: `drv${short()}` }));
  let timer = null;
  try {
    await driver.connect();
    for (let k = 0; k < n; k += o.connectBatch) {
      await Promise.all(Array.from({ length: Math.min(o.connectBatch, n - k) }, (_, j) => new Promise((resolve) => {
        const i = (k + j + 1) % urls.length; // the driver's instance gets one fewer
        const ws = new WebSocket(urls[i], { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
        socks.push(ws);
        ws.on('message', (data) => {
          if (!measuring) return;
          const at = Date.now();
          let env;
          try { env = JSON.parse(data); } catch { return; }
          if (env.k !== 'state' || typeof env.ts !== 'number') return;
          frames += 1;
          hist.record(Math.max(0, at - env.ts));
        });
        ws.once('open', resolve);
        ws.once('error', () => { connectErrors += 1; resolve(); });
      })));
    }
    let v = 0;
    timer = setInterval(() => { v ^= 1; driver.send({ dmg: v }); }, o.stateEveryMs);
    await sleep(1000); // every watcher has its snap and the stream runs
    measuring = true;
    const t0 = Date.now();
    await sleep(o.watchSeconds * 1000);
    measuring = false;
    const seconds = (Date.now() - t0) / 1000;
    const open = socks.filter((s) => s.readyState === WebSocket.OPEN).length;
    return {
      watchers: n, connected: n - connectErrors, openAtEnd: open, connectErrors, frames,
      framesPerWatcherPerS: n ? frames / n / seconds : 0, statesPerS: 1000 / o.stateEveryMs, summary: hist.summary(),
    };
  } finally {
    clearInterval(timer);
    await driver.close();
    await Promise.all(socks.map((s) => new Promise((r) => {
      if (s.readyState === WebSocket.CLOSED) { r(); return; }
      s.once('close', r);
      s.terminate();
    })));
  }
}

/**
 * Redis's own floor on this machine: a PUBLISH from one connection until a second connection,
 * subscribed, has it (both in this process). A request and its answer crossing the backplane pay
 * this twice, plus a wake-up of each instance.
 */
async function redisFloor(url, n) {
  const Redis = require('ioredis');
  const pub = new Redis(url, { lazyConnect: true });
  const sub = new Redis(url, { lazyConnect: true });
  pub.on('error', () => {});
  sub.on('error', () => {});
  try {
    await Promise.all([pub.connect(), sub.connect()]);
    await sub.subscribe('s7twin:bench:floor');
    const hist = createHist();
    let got = null;
    sub.on('message', () => { if (got) { const r = got; got = null; r(); } });
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await new Promise((resolve) => { got = resolve; pub.publish('s7twin:bench:floor', String(i)); });
      if (i >= 10) hist.record(performance.now() - t0); // the first few warm up the connections
      await sleep(2);
    }
    return hist.summary();
  } finally {
    pub.disconnect();
    sub.disconnect();
  }
}

/**
 * Run the fleet section.
 * @param {object} [opts] DEFAULTS overrides; `log(line)`; `dir` for the PLCs' input logs
 * @returns {Promise<object>} the report's `fleet` entry
 */
async function runFleetBench(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const log = o.log || (() => {});
  const out = { options: { ...o, log: undefined, dir: undefined }, errors: [] };
  log(`fleet: starting redis-server, ${o.instances} cloud instances, ${o.plants} plants`);
  const fleet = await startFleet({ instances: o.instances, plants: o.plants, scanMs: o.scanMs, inputLogs: true, dir: o.dir, log });
  const meter = () => createCostMeter({ ...fleet.pids, load: process.pid });
  try {
    out.instances = o.instances;
    out.plants = fleet.plants;
    // The paths are up once a probe goes through from each instance.
    for (let i = 0; i < o.instances; i++) {
      await runLoad({
        protocol: 'ws', users: 1, probesPerUser: 3, ...o.probeThink, slotBase: 1,
        makeTransport: () => createTransport(fleet.twin('plant1', i, { id: `w${i}x${short()}` })),
      });
    }

    // 1. What the backplane adds: plant1's edge is on instance 1 (index 0).
    const placements = { local: 0, remote: 1 % o.instances };
    const acc = { local: createHist(), remote: createHist() };
    const counts = { local: { ok: 0, errors: 0, timeouts: 0 }, remote: { ok: 0, errors: 0, timeouts: 0 } };
    for (let got = 0, b = 0; got < o.backplaneProbes; b++) {
      const n = Math.min(o.backplaneBlock, o.backplaneProbes - got);
      for (const where of (b % 2 ? ['remote', 'local'] : ['local', 'remote'])) {
        log(`fleet: backplane probes, twin on the ${where} instance (${got + n}/${o.backplaneProbes})`);
        const r = await runLoad({
          protocol: 'ws', users: 1, probesPerUser: n, ...o.probeThink, slotBase: 1, warmupPerUser: b === 0 ? 3 : 0,
          makeTransport: () => createTransport(fleet.twin('plant1', placements[where], { id: `bp${where[0]}${short()}` })),
        });
        acc[where].add(r.hist);
        for (const k of Object.keys(counts[where])) counts[where][k] += r[k] || 0;
      }
      got += n;
    }
    const local = acc.local.summary();
    const remote = acc.remote.summary();
    log(`fleet: Redis publish → subscriber floor (${o.redisFloorSamples})`);
    const floor = await redisFloor(fleet.redis.url, o.redisFloorSamples);
    out.backplane = {
      redisFloor: floor,
      local: { ...counts.local, summary: local },
      remote: { ...counts.remote, summary: remote },
      addedMedianMs: remote.median - local.median,
      addedP99Ms: remote.p99 - local.p99,
    };

    // 2. Load on every plant at once, level by level.
    let m;
    out.loads = [];
    for (const users of o.twinsPerPlant) {
      log(`fleet: load, ${users} twins per plant on ${o.plants} plants (${o.loadSeconds} s)`);
      m = meter();
      m.start();
      const r = await loadAll(fleet, o, users, o.loadSeconds * 1000);
      r.cost = m.end();
      m.stop();
      out.loads.push(r);
    }

    // 3. Failover under that load: instance 1 killed while a twin per plant streams commands.
    log('fleet: failover, instance 1 killed under load');
    const killAt = Date.now();
    const [kill, loadDuring] = await Promise.all([
      runInstanceKill(fleet, {
        twins: fleet.plants.map((plant, k) => ({ id: `f${k + 1}`, plant, instance: (k + 1) % o.instances })),
        kill: 0,
        log,
      }),
      loadAll(fleet, o, o.twinsPerPlant[0], 15000),
    ]);
    out.failover = {
      killed: 'cloud1',
      twins: kill.map((r) => ({
        id: r.id, sent: r.sent, answers: r.answers, unanswered: r.unanswered, duplicates: r.duplicates, appliedLate: r.appliedLate,
        appliedRefused: r.appliedRefused, wentBack: r.wentBack, finalOk: r.finalOk, detectedMs: r.detectedMs, recoveryMs: r.recoveryMs,
        failovers: r.failovers,
      })),
      recoveryMs: Math.max(...kill.map((r) => (r.recoveryMs === null ? Infinity : r.recoveryMs))),
      load: loadDuring,
      tookMs: Date.now() - killAt,
    };
    log('fleet: restarting instance 1');
    await fleet.restartCloud(0);
    await runLoad({
      protocol: 'ws', users: 1, probesPerUser: 3, ...o.probeThink, slotBase: 1,
      makeTransport: () => createTransport(fleet.twin('plant1', 0, { id: `r0x${short()}` })),
    });

    // 4. Watch-only twins of one plant.
    out.watchers = { plant: 'plant1', targetP99Ms: o.watchP99Ms, levels: [], reached: 0 };
    for (const n of o.watchers) {
      log(`fleet: ${n} watch-only twins of plant1 (${o.watchSeconds} s)`);
      m = meter();
      m.start();
      let r;
      try {
        r = await runWatchers(fleet, 'plant1', n, o);
      } catch (err) {
        r = {
          watchers: n, error: `${err.code || ''} ${err.message.split('\n')[0]}`, connected: 0, connectErrors: n, frames: 0,
          framesPerWatcherPerS: 0, statesPerS: 1000 / o.stateEveryMs, summary: { n: 0 },
        };
      }
      r.cost = m.end();
      m.stop();
      r.held = r.connectErrors === 0 && r.summary.n > 0 && r.summary.p99 < o.watchP99Ms && r.framesPerWatcherPerS > 0.9 * r.statesPerS;
      out.watchers.levels.push(r);
      if (r.held) out.watchers.reached = Math.max(out.watchers.reached, n);
      // One stall of the (shared) machine can cost a level its p99; only a level far off stops the climb.
      if (r.connectErrors > n / 10 || r.framesPerWatcherPerS < 0.5 * r.statesPerS || r.summary.p99 > 5 * o.watchP99Ms) break;
    }
  } catch (err) {
    out.errors.push(`${err.code || ''} ${err.message.split('\n')[0]}`);
    log(err.stack || err.message);
  } finally {
    await fleet.stop();
  }
  return out;
}

module.exports = { runFleetBench, mergeLoads, DEFAULTS };
