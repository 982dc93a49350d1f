'use strict';
/**
 * The runs of the high-frequency stream benchmark (bench/stream.js is its command line):
 *
 * 1. what S7 carries: the virtual PLC sampling at each of `ceilingRates` and the edge reading its
 *    ring over S7 and nothing else, a few seconds a rate: every rate up to the first one not read
 *    whole is what a PLC-sourced stream carries on this machine, the highest of them its ceiling
 *    (`ceilingOf`; the report says it by the same rule);
 * 2. per network profile and link transport, one system (bench/stream/system.js), and on it
 *    - the PLC-sourced stream at each of `plcRates`: samples PLC → S7 → edge → link → cloud;
 *    - the study's Table 2 grid: streams of `kb` KB `rate` times a second from the edge's
 *      generator (the study's Algorithm 1), 1, 4 and 8 MB/s;
 *    each cell a warm-up, then a measured window (the cloud's figures, bench/stream/stats.js,
 *    and the CPU and memory of every process, bench/lib/cost.js), then a drain.
 *
 * Transports run one after the other, in a system of their own, so one's broker never shares the
 * machine with another's run.
 */
const { startPlc } = require('../../system/plc');
const { layoutFor } = require('../../plc/signal');
const { createCostMeter } = require('../lib/cost');
const { startStreamSystem, TRANSPORTS } = require('./system');

/** The study's Table 2: throughput (MB/s), stream size (KB of Int32 points), streams a second, sampling frequency (Hz). */
const GRID = [
  { mbps: 1, kb: 25, rate: 40, hz: 250000 }, { mbps: 1, kb: 50, rate: 20, hz: 250000 }, { mbps: 1, kb: 100, rate: 10, hz: 250000 },
  { mbps: 4, kb: 100, rate: 40, hz: 1000000 }, { mbps: 4, kb: 200, rate: 20, hz: 1000000 }, { mbps: 4, kb: 400, rate: 10, hz: 1000000 },
  { mbps: 8, kb: 200, rate: 40, hz: 2000000 }, { mbps: 8, kb: 400, rate: 20, hz: 2000000 }, { mbps: 8, kb: 800, rate: 10, hz: 2000000 },
];

const DEFAULTS = {
  transports: Object.keys(TRANSPORTS),
  profiles: ['local', 'wan'],
  seconds: 10, // measured per cell (the study: 30)
  warmupS: 2,
  drainMs: 10000, // the longest a cell waits for what is still on its way after the edge stops
  plcRates: [1000, 10000, 'ceiling'], // 'ceiling': the S7 ceiling (ceilingOf: the last rate before the first not read whole)
  ceilingRates: [1000, 10000, 50000, 100000, 200000, 300000, 400000, 500000, 600000, 750000, 1000000],
  ceilingSeconds: 5,
  scanMs: 10,
  grid: GRID.map((g) => `${g.kb}x${g.rate}`),
  scale: 1, // stream sizes × this (a machine that cannot hold the study's rates runs them smaller, and says so)
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The virtual PLC with its signal at `rateHz`, in a process of its own. */
function signalPlc(rateHz, scanMs) {
  return startPlc({ scanMs, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, signal: { rateHz } });
}

/**
 * Wait until the cloud has what the edge sent (its receiver's next index reached the edge's last),
 * nothing more arrives for a second, or drainMs passed.
 */
async function drain(sys, sig, lastIndex, drainMs) {
  const end = Date.now() + drainMs;
  let seen = -1;
  let still = Date.now();
  for (;;) {
    const s = (await sys.cloudCmd({ cmd: 'status' }, 10000)).status || {};
    const next = s.next && s.next[sig] !== undefined ? s.next[sig] : 0;
    if (next >= lastIndex || Date.now() > end) return next;
    if (next !== seen) { seen = next; still = Date.now(); } else if (Date.now() - still > 1000) return next;
    await sleep(100);
  }
}

/**
 * One measured cell: the edge's command running for warm-up + window, the cloud's window and the
 * cost meter over the window, then the drain and the cloud's report.
 * @returns {Promise<object>} {edge, cloud, cost, tailLost}
 */
async function measure(sys, cmd, o, pids) {
  const total = o.warmupS + o.seconds;
  const edgeDone = sys.edgeCmd({ ...cmd, seconds: total }, (total + 60) * 1000);
  await sleep(o.warmupS * 1000);
  await sys.cloudCmd({ cmd: 'window', perSample: cmd.cmd === 'plc', check: true }, 10000);
  const meter = createCostMeter(pids);
  meter.start();
  const edge = await edgeDone;
  const cost = meter.end();
  if (edge.error) return { error: edge.error };
  const next = await drain(sys, cmd.sig, edge.lastIndex, o.drainMs);
  const r = await sys.cloudCmd({ cmd: 'report' }, 10000);
  return { edge, cloud: r.report, cost, tailLost: Math.max(0, edge.lastIndex - next) };
}

/**
 * What S7 carries here: the edge reading the ring alone at each rate.
 * @param {object} sys a stream system (its edge does the reading)
 * @returns {Promise<object[]>}
 */
async function runCeiling(sys, o, log) {
  const out = [];
  for (const rateHz of o.ceilingRates) {
    const plc = await signalPlc(rateHz, o.scanMs);
    try {
      const layout = layoutFor({ rateHz }, o.scanMs);
      const meter = createCostMeter({ edge: sys.pids.edge, plc: plc.pid });
      meter.start();
      const cmd = { cmd: 'plc', sig: `ceiling-${rateHz}`, port: plc.ports.s7, layout: ringOptions(layout), seconds: o.ceilingSeconds, send: false };
      const e = await sys.edgeCmd(cmd, (o.ceilingSeconds + 60) * 1000);
      const cost = meter.end();
      const r = e.reader || {};
      const res = {
        rateHz, layout: ringOptions(layout), elapsedMs: e.elapsedMs, samples: r.samples, lost: r.lost, torn: r.torn, polls: r.polls, pdus: r.pdus,
        bytes: r.bytes, samplesPerS: e.elapsedMs ? (1000 * (r.samples || 0)) / e.elapsedMs : null, errors: e.errors || (e.error ? [e.error] : []), cost,
      };
      out.push(res);
      log(`S7 ceiling: ${rateHz} Hz → ${Math.round(res.samplesPerS || 0)} samples/s read, ${res.lost || 0} lost, ${r.pdus || 0} requests`);
    } finally {
      await plc.stop();
    }
  }
  return out;
}

/** One rate of the ceiling run read whole: nothing lost or torn, no error, at least 98 % of the rate read. */
const readWhole = (x) => !x.lost && !x.torn && !(x.errors || []).length && x.samplesPerS >= 0.98 * x.rateHz;

/**
 * The S7 ceiling: rising by rate, the last rate before the first one not read whole (every rate up
 * to it read whole). A higher rate that happened to read whole past a loss does not raise it: the
 * rates around it lost samples, so the edge is already at its limit there. The one rule of the
 * run (the PLC stream's 'ceiling' rate) and the report (bench/stream/report.js).
 * @param {object[]|null} list the ceiling run's results ({rateHz, samplesPerS, lost, torn, errors})
 * @returns {{rateHz: number, short: object[], wholeAbove: object[]}|null} the ceiling, the rates
 *   not read whole, and those read whole above the ceiling anyway; null when even the lowest rate
 *   was not read whole (or nothing was measured)
 */
function ceilingRule(list) {
  const byRate = [...(list || [])].sort((a, b) => a.rateHz - b.rateHz);
  const firstShort = byRate.findIndex((x) => !readWhole(x));
  const upTo = firstShort === -1 ? byRate.length : firstShort;
  if (!upTo) return null;
  const rateHz = byRate[upTo - 1].rateHz;
  return { rateHz, short: byRate.filter((x) => !readWhole(x)), wholeAbove: byRate.filter((x) => readWhole(x) && x.rateHz > rateHz) };
}

/** The S7 ceiling's rate (ceilingRule), or null. */
function ceilingOf(list) {
  const c = ceilingRule(list);
  return c ? c.rateHz : null;
}

/** The ring layout as the edge's command carries it. */
const ringOptions = (l) => ({ db: l.db, rateHz: l.rateHz, blockSamples: l.blockSamples, blocks: l.blocks });

/** The grid's cells asked for ('25x40' = 25 KB forty times a second), sizes scaled. */
function gridCells(o) {
  return o.grid.map((name) => {
    const g = GRID.find((c) => `${c.kb}x${c.rate}` === name);
    if (!g) throw Object.assign(new Error(`unknown grid cell "${name}" (${GRID.map((c) => `${c.kb}x${c.rate}`).join(', ')})`), { code: 'E_BENCH_ARGS' });
    return { ...g, bytes: Math.round(g.kb * 1000 * o.scale) };
  });
}

/**
 * Every run for one transport on one profile.
 * @returns {Promise<object>} {plc: [...], grid: [...], errors: [...], ceiling?: [...]}
 */
async function runTransport(transport, profile, o, log) {
  const res = { plc: [], grid: [], errors: [] };
  let sys;
  try {
    sys = await startStreamSystem({ transport, links: profile.links, log });
  } catch (err) {
    res.errors.push(`the system did not start: ${err.code || ''} ${err.message.split('\n')[0]}`);
    log(err.message);
    return res;
  }
  res.brokerVersion = sys.broker ? `${sys.broker.name} ${sys.broker.version}` : null;
  try {
    if (o.ceiling) {
      res.ceiling = await runCeiling(sys, o, log);
      o = { ...o, ceilingHz: ceilingOf(res.ceiling) };
    }
    for (const rate of o.plcRates) {
      const rateHz = rate === 'ceiling' ? o.ceilingHz : rate;
      if (!rateHz || (rate === 'ceiling' && o.plcRates.includes(rateHz))) continue; // no ceiling measured, or already a rate of the run
      const plc = await signalPlc(rateHz, o.scanMs);
      try {
        const layout = ringOptions(layoutFor({ rateHz }, o.scanMs));
        const sig = `plc-${rateHz}`;
        const m = await measure(sys, { cmd: 'plc', sig, port: plc.ports.s7, layout }, o, { ...sys.pids, plc: plc.pid });
        res.plc.push({ rateHz, layout, ...m });
        log(`${profile.name} ${transport}: PLC ${rateHz} Hz: ${summaryLine(m)}`);
      } finally {
        await plc.stop();
      }
    }
    for (const g of gridCells(o)) {
      const sig = `grid-${g.kb}x${g.rate}`;
      const m = await measure(sys, { cmd: 'gen', sig, size: g.bytes, rate: g.rate, hz: g.hz }, o, sys.pids);
      res.grid.push({ ...g, ...m });
      log(`${profile.name} ${transport}: ${g.kb} KB × ${g.rate}/s: ${summaryLine(m)}`);
    }
  } catch (err) {
    res.errors.push(`${err.code || ''} ${err.message.split('\n')[0]}`);
    log(err.stack || err.message);
  } finally {
    // The processes' output, where something failed: it says why.
    if (res.errors.length || [...res.plc, ...res.grid].some((c) => c.error)) {
      res.logs = { cloud: sys.cloud.log().slice(-20000), edge: sys.edge.log().slice(-20000), broker: sys.broker ? sys.broker.logs().slice(-20000) : '' };
    }
    await sys.stop();
  }
  return res;
}

/** One line for the progress log. */
function summaryLine(m) {
  if (m.error) return `failed: ${m.error}`;
  const c = m.cloud || {};
  const lat = c.latency ? `${c.latency.mean.toFixed(1)} ms (SD ${c.latency.sd.toFixed(1)})` : '–';
  const lost = (c.receiver ? c.receiver.lost : 0) + (m.tailLost || 0);
  return `link latency ${lat}, jitter ${c.jitter === null || c.jitter === undefined ? '–' : c.jitter.toFixed(2)} ms, ` +
    `${Math.round(c.samplesPerS || 0)} samples/s, ${lost} lost`;
}

/**
 * The whole benchmark.
 * @param {object} o DEFAULTS's fields and `profileDefs` (bench/profiles.json)
 * @param {(line: string) => void} log
 * @returns {Promise<object>} results: {ceiling, profiles: {name: {transport: runTransport's}}}
 */
async function runStream(o, log) {
  const results = { ceiling: null, profiles: {} };
  let ceilingDone = !o.ceilingRates.length;
  for (const name of o.profiles) {
    const def = o.profileDefs[name];
    if (!def) throw Object.assign(new Error(`unknown profile "${name}"`), { code: 'E_BENCH_ARGS' });
    results.profiles[name] = {};
    for (const transport of o.transports) {
      // The ceiling on loopback, on the first system (its edge reads; the link idles).
      const ceiling = !ceilingDone && !def.links;
      const r = await runTransport(transport, { name, links: def.links }, { ...o, ceiling, ceilingHz: ceilingOf(results.ceiling) }, log);
      if (ceiling && r.ceiling) { results.ceiling = r.ceiling; ceilingDone = true; delete r.ceiling; }
      results.profiles[name][transport] = r;
    }
  }
  return results;
}

module.exports = { runStream, runTransport, gridCells, ceilingOf, ceilingRule, readWhole, GRID, DEFAULTS };
