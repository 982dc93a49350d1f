'use strict';
/**
 * The open round-trip timers of a flow-timer, by id (a correlation id), never by arrival order.
 * Started in order, so expiry looks only at the oldest. Bounded: past `maxPending` open timers a
 * start is refused and counted (overflow). Never touches RED; runs in the browser too.
 */
const { codedError } = require('../core/errors');

/** Error with a stable `code`. */
const FlowTimerError = codedError('FlowTimerError');

/**
 * @param {object} o
 * @param {string} o.protocol label carried on every result
 * @param {number} o.timeoutMs a timer open this long expires
 * @param {number} o.maxPending open timers kept at most
 * @param {() => number} o.now monotonic clock in ms
 * @param {object} o.counters started, stopped, expired, duplicates, unmatched, overflow (incremented here)
 * @param {(variable: string, ms: number) => void} o.onSample each finished round trip
 * @returns {{start: Function, finish: Function, stop: Function, sweep: Function, clear(): void,
 *   readonly size: number}}
 */
function createTimers(o) {
  const { counters } = o;
  const pending = new Map(); // id -> {variable, t0}; Map keeps insertion = start order for sweeps
  const byVariable = new Map(); // variable -> Set of ids

  function forget(id, p) {
    pending.delete(id);
    const set = byVariable.get(p.variable);
    if (set) { set.delete(id); if (set.size === 0) byVariable.delete(p.variable); }
  }

  /** Finish timer `id` at `t`: its round trip, or null if it is not open. */
  function finish(id, t) {
    const p = pending.get(id);
    if (!p) return null;
    forget(id, p);
    const ms = t - p.t0;
    o.onSample(p.variable, ms);
    counters.stopped += 1;
    return { protocol: o.protocol, variable: p.variable, id, ms };
  }

  return {
    /**
     * Open a timer (the first start is the real one: a repeated start, a resent frame, must not
     * shorten the sample).
     * @param {string|number} id
     * @param {string} [variable] what it times (default: the id)
     * @param {number} [t] start time (default now)
     * @returns {boolean} false for a duplicate or past maxPending (counted)
     * @throws {FlowTimerError} E_TIMER_ID when the id is not a string or number
     */
    start(id, variable, t = o.now()) {
      if (typeof id !== 'string' && typeof id !== 'number') throw new FlowTimerError('E_TIMER_ID', 'timer id must be a string or number');
      id = String(id);
      variable = variable === undefined || variable === null ? id : String(variable);
      if (pending.has(id)) { counters.duplicates += 1; return false; }
      if (pending.size >= o.maxPending) { counters.overflow += 1; return false; }
      pending.set(id, { variable, t0: t });
      let set = byVariable.get(variable);
      if (!set) { set = new Set(); byVariable.set(variable, set); }
      set.add(id);
      counters.started += 1;
      return true;
    },
    finish,
    /**
     * Stop by id, or every pending timer of a variable.
     * @returns {Array<{protocol, variable, id, ms}>} finished round trips (empty if none matched)
     */
    stop(sel, t = o.now()) {
      const out = [];
      if (sel && sel.id !== undefined && sel.id !== null) {
        const r = finish(String(sel.id), t);
        if (r) out.push(r); else counters.unmatched += 1;
      } else if (sel && sel.variable !== undefined) {
        const set = byVariable.get(String(sel.variable));
        if (set) for (const id of [...set]) out.push(finish(id, t));
      }
      return out;
    },
    /**
     * Expire timers older than the timeout.
     * @returns {Array<{variable, id}>} the timers that expired now
     */
    sweep(t = o.now()) {
      const out = [];
      for (const [id, p] of pending) {
        if (t - p.t0 < o.timeoutMs) break; // started in order, so the rest are younger
        forget(id, p);
        counters.expired += 1;
        out.push({ variable: p.variable, id });
      }
      return out;
    },
    /** Drop every open timer: they are neither samples nor errors. */
    clear() {
      pending.clear();
      byVariable.clear();
    },
    get size() { return pending.size; },
  };
}

module.exports = { createTimers, FlowTimerError };
