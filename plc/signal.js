'use strict';
/**
 * The virtual PLC's high-frequency signal: a vibration sensor (nodes/lib/stream/signal.js)
 * sampled at a fixed rate on the PLC's own clock into a ring buffer in a data block
 * (nodes/lib/stream/ring.js), as an analog input module with oversampling hands a CPU a block of
 * samples per cycle. Off unless asked for (createPlc's `signal`), so the box-sorting plant is
 * unchanged by default.
 *
 * Each scan writes the samples whose time has come since the previous scan (a 10 ms scan at
 * 1 kHz: 10), each with the time the sampling clock gave it, not the time of the scan that wrote
 * it: sample k's time is the start time plus k/rate. A scan that comes late (the process was held
 * up) writes the samples it missed, as a module's buffer would have kept them; more than the ring
 * holds are lost, as on a real module whose buffer overflowed (counted: `signalOverflows`).
 */
const { ringLayout, ringWriter, MAX_BYTES, MAX_BLOCK_SAMPLES } = require('../nodes/lib/stream/ring');
const { createSignal } = require('../nodes/lib/stream/signal');
const { PlcError } = require('./errors');

const DEFAULTS = {
  db: 100, // the ring's data block
  ringMs: 500, // the ring holds this much of the signal, where a data block (64 KB) can
  minBlocks: 8,
};

/**
 * The ring's layout for the options: blocks of one scan's samples unless told (at most an eighth
 * of what a data block holds), and as many of them as `ringMs` of the signal takes, as far as a
 * data block holds them (at least 8: a 64 KB ring holds 160 ms at 100 kHz, 16 ms at 1 MHz).
 * @param {object} o {rateHz, db?, blockSamples?, blocks?, ringMs?}
 * @param {number} scanMs
 * @returns {object} nodes/lib/stream/ring.js ringLayout
 * @throws {PlcError} E_SIGNAL
 */
function layoutFor(o, scanMs) {
  const rateHz = o.rateHz;
  const fit = (blockSamples) => Math.floor((MAX_BYTES - 16) / (16 + 4 * blockSamples)); // blocks a data block holds
  const perBlockMax = Math.floor(((MAX_BYTES - 16) / DEFAULTS.minBlocks - 16) / 4);
  const blockSamples = o.blockSamples || Math.max(1, Math.min(perBlockMax, MAX_BLOCK_SAMPLES, Math.round((rateHz * scanMs) / 1000)));
  const wanted = Math.max(DEFAULTS.minBlocks, Math.ceil(((o.ringMs || DEFAULTS.ringMs) * rateHz) / 1000 / blockSamples));
  const blocks = o.blocks || Math.max(2, Math.min(65535, wanted, fit(blockSamples)));
  try {
    return ringLayout({ db: o.db === undefined ? DEFAULTS.db : o.db, rateHz, blockSamples, blocks });
  } catch (err) {
    throw new PlcError(err.code, `signal: ${err.message}`);
  }
}

/**
 * @param {object} o createPlc's `signal`: {rateHz, db?, blockSamples?, blocks?, ringMs?, tones?, noise?, seed?}
 * @param {object} ctx
 * @param {number} ctx.scanMs
 * @param {number[]} ctx.usedDbs data blocks the image has already (the ring must not be one)
 * @param {object} ctx.counters the PLC's: signalSamples, signalOverflows
 * @returns {{layout: object, buf: Buffer, dirty: boolean, start(t: number): void, advance(t: number): number}}
 *   advance: write the samples due by time t (ms, the PLC's clock); returns how many
 * @throws {PlcError} E_SIGNAL
 */
function createSampler(o, ctx) {
  if (!o || typeof o !== 'object') throw new PlcError('E_SIGNAL', 'signal: {rateHz, db?, blockSamples?, blocks?}');
  const layout = layoutFor(o, ctx.scanMs);
  if (ctx.usedDbs.includes(layout.db)) throw new PlcError('E_SIGNAL', `signal: DB${layout.db} is already one of the process image's data blocks`);
  let signal;
  try {
    signal = createSignal({ tones: o.tones, noise: o.noise, seed: o.seed });
  } catch (err) {
    throw new PlcError(err.code, `signal: ${err.message}`);
  }
  const c = ctx.counters;
  c.signalSamples = 0;
  c.signalOverflows = 0;
  const buf = Buffer.alloc(layout.size);
  const writer = ringWriter(layout, buf);
  const msPerSample = 1000 / layout.rateHz;
  const B = layout.blockSamples;
  let t0 = null; // the sampling clock's start (the PLC's clock, ms)
  let written = 0; // samples written so far

  const sampler = {
    layout,
    buf,
    dirty: true, // the header is new: the S7 area gets it at the next push
    /** Start the sampling clock (the first scan; later calls do nothing). */
    start(t) { if (t0 === null) t0 = t; },
    advance(t) {
      sampler.start(t);
      const due = Math.floor((t - t0) / msPerSample);
      if (due <= written) return 0;
      let k = written;
      if (due - k > layout.capacity) {
        // More than the ring holds came due at once: the oldest are gone, as from a module's
        // overflowing buffer. Start at a block boundary so every block written is whole.
        const from = Math.ceil((due - layout.capacity) / B) * B;
        c.signalOverflows += from - k;
        k = from;
      }
      for (; k < due; k++) {
        writer.sample(k, signal.value(k), () => t0 + Math.floor(k / B) * B * msPerSample);
      }
      const n = due - written;
      c.signalSamples += n;
      written = due;
      writer.setWriteIndex(written);
      sampler.dirty = true;
      return n;
    },
  };
  return sampler;
}

module.exports = { createSampler, layoutFor, DEFAULTS };
