'use strict';
/**
 * Flow-timer logic: round-trip timers started and stopped by id, expiring timers counted as
 * errors, running statistics, envelope → start/stop translation from the tag dictionary's timed
 * pairs, and the CSV line of a round trip (written by csv-appender.js). Used by the `s7twin-timer` node (inside the
 * `s7twin-flow-timer` subflow) and by the headless twin's recorder. Never touches RED.
 *
 * Timers are matched by id (a correlation id), never by arrival order:
 *   - explicit:  start(id, variable) / stop({id})
 *   - envelopes: a `cmd` whose values contain a timed pair's trigger (and its `with` conditions,
 *     checked against the values commanded so far, since a condition may have been sent in an
 *     earlier frame) starts one timer per pair, id `<output>:<src>:<seq>` (or `<output>:<cid>`);
 *     a `state`/`snap` in which an output took its expected value stops every pending timer of
 *     that output (one PLC output change answers every twin that asked for it).
 *   - probes:    `probe` d {slot: value} starts `probe:<slot>:<value>`, `probe-res` stops it.
 *
 * The parts: the open timers (timers.js), the samples and their windows (samples.js), which
 * timers an envelope starts and stops (envelopes.js). This file holds the options, reads a
 * message, and reports the statistics.
 */
const { csvField } = require('./csv-appender');
const { round } = require('../core/stats');
const { demoTable } = require('../core/io-table');
const { createTimers, FlowTimerError } = require('./timers');
const { createSamples } = require('./samples');
const { createEnvelopeTimer } = require('./envelopes');
const { positiveOr } = require('../core/props');

const DEFAULTS = {
  timeoutMs: 5000, // a round trip not finished after 5 s is counted as expired
  windowSize: 10000, // samples kept for running statistics (memory stays bounded)
  maxPending: 100000, // open timers kept at most; more are refused and counted (overflow)
  // Variables with their own statistics, at most; the least recently timed one makes room for a
  // new one (counted as evicted; its samples stay in the overall statistics and the CSV). 1,024
  // probe slots plus the timed outputs fit; ids used as variables (msg.timer without a variable)
  // cannot grow memory without bound.
  maxVariables: 2048,
  variableWindow: 2000, // samples kept per variable
};

const CSV_HEADER = 'time,protocol,variable,id,ms';

/**
 * Read one Node-RED style message: msg.timer {op, id, variable}, or an envelope in msg.payload
 * (an object, or JSON text or bytes).
 * @returns {{timer: {op: string, id: *, variable: *}}|{env: object}}
 * @throws {FlowTimerError} E_TIMER_OP on an unknown op, E_TIMER_ID on a start or stop without
 *   id, E_TIMER_INPUT on anything else (counted as invalid except a missing id)
 */
function readMessage(msg, counters) {
  if (msg && msg.timer && typeof msg.timer === 'object') {
    const { op, id, variable } = msg.timer;
    if (op === 'start') {
      if (id === undefined || id === null || id === '') throw new FlowTimerError('E_TIMER_ID', 'msg.timer.id is required to start a timer');
      return { timer: { op, id, variable } };
    }
    if (op === 'stop') {
      if ((id === undefined || id === null) && variable === undefined) {
        throw new FlowTimerError('E_TIMER_ID', 'msg.timer needs an id (or a variable) to stop a timer');
      }
      return { timer: { op, id, variable } };
    }
    counters.invalid += 1;
    throw new FlowTimerError('E_TIMER_OP', `msg.timer.op must be "start" or "stop", got ${JSON.stringify(op)}`);
  }
  let payload = msg ? msg.payload : undefined;
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
    try { payload = JSON.parse(payload); } catch (err) {
      counters.invalid += 1;
      throw new FlowTimerError('E_TIMER_INPUT', `msg.payload is not JSON: ${err.message}`);
    }
  }
  if (!payload || typeof payload !== 'object' || typeof payload.k !== 'string') {
    counters.invalid += 1;
    throw new FlowTimerError('E_TIMER_INPUT', 'expected msg.timer {op,id,variable} or an envelope-like msg.payload {k, d}');
  }
  return { env: payload };
}

/** Rounded to 3 decimals, or null without samples. */
const r3 = (s, k) => (s.n ? round(s[k], 3) : null);

/**
 * Create a set of round-trip timers.
 * @param {object} [opts]
 * @param {string} [opts.protocol] label carried on every result
 * @param {number} [opts.timeoutMs] ms after which a pending timer expires (default 5000)
 * @param {number} [opts.windowSize] samples kept for statistics
 * @param {number} [opts.maxPending] open timers kept at most
 * @param {number} [opts.maxVariables] variables with their own statistics at most
 * @param {() => number} [opts.now] monotonic clock in ms (default performance.now)
 * @param {object} [opts.table] the plant's I/O table: its timed pairs are timed (default: the demo plant's)
 * @param {Array} [opts.pairs] timed pairs (default: the table's timedPairs())
 */
function createFlowTimer(opts = {}) {
  const protocol = opts.protocol || '';
  const timeoutMs = positiveOr(opts.timeoutMs, DEFAULTS.timeoutMs);
  const now = opts.now || (() => performance.now());
  const windowSize = positiveOr(opts.windowSize, DEFAULTS.windowSize);
  const counters = { started: 0, stopped: 0, expired: 0, duplicates: 0, unmatched: 0, overflow: 0, invalid: 0, evicted: 0 };
  const samples = createSamples({
    windowSize, variableWindow: Math.min(windowSize, DEFAULTS.variableWindow),
    maxVariables: positiveOr(opts.maxVariables, DEFAULTS.maxVariables), counters,
  });
  const timers = createTimers({ protocol, timeoutMs, maxPending: positiveOr(opts.maxPending, DEFAULTS.maxPending), now, counters, onSample: samples.add });
  const translate = createEnvelopeTimer({ pairs: opts.pairs || (opts.table || demoTable()).timedPairs(), timers, counters });

  /** The statistics over the recent window, with `variables` (their lines), plus counters. */
  function report(variables) {
    const s = samples.summary();
    return {
      protocol,
      n: s.total,
      mean: r3(s, 'mean'),
      median: r3(s, 'median'),
      p95: r3(s, 'p95'),
      p99: r3(s, 'p99'),
      min: r3(s, 'min'),
      max: r3(s, 'max'),
      sd: r3(s, 'sd'),
      jitter: r3(s, 'jitter'),
      expired: counters.expired,
      pending: timers.size,
      duplicates: counters.duplicates,
      unmatched: counters.unmatched,
      overflow: counters.overflow,
      evicted: counters.evicted,
      variables,
    };
  }

  return {
    start: timers.start,
    stop: timers.stop,
    /** Expire timers older than the timeout; call it on an interval. @returns {Array<{variable, id}>} */
    sweep: timers.sweep,
    /**
     * Translate an envelope-like object into starts and stops.
     * @param {{k:string, d:object, src?:string, seq?:number, cid?:string}} env
     * @returns {{started: string[], results: Array}} ids started, round trips finished
     */
    envelope: (env, t = now()) => translate(env, t),
    /**
     * Handle one Node-RED style message: msg.timer {op, id, variable} or msg.payload envelope.
     * @returns {{started: string[], results: Array}}
     * @throws {FlowTimerError} E_TIMER_OP on an unknown op, E_TIMER_ID on a start without id
     */
    handle(msg, t = now()) {
      const m = readMessage(msg, counters);
      if (m.env) return translate(m.env, t);
      const { op, id, variable } = m.timer;
      if (op === 'start') return { started: timers.start(id, variable, t) ? [String(id)] : [], results: [] };
      return { started: [], results: timers.stop({ id, variable }, t) };
    },
    /** Statistics over the recent window, per variable too, plus counters. */
    stats: () => report(samples.lines()),
    /**
     * The same as stats(), without holding the event loop (samples.js linesAsync).
     * @param {{sliceMs?: number}} [o]
     * @returns {Promise<object>}
     */
    async statsAsync(o = {}) {
      return report(await samples.linesAsync(positiveOr(o.sliceMs, 2)));
    },
    /** What a status line needs: n (all samples), mean and p99 over the recent window, expired. */
    brief() {
      const b = samples.brief();
      return { n: b.total, mean: b.n ? b.mean : null, p99: b.n ? b.p99 : null, expired: counters.expired };
    },
    /** Drop every pending timer (close): they are neither samples nor errors. */
    clear: timers.clear,
    counters,
    get pending() { return timers.size; },
    get protocol() { return protocol; },
    timeoutMs,
  };
}

/**
 * One CSV line `time,protocol,variable,id,ms` (no newline).
 * @param {{protocol, variable, id, ms}} r
 * @param {Date|number} [time] wall-clock time of the stop (default now)
 */
function csvLine(r, time = Date.now()) {
  const iso = new Date(time).toISOString();
  return [iso, r.protocol, r.variable, r.id, r.ms.toFixed(3)].map(csvField).join(',');
}

module.exports = { DEFAULTS, CSV_HEADER, FlowTimerError, createFlowTimer, csvLine };
