'use strict';
/**
 * The pace of the edge-side generator: the study's Algorithm 1 ("High frequency data simulator",
 * its Figure 3). A stream is due every 1/rate s; after generating and sending one, sleep what is
 * left of its period, less the time earlier streams ran over (T); a stream that runs over its
 * period is followed by the next at once, and T carries the excess.
 *
 * One change: T also carries how much longer a sleep took than asked (a timer fires late, by a
 * millisecond or so in Node.js), which Algorithm 1 leaves out; without it a 40-a-second stream
 * ran about 4 % slow here, and the throughput with it. With it the streams hold the rate on
 * average, as the algorithm means them to.
 *
 * Plain module: the caller measures, this says how long to sleep.
 */

/**
 * @param {number} rate streams a second
 * @returns {{next(busyMs: number, overshootMs?: number): number, readonly behindMs: number}}
 *   next: the sleep after a stream that took busyMs to generate and send (and the previous sleep
 *   overshot by overshootMs); behindMs: T, the time the streams are behind their schedule
 */
function createPacer(rate) {
  if (!(rate > 0)) throw Object.assign(new Error(`streams a second must be > 0, got ${rate}`), { code: 'E_BENCH_ARGS' });
  const period = 1000 / rate;
  let behind = 0; // T
  return {
    get behindMs() { return behind; },
    next(busyMs, overshootMs = 0) {
      const spent = busyMs + Math.max(0, overshootMs);
      if (spent + behind > period) {
        behind = spent + behind - period;
        return 0;
      }
      const sleep = period - spent - behind;
      behind = 0;
      return sleep;
    },
  };
}

module.exports = { createPacer };
