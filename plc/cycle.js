'use strict';
/**
 * The virtual PLC's fixed-rate scan cycle: each scan is due `periodMs` after the previous one was
 * due, so timer jitter does not accumulate. A scan that ends past its next due time is an overrun:
 * the cycle is re-anchored instead of firing a burst of catch-up scans (a CPU does not run OB1
 * twice). A scan that throws is counted and reported, and the cycle goes on.
 */
const { performance } = require('node:perf_hooks');

/**
 * Start the cycle; the first scan runs at once (on the next turn of the event loop).
 * @param {object} c
 * @param {number} c.periodMs
 * @param {() => number} c.run one scan; returns how long it took, ms
 * @param {{lastScanMs: number, maxScanMs: number, overruns: number, scanErrors?: number}} c.counters
 * @param {(err: Error) => void} c.onError a scan threw
 * @param {() => number} [c.now] monotonic ms (performance.now)
 * @returns {{stop(): void}}
 */
function startCycle(c) {
  const now = c.now || (() => performance.now());
  let timer = null;
  let stopped = false;
  let due = now();

  function tick() {
    timer = null;
    if (stopped) return;
    try {
      const ms = c.run();
      c.counters.lastScanMs = ms;
      if (ms > c.counters.maxScanMs) c.counters.maxScanMs = ms;
    } catch (err) {
      c.counters.scanErrors = (c.counters.scanErrors || 0) + 1;
      c.onError(err);
    }
    const t = now();
    due += c.periodMs;
    if (t > due) { c.counters.overruns += 1; due = t; }
    timer = setTimeout(tick, due - t);
  }

  timer = setTimeout(tick, 0);
  return {
    /** No scan after this one. */
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

module.exports = { startCycle };
