'use strict';
/**
 * Load-run latency histograms on hdr-histogram-js (HdrHistogram's JavaScript port, kept by the
 * HdrHistogram organisation): constant memory however many samples a 1,000-user run produces,
 * a fixed relative precision (3 significant digits) for every percentile, and histograms that
 * add up exactly across users and blocks. Sorting every sample (nodes/lib/core/stats.js) is right for
 * the few thousand round trips of Table 1; for load runs the histogram is the tool made for it.
 * Values are recorded in microseconds (integers), reported in ms.
 */
const hdr = require('hdr-histogram-js');

const DEFAULTS = {
  lowestUs: 1, // 1 µs
  highestUs: 10 * 60 * 1e6, // 10 minutes: nothing we time takes longer
  digits: 3, // significant digits kept (0.1 % relative error)
};

/**
 * @returns {{record:(ms:number)=>void, add:(other:object)=>void, summary:()=>object, histogram:object}}
 */
function createHist() {
  const h = hdr.build({
    lowestDiscernibleValue: DEFAULTS.lowestUs,
    highestTrackableValue: DEFAULTS.highestUs,
    numberOfSignificantValueDigits: DEFAULTS.digits,
    useWebAssembly: false, // plain JS: no WASM memory to free, nothing to leak between runs
  });
  return {
    histogram: h,
    record(ms) { h.recordValue(Math.max(1, Math.min(DEFAULTS.highestUs, Math.round(ms * 1000)))); },
    add(other) { h.add(other.histogram || other); },
    /** @returns {{n:number, mean?:number, min?:number, max?:number, sd?:number, median?:number, p95?:number, p99?:number}} */
    summary() {
      const n = h.totalCount;
      if (!n) return { n: 0 };
      const ms = (us) => us / 1000;
      return {
        n,
        mean: ms(h.mean),
        min: ms(h.minNonZeroValue),
        max: ms(h.maxValue),
        sd: ms(h.stdDeviation),
        median: ms(h.getValueAtPercentile(50)),
        p95: ms(h.getValueAtPercentile(95)),
        p99: ms(h.getValueAtPercentile(99)),
      };
    },
  };
}

module.exports = { createHist, DEFAULTS };
