'use strict';
/**
 * The edge's reader of a signal's ring buffer in the PLC (layout: lib/stream/ring.js): polls it
 * over S7 and hands on every run of consecutive whole blocks, each sample with its index and the
 * PLC's time of it.
 *
 * - Each poll is one read of the header and the blocks known (or due) to be complete since the
 *   last one, as byte ranges (two where the ring wraps) that the S7 connection packs into as few
 *   requests as the PDU allows (lib/s7/connection.js readOnce). The header comes back with them,
 *   so the next poll knows what to ask for without a read of its own.
 * - A block is taken only whole: its number at both ends (the ring's seqlock). One found
 *   overwritten (the reader fell more than the ring behind) or torn is lost, counted, and skipped;
 *   blocks the PLC overwrote before the reader could ask for them are skipped the same way (the
 *   receiver sees the gap in the sample indices).
 * - Polls follow each other at once while blocks are known complete beyond what was read, else
 *   every `pollMs`.
 * - The first poll checks the header is the ring expected (E_RING otherwise, reported, and polled
 *   again) and starts at the block being written then: the stream is what the PLC samples from
 *   then on.
 *
 * Plain module over a `read(ranges)` function and timers.
 */
const { readHeader, checkHeader, readBlock, unwrap, HEADER_BYTES } = require('./ring');

const DEFAULTS = {
  pollMs: 10, // between polls while nothing more is known to be complete (the PLC's scan)
  maxReadBytes: 64 * 1024, // the most block bytes one poll asks for (a reader far behind catches up in steps)
  retryMs: 200, // after a failed read (the PLC down, a refused header)
};

/**
 * The byte ranges of blocks [from, to) of the ring (one range, or two where the ring wraps).
 * @param {object} layout lib/stream/ring.js ringLayout
 * @returns {Array<{db: number, start: number, length: number, first: number, count: number}>}
 */
function blockRanges(layout, from, to) {
  const out = [];
  let n = from;
  while (n < to) {
    const slot = n % layout.blocks;
    const count = Math.min(to - n, layout.blocks - slot);
    out.push({ db: layout.db, start: layout.blockOffset(n), length: count * layout.blockBytes, first: n, count });
    n += count;
  }
  return out;
}

/**
 * @param {object} o
 * @param {object} o.layout lib/stream/ring.js ringLayout (the ring the PLC was set up with)
 * @param {(ranges: Array<{db: number, start: number, length: number}>) => Promise<{buffers: Buffer[], pdus: number}>} o.read
 *   one read of byte ranges (lib/s7/connection.js readOnce)
 * @param {(run: {i: number, t: number, hz: number, values: Int32Array}) => void} o.onSamples each
 *   run of consecutive samples read (i: the first's index since the PLC started sampling; t its
 *   time on the PLC's clock, ms)
 * @param {(err: Error) => void} [o.onError] a read failed or the ring is not the expected one
 * @param {number} [o.pollMs]
 * @param {number} [o.maxReadBytes]
 * @param {number} [o.retryMs]
 * @returns {{start(): void, stop(): void, counters: object}}
 */
function createRingReader(o) {
  const opts = { ...DEFAULTS, ...o };
  const { layout } = opts;
  const B = layout.blockSamples;
  const maxBlocks = Math.max(1, Math.floor(opts.maxReadBytes / layout.blockBytes));
  const counters = {
    polls: 0, pdus: 0, bytes: 0, blocks: 0, samples: 0, runs: 0,
    lost: 0, // samples of blocks overwritten before they were read (the reader fell behind the ring)
    torn: 0, // blocks found overwritten while they were read
    restarts: 0, // the PLC's write index went back (it restarted): the stream starts again
    errors: 0,
  };
  let written = null; // the PLC's write index, whole (null until the first header)
  let next = null; // the next block to hand on
  let timer = null;
  let stopped = true;

  function schedule(ms) {
    if (stopped) return;
    timer = setTimeout(poll, ms);
  }

  /** Account blocks [next, n) as lost and move on to n. */
  function skipTo(n) {
    if (n <= next) return;
    counters.lost += (n - next) * B;
    next = n;
  }

  /** The first header: check it, and start at the block being written now. */
  function first(header) {
    checkHeader(layout, header);
    written = header.writeIndex;
    next = Math.floor(written / B);
  }

  /** Hand on the whole blocks read, as runs of consecutive samples; returns whether the next one was not ready. */
  function take(ranges, buffers) {
    let run = null;
    const flush = () => {
      if (!run) return;
      const values = new Int32Array(run.blocks.length * B);
      run.blocks.forEach((blk, j) => values.set(blk.values, j * B));
      counters.runs += 1;
      counters.samples += values.length;
      opts.onSamples({ i: run.blocks[0].n * B, t: run.blocks[0].t, hz: layout.rateHz, values });
      run = null;
    };
    for (let r = 0; r < ranges.length; r++) {
      const rg = ranges[r];
      for (let j = 0; j < rg.count; j++) {
        const n = rg.first + j;
        if (n < next) continue; // skipped meanwhile
        const blk = readBlock(layout, buffers[r].subarray(j * layout.blockBytes, (j + 1) * layout.blockBytes), n);
        if (!blk) {
          flush();
          if ((n + 1) * B > written) return true; // not complete yet: asked for early, read again next poll
          counters.torn += 1; // complete before the read, and no longer block n: overwritten under it
          skipTo(n + 1);
          continue;
        }
        counters.blocks += 1;
        if (!run) run = { blocks: [] };
        run.blocks.push(blk);
        next = n + 1;
      }
    }
    flush();
    return false;
  }

  async function poll() {
    timer = null;
    if (stopped) return;
    // What to ask for: the blocks complete by the header last read, or the one being written (it
    // may be complete by now), never more than the ring holds or maxReadBytes in one go.
    let ranges = [];
    if (written !== null) {
      const complete = Math.floor(written / B);
      skipTo(complete - layout.blocks + 1); // the oldest slot is being overwritten by block `complete`
      const to = Math.min(Math.max(complete, next + 1), next + maxBlocks);
      ranges = blockRanges(layout, next, to);
    }
    counters.polls += 1;
    let res;
    try {
      res = await opts.read([{ db: layout.db, start: 0, length: HEADER_BYTES }, ...ranges]);
    } catch (err) {
      if (stopped) return; // the connection closed under the read of a reader being stopped
      counters.errors += 1;
      if (opts.onError) opts.onError(err);
      schedule(opts.retryMs);
      return;
    }
    if (stopped) return;
    counters.pdus += res.pdus;
    counters.bytes += res.buffers.reduce((s, b) => s + b.length, 0);
    const header = readHeader(res.buffers[0]);
    let early = false;
    try {
      if (written === null) first(header);
      else {
        const w = unwrap(written, header.writeIndex);
        // A write index that went back: unwrap takes it as a jump of nearly 2^32 samples.
        if (w - written > 2 ** 31) {
          counters.restarts += 1;
          written = null;
          first(header);
        } else {
          written = w;
          early = take(ranges, res.buffers.slice(1));
        }
      }
    } catch (err) {
      counters.errors += 1;
      written = null;
      if (opts.onError) opts.onError(err);
      schedule(opts.retryMs);
      return;
    }
    const behind = Math.floor(written / B) > next; // more is complete than was handed on
    schedule(behind && !early ? 0 : opts.pollMs);
  }

  return {
    counters,
    /** The next sample index the reader will hand on (null before the first header). */
    get nextIndex() { return next === null ? null : next * B; },
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = null;
    },
  };
}

module.exports = { createRingReader, blockRanges, DEFAULTS };
