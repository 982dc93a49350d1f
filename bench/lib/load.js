'use strict';
/**
 * Probe round trips: N virtual twins, each with its own connection and its own PLC probe slot,
 * each writing a fresh UDInt to its request slot and timing until that exact value comes back
 * from the response slot (the PLC copies request → response every scan, so the round trip holds
 * exactly the PLC's own latency and nothing another user did). One probe in flight per user, a
 * random think time between probes (uniform, 0.5-1.5 × thinkMs unless thinkWidthMs says otherwise),
 * like a twin reacting to its plant.
 *
 * Counted, never silently dropped: timeouts (no answer within timeoutMs), wrong answers (another
 * value for the user's own slot), connect failures. Warm-up probes (each user's first ones) are
 * timed but kept apart and reported as warm-up.
 */
const { codedError } = require('../../nodes/lib/core/errors');
const { performance } = require('node:perf_hooks');
const { createHist } = require('./hist');
// The probes of the PLC's table (S7T_IO_TABLE's, else the demo plant's): its slots and UDInt values.
const tags = require('../../nodes/lib/core/io-table').processTable();

const DEFAULTS = {
  thinkMs: 100, // pause between a user's probes, ms
  timeoutMs: 5000, // a probe not answered in 5 s is an error
  warmupPerUser: 1, // first probes of every user discarded as warm-up
  connectBatch: 50, // connections opened at once (a connect storm would measure the storm)
  connectTimeoutMs: 30000,
  slotBase: 1, // probe slots used: slotBase .. slotBase+users-1 (slot 0 is the stock replica's)
  maxSlots: tags.PROBE_SLOTS, // the PLC's probe slots (io-table plc.probeSlots)
};

/** Error with a stable `code`. */
const LoadError = codedError('LoadError');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Race a promise against a timer that is always cleared (a pending timer would hold the process). */
function withTimeout(promise, ms, code, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new LoadError(code, `${what} timed out after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Think time drawn uniformly from mean ± width/2 (width defaults to the mean: 0.5-1.5 × mean).
 * Fixed gaps phase-lock with the PLC scan and with polled reads (a 5 ms gap after each 50 ms-cycle
 * answer lands at the same point of the next cycle every time), which would measure the phase, not
 * the path. An answer arrives at a fixed point of the cycle that produced it, so the next probe
 * starts at a uniformly random point of a cycle only when the width is a whole number of cycles
 * (run.js uses the least common multiple of the scan and the stock replica's read cycle).
 */
const think = (mean, width = mean) => mean + width * (Math.random() - 0.5);

/**
 * When a user's first probe goes out: drawn from the think time's equilibrium (residual)
 * distribution, density P(think > t) / mean over 0..max, so the users' probes together arrive at
 * their steady rate from the first millisecond. Uniform over 0..mean (what this was) sent every
 * first probe within one mean think time while the early users' second probes already came: 25 %
 * over the steady rate for half a second, a burst no steady set of twins makes, and at 1,000 twins
 * on the WAN profile that start-up burst set the level's p99 (docs/bench.md).
 */
function startOffset(mean, width = mean) {
  const lo = mean - width / 2;
  const hi = mean + width / 2;
  if (!(hi > 0)) return 0;
  for (;;) {
    const t = Math.random() * hi;
    if (t < lo || Math.random() * (hi - lo) < hi - t) return t;
  }
}

/**
 * Run one load level for one protocol.
 * @param {object} o
 * @param {string} o.protocol
 * @param {number} o.users
 * @param {(user:number)=>object} o.makeTransport a fresh twin transport per user (twin/transports/: connect, send, onState, with probe/onProbe)
 * @param {number} [o.durationMs] measure for this long (after connecting); or
 * @param {number} [o.probesPerUser] stop each user after this many measured probes
 * @param {number} [o.thinkMs] mean pause between a user's probes
 * @param {number} [o.thinkWidthMs] pauses are uniform over thinkMs ± thinkWidthMs/2 (default: thinkMs)
 * @param {number} [o.timeoutMs]
 * @param {number} [o.warmupPerUser]
 * @param {number} [o.slotBase]
 * @param {boolean} [o.keepSamples] keep every measured sample (ms) in arrival order (for CSV/box plots)
 * @param {(done:number)=>void} [o.onProbe] progress: called after every probe
 * @returns {Promise<object>} {protocol, users, connected, connectErrors, sent, ok, timeouts, wrong,
 *   errors, errorPct, warmup, throughput, durationMs, summary, samples?, bytes}
 */
async function runLoad(o) {
  const cfg = { ...DEFAULTS, ...o };
  if (!(cfg.users >= 1)) throw new LoadError('E_LOAD_ARGS', 'users must be >= 1');
  if (cfg.slotBase + cfg.users > cfg.maxSlots) throw new LoadError('E_LOAD_SLOTS', `${cfg.users} users need more than the PLC's ${cfg.maxSlots} probe slots`);
  if (!cfg.durationMs && !cfg.probesPerUser) throw new LoadError('E_LOAD_ARGS', 'give durationMs or probesPerUser');
  const hist = createHist();
  const samples = cfg.keepSamples ? [] : null;
  const res = { sent: 0, ok: 0, timeouts: 0, wrong: 0, warmup: 0, connectErrors: 0, connected: 0, late: 0 };
  const transports = [];
  const users = [];

  // Connect everyone first, in batches, then start the clock.
  for (let u = 0; u < cfg.users; u += cfg.connectBatch) {
    const batch = [];
    for (let k = u; k < Math.min(cfg.users, u + cfg.connectBatch); k++) {
      const slot = cfg.slotBase + k;
      const t = cfg.makeTransport(k);
      transports.push(t);
      const user = { slot, t, pending: null, up: false };
      users.push(user);
      t.onProbe((s, v) => {
        if (s !== slot) return; // another user's answer (fan-out): not ours
        const p = user.pending;
        if (!p) { res.late += 1; return; }
        if (v !== p.value) { if (v < p.value) res.late += 1; else res.wrong += 1; return; }
        user.pending = null;
        p.resolve(performance.now() - p.t0);
      });
      batch.push(withTimeout(t.connect(), cfg.connectTimeoutMs, 'E_CONNECT_TIMEOUT', 'connect')
        .then(() => { user.up = true; res.connected += 1; }, () => { res.connectErrors += 1; }));
    }
    await Promise.all(batch);
  }

  const t0 = performance.now();
  const endAt = cfg.durationMs ? t0 + cfg.durationMs : Infinity;
  const seqBase = Math.floor(Math.random() * 1e6) * 1000; // fresh values per run: no stale match

  async function userLoop(user, k) {
    if (!user.up) return;
    let measured = 0;
    let n = 0;
    // Desynchronise the users: each starts as if it had been probing all along.
    await sleep(startOffset(cfg.thinkMs, cfg.thinkWidthMs));
    while (performance.now() < endAt && (!cfg.probesPerUser || measured < cfg.probesPerUser)) {
      n += 1;
      const value = (seqBase + k * 100000 + n) % tags.UDINT_MAX;
      const ms = await new Promise((resolve) => {
        const timer = setTimeout(() => { user.pending = null; resolve(null); }, cfg.timeoutMs);
        user.pending = { value, t0: performance.now(), resolve: (v) => { clearTimeout(timer); resolve(v); } };
        res.sent += 1;
        try { user.t.probe(user.slot, value); } catch { /* counted as the timeout it becomes */ }
      });
      if (ms === null) res.timeouts += 1;
      else if (n <= cfg.warmupPerUser) res.warmup += 1;
      else {
        res.ok += 1;
        measured += 1;
        hist.record(ms);
        if (samples) samples.push(ms);
      }
      if (cfg.onProbe) cfg.onProbe(res.ok + res.timeouts);
      if (cfg.thinkMs) await sleep(think(cfg.thinkMs, cfg.thinkWidthMs));
    }
  }

  try {
    await Promise.all(users.map((u, k) => userLoop(u, k)));
  } finally {
    const durationMs = performance.now() - t0;
    res.durationMs = durationMs;
    res.bytes = transports.reduce((acc, t) => {
      const s = (t.stats && t.stats()) || {};
      acc.in += s.bytesIn || 0;
      acc.out += s.bytesOut || 0;
      return acc;
    }, { in: 0, out: 0 });
    await Promise.allSettled(transports.map((t) => t.close()));
  }
  // Errors = probes that did not come back right + users that never connected (each of which
  // would have sent at least one probe). Wrong answers are counted apart: the right answer may
  // still have come afterwards.
  const errors = res.timeouts + res.connectErrors;
  const attempts = res.ok + res.warmup + errors;
  return {
    protocol: cfg.protocol,
    users: cfg.users,
    ...res,
    errors,
    errorPct: attempts ? (100 * errors) / attempts : 0,
    throughput: res.durationMs > 0 ? (1000 * (res.ok + res.warmup)) / res.durationMs : 0,
    summary: hist.summary(),
    hist,
    samples,
  };
}

/**
 * Wait until one probe makes it through a path (the flows connect asynchronously after start).
 * @returns {Promise<number>} ms until ready
 * @throws {LoadError} E_PATH_NOT_READY
 */
async function waitPathReady(makeTransport, timeoutMs = 60000, slot = DEFAULTS.slotBase) {
  const t0 = performance.now();
  const end = t0 + timeoutMs;
  let lastErr = null;
  while (performance.now() < end) {
    const t = makeTransport(0);
    try {
      await withTimeout(t.connect(), 10000, 'E_CONNECT_TIMEOUT', 'connect');
      for (let i = 0; i < 20 && performance.now() < end; i++) {
        const value = 4000000000 + Math.floor(Math.random() * 1e8);
        const ok = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), 1000);
          t.onProbe((s, v) => { if (s === slot && v === value) { clearTimeout(timer); resolve(true); } });
          t.probe(slot, value);
        });
        if (ok) return performance.now() - t0;
      }
    } catch (err) {
      lastErr = err;
      await sleep(500);
    } finally {
      await t.close().catch(() => {});
    }
  }
  throw new LoadError('E_PATH_NOT_READY', `no probe came back within ${timeoutMs} ms${lastErr ? `: ${lastErr.message}` : ''}`);
}

module.exports = { runLoad, waitPathReady, LoadError, DEFAULTS, think, startOffset };
