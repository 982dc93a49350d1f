'use strict';
/**
 * What the cloud end of a high-frequency stream measures, in the study's terms (the AMQP, MQTT,
 * Kafka, ZeroMQ and OPC UA high-frequency study, section "Experimental setup", equations 1 and 2):
 *
 * - latency of a stream (a `samples` frame): its receipt at the cloud minus its sending at the
 *   edge (the frame's `ts`), one host clock, so no clock offset enters it;
 * - jitter: the mean absolute difference of the latencies of consecutive streams (equation 2), and
 *   the standard deviation of those differences (the study's "jitter standard deviation");
 * - latency of each sample: its receipt minus the PLC's time of it (sample j of a frame: t +
 *   j·1000/hz), split into the PLC and S7 part (the frame's sending minus the sample's time) and
 *   the link part (the stream latency); kept in a histogram (bench/lib/hist.js), as a stream
 *   carries millions of them;
 * - throughput (samples a second over the window; the bytes are the endpoint's count) and, from
 *   lib/stream/receiver.js, the samples lost and the frames out of order.
 *
 * Plain module, no I/O; bench/stream/cloud.js keeps one per measured window.
 */
const { summarise } = require('../../nodes/lib/core/stats');
const { createHist } = require('../lib/hist');

/** Samples of one frame recorded in the per-sample histogram (each standing for its share of the frame). */
const SAMPLE_POINTS = 64;

/**
 * The study's jitter of a series of stream latencies: mean and SD of |l(i+1) − l(i)|.
 * @param {number[]} latencies in arrival order
 * @returns {{jitter: number, jitterSd: number}|{jitter: null, jitterSd: null}}
 */
function jitterOf(latencies) {
  if (latencies.length < 2) return { jitter: null, jitterSd: null };
  const d = [];
  for (let i = 1; i < latencies.length; i++) d.push(Math.abs(latencies[i] - latencies[i - 1]));
  const s = summarise(d);
  return { jitter: s.mean, jitterSd: s.sd };
}

/**
 * @param {{perSample?: boolean}} [o] perSample: the frames' samples carry PLC times worth a
 *   per-sample latency (the PLC-sourced stream; the generator's do not)
 */
function createStreamStats(o = {}) {
  const streams = []; // latency of each frame, ms, in arrival order
  const plcPart = []; // each frame's oldest sample: its sending minus its PLC time, ms
  const samples = createHist();
  let first = null;
  let last = null;
  let n = 0;

  return {
    /**
     * One frame, as it arrived.
     * @param {{ts: number, t: number, hz: number, n: number}} f the frame's sending time (edge
     *   clock), its first sample's PLC time, its rate and sample count
     * @param {number} at its receipt (the same host's clock), ms
     */
    add(f, at) {
      if (first === null) first = at;
      last = at;
      n += f.n;
      streams.push(at - f.ts);
      if (!o.perSample) return;
      plcPart.push(f.ts - f.t);
      // Sample j's latency falls linearly over the frame (newer samples waited less): at most
      // SAMPLE_POINTS points of it, each counted for the samples it stands for, all n in all.
      const k = Math.min(f.n, SAMPLE_POINTS);
      for (let p = 0; p < k; p++) {
        const from = Math.floor((p * f.n) / k);
        const to = Math.floor(((p + 1) * f.n) / k);
        const j = (from + to - 1) / 2;
        const ms = at - (f.t + (j * 1000) / f.hz);
        samples.histogram.recordValueWithCount(Math.max(1, Math.round(ms * 1000)), to - from);
      }
    },
    /**
     * The window's figures.
     * @param {number} windowMs the window's length (throughput is over it)
     * @returns {object}
     */
    summary(windowMs) {
      const s = summarise(streams);
      const out = {
        frames: streams.length,
        samples: n,
        samplesPerS: windowMs > 0 ? (1000 * n) / windowMs : null,
        latency: s.n ? { mean: s.mean, sd: s.sd, median: s.median, p95: s.p95, p99: s.p99, min: s.min, max: s.max } : null,
        ...jitterOf(streams),
        spanMs: first === null ? 0 : last - first,
      };
      if (o.perSample) {
        out.perSample = samples.summary();
        const p = summarise(plcPart);
        out.plcPart = p.n ? { mean: p.mean, sd: p.sd, p99: p.p99, max: p.max } : null;
      }
      return out;
    },
  };
}

module.exports = { createStreamStats, jitterOf, SAMPLE_POINTS };
