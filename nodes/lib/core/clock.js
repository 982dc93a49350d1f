'use strict';
/**
 * Time on the link: a monotonic clock anchored to wall time, and an estimate of the offset
 * between the cloud's clock and the edge's, with a bound on its error.
 *
 * Why: a command carries a deadline set by the cloud (its arrival there plus its lifetime), and
 * the edge must never write it after that deadline. The two hosts' clocks are never assumed
 * equal. The edge sends a `sync` frame every heartbeat with its send time t1; the cloud answers
 * with the time it received it (t2) and sent the answer (t3); the edge notes the arrival t4. As in
 * NTP's on-wire exchange (RFC 5905 §8; IEEE 1588's delay request-response):
 *
 *   offset θ = ((t2 − t1) + (t3 − t4)) / 2        (cloud − edge)
 *   delay  δ = (t4 − t1) − (t3 − t2)              (time on the wire, both ways)
 *
 * Whatever the split of δ between the two directions, the true offset lies within θ ± δ/2: the
 * only assumption is that no message arrives before it was sent. Event-loop delays on either side
 * fall inside δ and widen the bound instead of falsifying it. Between exchanges the clocks drift
 * apart; `driftPpm` bounds that rate, so a sample taken `age` ms ago bounds the offset within
 * δ/2 + age·drift. The estimate uses the sample with the tightest bound now.
 *
 * Both sides read `now()`: `performance.timeOrigin + performance.now()` does not jump when the
 * wall clock is stepped (by NTP or by hand), as Date.now() would.
 */
const { performance } = require('node:perf_hooks');

/** Milliseconds since the epoch, monotonic within this process. */
function now() {
  return performance.timeOrigin + performance.now();
}

const DEFAULTS = {
  // Relative drift of the two clocks bounded at 1,000 ppm: quartz is within ±50 ppm, but Linux
  // slews CLOCK_MONOTONIC by up to 500 ppm while NTP corrects, on each host. At one exchange every
  // 500 ms this adds at most 0.5 ms to the bound.
  driftPpm: 1000,
  samples: 64, // exchanges kept (32 s at one per 500 ms)
};

/**
 * @param {object} [opts] see DEFAULTS
 * @returns {{add(t1: number, t2: number, t3: number, t4: number): object|null, estimate(at?: number): object|null,
 *   localDeadline(remoteDeadline: number, at?: number): number|null, reset(): void, stats(): object}}
 */
function createOffsetEstimator(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const rate = o.driftPpm / 1e6;
  const samples = []; // {offset, delay, at} oldest first
  let rejected = 0;

  /** Error bound of a sample at local time `at`. */
  const bound = (s, at) => s.delay / 2 + Math.max(0, at - s.at) * rate;

  function best(at) {
    let pick = null;
    let pickBound = Infinity;
    for (const s of samples) {
      const b = bound(s, at);
      if (b < pickBound) { pick = s; pickBound = b; }
    }
    return pick ? { sample: pick, uncertainty: pickBound } : null;
  }

  return {
    /**
     * One exchange: t1 edge send, t2 cloud receive, t3 cloud send, t4 edge receive.
     * @returns {{offset: number, delay: number, at: number}|null} null if the times cannot be
     *   (a negative delay: not monotonic, or a mixed-up exchange), counted in stats().rejected
     */
    add(t1, t2, t3, t4) {
      const delay = (t4 - t1) - (t3 - t2);
      if (![t1, t2, t3, t4].every(Number.isFinite) || delay < 0 || t3 < t2 || t4 < t1) {
        rejected += 1;
        return null;
      }
      const s = { offset: ((t2 - t1) + (t3 - t4)) / 2, delay, at: t4 };
      samples.push(s);
      if (samples.length > o.samples) samples.shift();
      return s;
    },
    /**
     * The offset (cloud − edge) with the tightest error bound at local time `at`.
     * @returns {{offset: number, uncertainty: number, delay: number, age: number, samples: number}|null}
     */
    estimate(at = now()) {
      const b = best(at);
      if (!b) return null;
      return { offset: b.sample.offset, uncertainty: b.uncertainty, delay: b.sample.delay, age: at - b.sample.at, samples: samples.length };
    },
    /**
     * The latest local time at which `remoteDeadline` (a time on the cloud's clock) has surely
     * not passed yet, judged at local time `at`: before it, remote time is below the deadline
     * whatever the true offset within the bound, drift until the deadline included.
     * @returns {number|null} null when there is no estimate yet
     */
    localDeadline(remoteDeadline, at = now()) {
      const b = best(at);
      if (!b) return null;
      const naive = remoteDeadline - b.sample.offset; // the deadline on the local clock, if θ were exact
      const ahead = Math.max(0, naive - at); // how long the bound still grows before then
      return naive - b.uncertainty - ahead * rate;
    },
    reset() { samples.length = 0; },
    stats() { return { samples: samples.length, rejected }; },
  };
}

module.exports = { now, createOffsetEstimator, DEFAULTS };
