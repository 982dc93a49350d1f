'use strict';
/**
 * Round-trip recording on the twin: the full loop, input event written → matching PLC output
 * seen, per timed variable (the table's timedPairs(); the demo plant's st→c1, p1f→p1bw, sd(+dmg)→p2fw,
 * sd(+dmg)→red, sk→p3fw), with one monotonic clock (performance.now()) in one process. Timer matching is the
 * flow-timer's (nodes/lib/timer/flow-timer.js), so the twin and the cloud's flow-timers count the same
 * way. Timeouts count as errors. Optional CSV `time,protocol,variable,ms`.
 */
const { createFlowTimer } = require('../nodes/lib/timer/flow-timer');
const { createCsvAppender, csvField } = require('../nodes/lib/timer/csv-appender');
const { summarise, round } = require('../nodes/lib/core/stats');
const { demoTable } = require('../nodes/lib/core/io-table');

const DEFAULTS = {
  timeoutMs: 5000, // an output change not seen 5 s after its trigger is an error
};
const CSV_HEADER = 'time,protocol,variable,ms';

/**
 * @param {object} [opts]
 * @param {string} [opts.protocol] label for CSV rows and the summary
 * @param {number} [opts.timeoutMs]
 * @param {string} [opts.csv] file to append round trips to (none if omitted)
 * @param {() => number} [opts.now] monotonic clock (default performance.now)
 * @param {boolean} [opts.keepSamples] keep every sample for summary() (default true; the browser
 *   twin runs for hours and keeps its own bounded window instead)
 * @param {object} [opts.table] the plant's I/O table: its timed pairs (default: the demo plant's)
 */
function createRecorder(opts = {}) {
  const table = opts.table || demoTable();
  const protocol = opts.protocol || '';
  const now = opts.now || (() => performance.now());
  const timer = createFlowTimer({ protocol, timeoutMs: opts.timeoutMs || DEFAULTS.timeoutMs, now, table });
  const pairs = table.timedPairs();
  const samples = Object.fromEntries(pairs.map((p) => [p.output, []]));
  const expired = Object.fromEntries(pairs.map((p) => [p.output, 0]));
  const csv = opts.csv ? createCsvAppender(opts.csv, { header: CSV_HEADER, onError: opts.onCsvError }) : null;
  let frames = 0;
  const keep = opts.keepSamples !== false;

  function take(results) {
    for (const r of results) {
      if (keep) samples[r.variable].push(r.ms);
      if (csv) csv.write([new Date().toISOString(), protocol, r.variable, r.ms.toFixed(3)].map(csvField).join(','));
    }
    return results;
  }

  return {
    /**
     * A frame of input values was just sent (call right before or after transport.send).
     * @returns {string[]} timer ids started
     */
    sent(values, t = now()) {
      frames += 1;
      return timer.envelope({ k: 'cmd', src: 'twin', seq: frames, d: values }, t).started;
    },
    /**
     * PLC output values arrived (a state change or a snapshot).
     * @returns {Array<{variable, ms}>} round trips finished
     */
    received(values, t = now()) {
      return take(timer.envelope({ k: 'state', d: values }, t).results);
    },
    /** Expire overdue timers; returns how many expired now. */
    sweep(t = now()) {
      const gone = timer.sweep(t);
      for (const g of gone) expired[g.variable] += 1;
      return gone.length;
    },
    get pending() { return timer.pending; },
    samples,
    expired,
    /** Summary per variable (stats.summarise plus expired and the PLC tag name), and overall. */
    summary() {
      const out = {};
      const all = [];
      for (const p of pairs) {
        const s = summarise(samples[p.output]);
        out[p.output] = { name: p.name, ...roundAll(s), expired: expired[p.output] };
        all.push(...samples[p.output]);
      }
      out.overall = { name: 'Overall', ...roundAll(summarise(all)), expired: Object.values(expired).reduce((a, b) => a + b, 0) };
      return out;
    },
    async close() { if (csv) await csv.close(); },
  };
}

function roundAll(s) {
  const o = {};
  for (const [k, v] of Object.entries(s)) o[k] = round(v, 3);
  return o;
}

module.exports = { DEFAULTS, CSV_HEADER, createRecorder };
