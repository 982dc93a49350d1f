'use strict';
/**
 * The synthetic vibration signal of the high-frequency stream: a sum of sines plus noise, as a
 * DINT (Int32) per sample, the type the protocol study streamed. Sample k's value is a pure
 * function of k, so whoever receives a sample can check it arrived unchanged: the virtual PLC
 * samples it into its ring buffer (plc/signal.js), the benchmark's edge-side generator sends it
 * in the study's stream sizes (bench/stream/), and the receiving side checks it.
 *
 * The tones are harmonics of rate/PERIOD (100, 241 and 643 cycles per 4,096 samples: 24, 59 and
 * 157 Hz at 1 kHz, a shaft's first and second order and a bearing tone), so the sum repeats every
 * PERIOD samples and is computed once into a table; the noise is a 32-bit hash of k. A sample
 * then costs a table lookup and a hash, which lets one core generate millions a second (the
 * study's top rate is 2 million points a second) without the generator being what is measured.
 *
 * Pure functions, no I/O.
 */
const { codedError } = require('../core/errors');

/** Error with a stable `code`: E_SIGNAL (an option out of range). */
const SignalError = codedError('SignalError');

/** Samples after which the tones repeat. */
const PERIOD = 4096;
/** Full scale of the sum, in counts: 2^28 leaves the DINT three bits of headroom. */
const SCALE = 2 ** 28;

const DEFAULTS = {
  // [cycles per PERIOD samples, amplitude (share of SCALE)]
  tones: [[100, 0.5], [241, 0.2], [643, 0.1]],
  noise: 0.05, // uniform noise, share of SCALE (peak)
  seed: 1,
};

/** A 32-bit integer hash (lowbias32), the same on every platform. */
function hash32(x) {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The signal.
 * @param {object} [opts] see DEFAULTS
 * @returns {{value(k: number): number, fill(out: Int32Array, k0: number): Int32Array, PERIOD: number}}
 *   value: sample k (a whole number ≥ 0, up to 2^53) as a DINT; fill: samples k0, k0+1, … into out
 * @throws {SignalError} E_SIGNAL
 */
function createSignal(opts = {}) {
  const o = { ...DEFAULTS };
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) o[k] = v;
  if (!Array.isArray(o.tones) || !o.tones.every((t) => Array.isArray(t) && Number.isInteger(t[0]) && t[0] > 0 && t[0] < PERIOD / 2 && Number.isFinite(t[1]))) {
    throw new SignalError('E_SIGNAL', `tones: [cycles per ${PERIOD} samples (1..${PERIOD / 2 - 1}), amplitude] pairs`);
  }
  const peak = o.tones.reduce((s, t) => s + Math.abs(t[1]), 0) + Math.abs(o.noise);
  if (!(Number.isFinite(o.noise) && peak <= 7)) {
    throw new SignalError('E_SIGNAL', 'the tones and the noise must stay within a DINT (their amplitudes sum to at most 7)');
  }
  if (!Number.isInteger(o.seed)) throw new SignalError('E_SIGNAL', 'seed: a whole number');
  const table = new Float64Array(PERIOD);
  for (let i = 0; i < PERIOD; i++) {
    let x = 0;
    for (const [cycles, amp] of o.tones) x += amp * Math.sin((2 * Math.PI * cycles * i) / PERIOD);
    table[i] = x * SCALE;
  }
  const noiseScale = (o.noise * SCALE) / 2 ** 31;
  const seed = hash32(o.seed);

  function value(k) {
    const lo = k % 4294967296;
    const hi = (k - lo) / 4294967296;
    const n = hash32(lo ^ hash32(hi + seed)) | 0; // signed: uniform over the DINT range
    return Math.round(table[k % PERIOD] + n * noiseScale) | 0;
  }

  return {
    PERIOD,
    value,
    fill(out, k0) {
      for (let j = 0; j < out.length; j++) out[j] = value(k0 + j);
      return out;
    },
  };
}

module.exports = { createSignal, hash32, SignalError, PERIOD, SCALE, DEFAULTS };
