'use strict';
/**
 * The headless twin's engine: runs a production of N boxes through the plant model against a PLC
 * reached over one protocol, records the round trip of every timed variable, and reports. The
 * command line is twin/cli.js (`npm run twin`); tests and the benchmark call `runTwin(opts)` here.
 */
const path = require('node:path');
const { codedError } = require('../nodes/lib/core/errors');
const paths = require('../nodes/lib/core/paths');
const { createPlant, PROFILES } = require('./plant');
const { createRecorder } = require('./recorder');
// The headless twin drives the demo box-sorting plant's model (twin/plant.js): its table.
const { demoTable } = require('../nodes/lib/core/io-table');

const DEFAULTS = {
  protocol: 'ws',
  boxes: 20,
  damaged: 0.3,
  profile: 'fast',
  seed: 1,
  tickMs: 10, // plant tick period (wall clock)
  maxDtMs: 50, // a stalled event loop slows plant time down instead of teleporting boxes
  timeoutMs: 5000, // round trip counted as expired after this
  snapWaitMs: 2000, // after connecting, how long to wait for the PLC's first values
  buttonRetryMs: 3000, // press start again if the plant is not running after this
  buttonTries: 3,
  stallMs: { fast: 20000, study: 120000 }, // no box finished for this long → give up
};

/** Error with a stable `code`. */
const TwinError = codedError('TwinError');

/**
 * Load the twin transport of one of the bundle's protocol paths (nodes/lib/core/paths.js): a
 * module of twin/transports/ with createTransport(opts) → connect, send, onState, onAnswer, close.
 * @param {string} protocol a bundle path id
 * @throws {TwinError} E_PROTOCOL for a name that is no such path
 */
function loadTransport(protocol) {
  const p = paths.get(protocol);
  if (!p || p.kind !== 'bundle') throw new TwinError('E_PROTOCOL', `no transport for protocol "${protocol}" (have: ${paths.bundle().join(', ')})`);
  return require(path.join(__dirname, '..', p.transport));
}

/**
 * Run one production.
 * @param {object} opts DEFAULTS plus url, token, csv, transport options; `transport` may be a
 *   ready transport object; `onProgress(summary, event, box)` is called on every box event;
 *   `log(line)` gets diagnostics; `plantModel` options of the plant model (twin/plant.js:
 *   speeds, sizes), where `plant` is the plant id the transports use (a twin names its plant
 *   where its token is valid for several)
 * @returns {Promise<{ok:boolean, reason?:string, boxes:number, packed:number, rejected:number,
 *   missorted:number, damaged:number, samples:object, summary:object, errors:number,
 *   expired:number, errorCodes:object, transport:object, durationMs:number}>}
 */
async function runTwin(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const log = o.log || (() => {});
  const profile = o.profile;
  if (!PROFILES[profile]) throw new TwinError('E_ARGS', `unknown profile "${profile}" (fast or study)`);
  const stallMs = Number(o.stallMs && typeof o.stallMs === 'object' ? o.stallMs[profile] : o.stallMs);
  const transport = o.transport || loadTransport(o.protocol).createTransport({ ...o, log });
  const plant = createPlant({ ...o.plantModel, boxes: Number(o.boxes), damaged: o.damaged, seed: Number(o.seed), profile });
  const recorder = createRecorder({ protocol: o.protocol, csv: o.csv, timeoutMs: Number(o.timeoutMs), onCsvError: (e) => log(`csv: ${e.message}`) });
  const plc = {}; // last PLC outputs seen
  let gotValues = false;
  const frames = { out: 0, in: 0 }; // input changes sent (one per tick with changes), PLC state updates received
  const t0 = performance.now();

  transport.onValues((values, kind) => {
    const t = performance.now();
    recorder.received(values, t);
    if (kind === 'state') frames.in += 1;
    plant.applyOutputs(values);
    Object.assign(plc, values);
    gotValues = true;
    if (kind === 'snap') log(`snapshot: ${JSON.stringify(values)}`);
  });
  let lastFinished = performance.now();
  plant.on('box', (ev, box) => {
    if (ev !== 'arrived') lastFinished = performance.now();
    if (o.onProgress) o.onProgress(plant.summary(), ev, box);
  });

  let ticker = null;
  let result;
  try {
    await transport.connect();
    const until = async (cond, ms) => {
      const end = performance.now() + ms;
      while (!cond() && performance.now() < end) await sleep(Math.min(o.tickMs, 20));
      return cond();
    };
    await until(() => gotValues, o.snapWaitMs);

    // The plant ticks on its own clock from here on; every frame goes out through the recorder.
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      const dt = Math.min(now - last, o.maxDtMs);
      last = now;
      const batch = plant.tick(dt);
      if (Object.keys(batch).length) {
        recorder.sent(batch, performance.now());
        transport.send(batch);
        frames.out += 1;
      }
      recorder.sweep();
    };
    ticker = setInterval(tick, o.tickMs);
    tick(); // the first frame carries every input: the PLC learns the whole plant at once

    // A plant left running by an earlier run is stopped first, so start gives a fresh st→c1.
    if (plc.grn === 1) {
      log('the plant is running: pressing stop first');
      plant.press('sp');
      await until(() => plc.grn === 0, o.buttonRetryMs);
      await sleep(plant.config.buttonHoldMs + 2 * o.tickMs);
    }
    let started = false;
    for (let i = 0; i < o.buttonTries && !started; i++) {
      plant.press('st');
      started = await until(() => plc.grn === 1, o.buttonRetryMs);
      if (!started) log(`start not confirmed by the PLC (try ${i + 1}/${o.buttonTries})`);
    }
    if (!started) throw new TwinError('E_NOT_RUNNING', 'the PLC did not start the plant (no GreenLamp after pressing start)');

    let reason;
    let stalledAt = '';
    await until(() => {
      if (plant.done) return true;
      if (performance.now() - lastFinished > stallMs) { reason = 'stalled'; stalledAt = plant.describe(); return true; }
      return false;
    }, Infinity);
    // Let the last round trips come home (or expire) before reporting.
    await until(() => recorder.pending === 0, Number(o.timeoutMs) + 100);
    recorder.sweep(performance.now() + Number(o.timeoutMs)); // whatever is left has expired

    // Leave the plant stopped, as an operator would.
    plant.press('sp');
    await until(() => plc.grn === 0, 1000);
    await sleep(plant.config.buttonHoldMs + 2 * o.tickMs);

    const s = plant.summary();
    const summary = recorder.summary();
    const ts = transport.stats();
    if (reason === 'stalled') {
      const errs = Object.keys(ts.errorCodes || {}).length ? `; errors from the path ${JSON.stringify(ts.errorCodes)}` : '';
      reason = `stalled: no box finished for ${stallMs} ms (${s.packed + s.rejected}/${s.boxes} sorted; ${stalledAt}${errs})`;
    }
    else if (s.missorted) reason = `${s.missorted} of ${s.boxes} boxes mis-sorted`;
    result = {
      ok: !reason,
      reason,
      boxes: s.boxes,
      packed: s.packed,
      rejected: s.rejected,
      missorted: s.missorted,
      damaged: s.damaged,
      samples: recorder.samples,
      summary,
      expired: summary.overall.expired,
      errors: (ts.errors || 0) + summary.overall.expired,
      errorCodes: ts.errorCodes || {},
      transport: ts,
      frames,
      durationMs: performance.now() - t0,
    };
  } finally {
    if (ticker) clearInterval(ticker);
    await Promise.allSettled([transport.close(), recorder.close()]);
  }
  return result;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The summary as a fixed-width text table, one row per timed variable (the study's Table 1).
 * @param {object} summary recorder.summary()
 */
function formatTable(summary) {
  const cols = ['n', 'mean', 'median', 'min', 'max', 'sd', 'q1', 'q3', 'iqr', 'p95', 'p99', 'jitter', 'expired'];
  const rows = [['variable', ...cols]];
  for (const [k, s] of Object.entries(summary)) {
    const cell = (c) => {
      if (s[c] === undefined) return '-';
      return typeof s[c] === 'number' && !Number.isInteger(s[c]) ? s[c].toFixed(1) : String(s[c]);
    };
    rows.push([k === 'overall' ? 'Overall' : `${s.name} (${k})`, ...cols.map(cell)]);
  }
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ')).join('\n');
}

module.exports = { DEFAULTS, TwinError, runTwin, formatTable, loadTransport, timedVariables: () => demoTable().timedPairs().map((p) => p.output) };
