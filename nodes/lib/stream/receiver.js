'use strict';
/**
 * The receiving end of a signal's samples (`samples` frames, lib/stream/block.js): each block's
 * place in its signal, by the index of its first sample. What it counts is what a consumer of a
 * high-frequency stream needs to know it got the signal whole:
 *
 * - in order: a block that starts where the last one ended;
 * - lost: the samples a block skipped over (the edge fell behind the PLC's ring, or a frame was
 *   lost on the way), counted once, by the gap;
 * - out of order: a block that starts before the end of the last one (late, or a repeat); not
 *   handed on, so what is handed on never goes back in time;
 * - wrong: samples that differ from what the sender's signal says they are, when the receiver
 *   knows the signal (`expect`: the benchmark's synthetic one, lib/stream/signal.js).
 *
 * Plain module, no I/O.
 */

/**
 * @param {object} [o]
 * @param {(i: number) => number} [o.expect] the value sample i must have (checked when given)
 * @returns {{accept(b: {sig: string, i: number, values: Int32Array}): 'in-order'|'gap'|'out-of-order',
 *   counters: object, signals(): Object<string, {next: number}>}}
 */
function createStreamReceiver(o = {}) {
  const next = new Map(); // sig -> the index the next block should start at
  const counters = { blocks: 0, samples: 0, inOrder: 0, gaps: 0, lost: 0, outOfOrder: 0, wrong: 0 };

  function check(b) {
    if (!o.expect) return;
    for (let j = 0; j < b.values.length; j++) if (b.values[j] !== o.expect(b.i + j)) counters.wrong += 1;
  }

  return {
    counters,
    /**
     * One block.
     * @returns {'in-order'|'gap'|'out-of-order'} out-of-order blocks are counted, not taken
     */
    accept(b) {
      const want = next.get(b.sig);
      if (want !== undefined && b.i < want) {
        counters.outOfOrder += 1;
        return 'out-of-order';
      }
      counters.blocks += 1;
      counters.samples += b.values.length;
      check(b);
      next.set(b.sig, b.i + b.values.length);
      if (want === undefined || b.i === want) {
        counters.inOrder += 1;
        return 'in-order';
      }
      counters.gaps += 1;
      counters.lost += b.i - want;
      return 'gap';
    },
    /** Each signal seen, and the index its next block should start at. */
    signals: () => Object.fromEntries([...next].map(([sig, n]) => [sig, { next: n }])),
  };
}

module.exports = { createStreamReceiver };
