'use strict';
/**
 * Round-trip statistics, the same everywhere (flow-timer, twins, benchmark): n, mean, median,
 * min, max, SD, Q1, Q3, IQR, p95, p99, jitter. Quantiles come from simple-statistics (well kept,
 * no native code) rather than a hand-rolled sort-and-index. Quantiles interpolate linearly between
 * order statistics (R-7, as Excel PERCENTILE.INC and numpy), the way the study's spreadsheets did.
 */
const ss = require('simple-statistics');

/**
 * Summarise a sample of durations (ms).
 * SD is the sample standard deviation (n-1), as spreadsheets and the study report it.
 * Jitter is the mean absolute difference of consecutive samples, in arrival order.
 * @param {number[]} samples in arrival order
 * @returns {{n:number, mean:number, median:number, min:number, max:number, sd:number, q1:number,
 *   q3:number, iqr:number, p95:number, p99:number, range:number, jitter:number}|{n:0}}
 */
function summarise(samples) {
  const n = samples.length;
  if (n === 0) return { n: 0 };
  const sorted = Float64Array.from(samples).sort();
  const q = (p) => ss.quantileSorted(sorted, p);
  let jitterSum = 0;
  for (let i = 1; i < n; i++) jitterSum += Math.abs(samples[i] - samples[i - 1]);
  const q1 = q(0.25);
  const q3 = q(0.75);
  return {
    n,
    mean: ss.mean(samples),
    median: q(0.5),
    min: sorted[0],
    max: sorted[n - 1],
    sd: n > 1 ? ss.sampleStandardDeviation(samples) : 0,
    q1,
    q3,
    iqr: q3 - q1,
    p95: q(0.95),
    p99: q(0.99),
    range: sorted[n - 1] - sorted[0],
    jitter: n > 1 ? jitterSum / (n - 1) : 0,
  };
}

/**
 * A bounded window of the most recent samples, for running statistics in long-lived nodes:
 * memory stays constant however long the flow runs, while `total` counts every sample. The
 * buffer starts small and doubles up to `size`, so a window that sees few samples (one of a
 * thousand probe slots) costs a few hundred bytes, not `size` x 8.
 * @param {number} [size] samples kept (default 10,000)
 */
function createWindow(size = 10000) {
  let buf = new Float64Array(Math.min(size, 16));
  let count = 0; // samples kept, up to size
  let next = 0; // ring index of the next write
  let total = 0;
  let sum = 0; // of the samples kept
  /** The kept samples, oldest first, as a fresh Float64Array. */
  function ordered() {
    if (count < size) return buf.slice(0, count);
    const out = new Float64Array(size);
    out.set(buf.subarray(next));
    out.set(buf.subarray(0, next), size - next);
    return out;
  }
  return {
    push(v) {
      if (count < size && count === buf.length) { // not full yet: grow (writes are still in order)
        const bigger = new Float64Array(Math.min(size, buf.length * 2));
        bigger.set(buf);
        buf = bigger;
      }
      if (count === size) sum -= buf[next];
      buf[next] = v;
      sum += v;
      next = (next + 1) % size;
      if (count < size) count += 1;
      total += 1;
    },
    /** Samples kept, oldest first. */
    values() { return Array.from(ordered()); },
    summary() { return { ...summarise(this.values()), total }; },
    /**
     * n (samples kept), total, mean, median, p95, p99 only: one copy and one typed-array sort,
     * for status lines and per-variable tables refreshed often.
     */
    brief() {
      if (count === 0) return { n: 0, total };
      const sorted = ordered().sort();
      return {
        n: count, total, mean: sum / count,
        median: ss.quantileSorted(sorted, 0.5), p95: ss.quantileSorted(sorted, 0.95), p99: ss.quantileSorted(sorted, 0.99),
      };
    },
    get total() { return total; },
    clear() { count = 0; next = 0; total = 0; sum = 0; buf = new Float64Array(Math.min(size, 16)); },
  };
}

/** Round to `d` decimals for display (keeps integers as they are). */
function round(v, d = 2) {
  return typeof v === 'number' ? Math.round(v * 10 ** d) / 10 ** d : v;
}

module.exports = { summarise, createWindow, round };
