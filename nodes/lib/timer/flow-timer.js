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
 */
const { codedError } = require('../core/errors');
const { csvField } = require('./csv-appender');
const { createWindow, round } = require('../core/stats');
const tags = require('../core/tags');
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

/** Error with a stable `code`. */
const FlowTimerError = codedError('FlowTimerError');

const asBit = (v) => (v === true ? 1 : v === false ? 0 : v);

/**
 * Create a set of round-trip timers.
 * @param {object} [opts]
 * @param {string} [opts.protocol] label carried on every result
 * @param {number} [opts.timeoutMs] ms after which a pending timer expires (default 5000)
 * @param {number} [opts.windowSize] samples kept for statistics
 * @param {number} [opts.maxPending] open timers kept at most
 * @param {number} [opts.maxVariables] variables with their own statistics at most
 * @param {() => number} [opts.now] monotonic clock in ms (default performance.now)
 * @param {Array} [opts.pairs] timed pairs (default tags.timedPairs())
 */
function createFlowTimer(opts = {}) {
  const protocol = opts.protocol || '';
  const timeoutMs = positiveOr(opts.timeoutMs, DEFAULTS.timeoutMs);
  const maxPending = positiveOr(opts.maxPending, DEFAULTS.maxPending);
  const now = opts.now || (() => performance.now());
  const pairs = opts.pairs || tags.timedPairs();
  const pending = new Map(); // id -> {variable, t0}; Map keeps insertion = start order for sweeps
  const byVariable = new Map(); // variable -> Set of ids
  const windowSize = positiveOr(opts.windowSize, DEFAULTS.windowSize);
  const window = createWindow(windowSize);
  const perVariable = new Map(); // variable -> window, least recently timed first
  const maxVariables = positiveOr(opts.maxVariables, DEFAULTS.maxVariables);
  const variableWindow = Math.min(windowSize, DEFAULTS.variableWindow);
  const commanded = {}; // last commanded value of every input, for `with` conditions
  const counters = { started: 0, stopped: 0, expired: 0, duplicates: 0, unmatched: 0, overflow: 0, invalid: 0, evicted: 0 };

  function start(id, variable, t = now()) {
    if (typeof id !== 'string' && typeof id !== 'number') throw new FlowTimerError('E_TIMER_ID', 'timer id must be a string or number');
    id = String(id);
    variable = variable === undefined || variable === null ? id : String(variable);
    // The first start is the real one: a repeated start (a resent frame) must not shorten the sample.
    if (pending.has(id)) { counters.duplicates += 1; return false; }
    if (pending.size >= maxPending) { counters.overflow += 1; return false; }
    pending.set(id, { variable, t0: t });
    let set = byVariable.get(variable);
    if (!set) { set = new Set(); byVariable.set(variable, set); }
    set.add(id);
    counters.started += 1;
    return true;
  }

  function finish(id, t) {
    const p = pending.get(id);
    if (!p) return null;
    forget(id, p);
    const ms = t - p.t0;
    window.push(ms);
    let w = perVariable.get(p.variable);
    if (w) {
      perVariable.delete(p.variable); // re-inserted below: the Map stays in least-recent order
    } else {
      w = createWindow(variableWindow);
      if (perVariable.size >= maxVariables) {
        perVariable.delete(perVariable.keys().next().value);
        counters.evicted += 1;
      }
    }
    perVariable.set(p.variable, w);
    w.push(ms);
    counters.stopped += 1;
    return { protocol, variable: p.variable, id, ms };
  }

  function forget(id, p) {
    pending.delete(id);
    const set = byVariable.get(p.variable);
    if (set) { set.delete(id); if (set.size === 0) byVariable.delete(p.variable); }
  }

  /**
   * Stop by id, or every pending timer of a variable.
   * @returns {Array<{protocol, variable, id, ms}>} finished round trips (empty if none matched)
   */
  function stop(sel, t = now()) {
    const out = [];
    if (sel && sel.id !== undefined && sel.id !== null) {
      const r = finish(String(sel.id), t);
      if (r) out.push(r); else counters.unmatched += 1;
    } else if (sel && sel.variable !== undefined) {
      const set = byVariable.get(String(sel.variable));
      if (set) for (const id of [...set]) out.push(finish(id, t));
    }
    return out;
  }

  /**
   * Expire timers older than the timeout. Call it on an interval.
   * @returns {Array<{variable, id}>} the timers that expired now
   */
  function sweep(t = now()) {
    const out = [];
    for (const [id, p] of pending) {
      if (t - p.t0 < timeoutMs) break; // started in order, so the rest are younger
      forget(id, p);
      counters.expired += 1;
      out.push({ variable: p.variable, id });
    }
    return out;
  }

  /**
   * Translate an envelope-like object into starts and stops.
   * @param {{k:string, d:object, src?:string, seq?:number, cid?:string}} env
   * @returns {{started: string[], results: Array}} ids started, round trips finished
   */
  function envelope(env, t = now()) {
    const started = [];
    const results = [];
    if (!env || typeof env !== 'object' || !env.d || typeof env.d !== 'object') {
      counters.invalid += 1;
      return { started, results };
    }
    const d = env.d;
    const ref = env.cid !== undefined ? String(env.cid) : (env.src !== undefined ? `${env.src}:${env.seq}` : String(counters.started + 1));
    switch (env.k) {
      case 'cmd': {
        for (const [k, v] of Object.entries(d)) commanded[k] = asBit(v);
        for (const p of pairs) {
          if (!(p.trigger in d) || asBit(d[p.trigger]) !== p.value) continue;
          if (!Object.entries(p.with).every(([k, v]) => commanded[k] === v)) continue;
          const id = `${p.output}:${ref}`;
          if (start(id, p.output, t)) started.push(id);
        }
        break;
      }
      case 'state':
      case 'snap':
        for (const p of pairs) {
          if (p.output in d && asBit(d[p.output]) === p.value) results.push(...stop({ variable: p.output }, t));
        }
        break;
      case 'probe':
        for (const [slot, v] of Object.entries(d)) {
          const id = `probe:${slot}:${v}`;
          if (start(id, `probe:${slot}`, t)) started.push(id);
        }
        break;
      case 'probe-res':
        for (const [slot, v] of Object.entries(d)) {
          const r = finish(`probe:${slot}:${v}`, t);
          if (r) results.push(r); else counters.unmatched += 1;
        }
        break;
      default:
        break; // ack, err: nothing to time
    }
    return { started, results };
  }

  /**
   * Handle one Node-RED style message: msg.timer {op, id, variable} or msg.payload envelope.
   * @returns {{started: string[], results: Array}}
   * @throws {FlowTimerError} E_TIMER_OP on an unknown op, E_TIMER_ID on a start without id
   */
  function handle(msg, t = now()) {
    if (msg && msg.timer && typeof msg.timer === 'object') {
      const { op, id, variable } = msg.timer;
      if (op === 'start') {
        if (id === undefined || id === null || id === '') throw new FlowTimerError('E_TIMER_ID', 'msg.timer.id is required to start a timer');
        return { started: start(id, variable, t) ? [String(id)] : [], results: [] };
      }
      if (op === 'stop') {
        if ((id === undefined || id === null) && variable === undefined) throw new FlowTimerError('E_TIMER_ID', 'msg.timer needs an id (or a variable) to stop a timer');
        return { started: [], results: stop({ id, variable }, t) };
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
    return envelope(payload, t);
  }

  /** One variable's line of the statistics table. */
  function variableLine(w) {
    const b = w.brief();
    return { n: b.total, mean: round(b.mean, 3), median: round(b.median, 3), p95: round(b.p95, 3), p99: round(b.p99, 3) };
  }

  function overall(variables) {
    const s = window.summary();
    return {
      protocol,
      n: s.total,
      mean: s.n ? round(s.mean, 3) : null,
      median: s.n ? round(s.median, 3) : null,
      p95: s.n ? round(s.p95, 3) : null,
      p99: s.n ? round(s.p99, 3) : null,
      min: s.n ? round(s.min, 3) : null,
      max: s.n ? round(s.max, 3) : null,
      sd: s.n ? round(s.sd, 3) : null,
      jitter: s.n ? round(s.jitter, 3) : null,
      expired: counters.expired,
      pending: pending.size,
      duplicates: counters.duplicates,
      unmatched: counters.unmatched,
      overflow: counters.overflow,
      evicted: counters.evicted,
      variables,
    };
  }

  /** Statistics over the recent window, per variable too, plus counters. */
  function stats() {
    const variables = {};
    for (const [v, w] of perVariable) variables[v] = variableLine(w);
    return overall(variables);
  }

  /**
   * The same as stats(), without holding the event loop: the per-variable lines are computed in
   * slices of at most `sliceMs`, with other work let through in between. With a thousand probe
   * slots timed, stats() takes tens of milliseconds; in one piece that is a stall of every round
   * trip the process carries.
   * @param {{sliceMs?: number}} [o]
   * @returns {Promise<object>}
   */
  async function statsAsync(o = {}) {
    const sliceMs = positiveOr(o.sliceMs, 2);
    const variables = {};
    let sliceStart = performance.now();
    for (const [v, w] of [...perVariable]) {
      variables[v] = variableLine(w);
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return overall(variables);
  }

  /** What a status line needs: n (all samples), mean and p99 over the recent window, expired. */
  function brief() {
    const b = window.brief();
    return { n: b.total, mean: b.n ? b.mean : null, p99: b.n ? b.p99 : null, expired: counters.expired };
  }

  /** Drop every pending timer (close): they are neither samples nor errors. */
  function clear() {
    pending.clear();
    byVariable.clear();
  }

  return {
    start, stop, sweep, envelope, handle, stats, statsAsync, brief, clear, counters,
    get pending() { return pending.size; },
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
