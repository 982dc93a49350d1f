'use strict';
/**
 * The edge's S7 writes waiting for their turn: which are let in, which are dropped before they go
 * out, and which go out together as the next job. No I/O and no nodes7: the session
 * (lib/s7/session.js) hands each job to the PLC, so what is written is decided here and only here.
 *
 * - A full queue refuses at once with E_BUSY (memory stays bounded while the PLC is slow).
 * - A write larger than one job (only probe frames carrying many slots get there) is queued in
 *   parts of at most `maxBatchItems` items; the whole resolves when every part did.
 * - A write whose deadline (lib/core/clock.js time) has passed when its turn comes is rejected
 *   with E_EXPIRED and never sent: the sender has given up on it, and a late command is worse than
 *   none.
 * - When the connection is lost, every waiting write is rejected with E_PLC_DOWN: nothing waits to
 *   be written late after a reconnect.
 * - The next job is the first write and those that may join it (lib/s7/batch.js), resolved or
 *   rejected together; each write's items stay together, so each is still all or nothing.
 */
const clock = require('../core/clock');
const { takeBatch } = require('./batch');
const { s7Error } = require('./errors');

/**
 * @param {object} o
 * @param {number} o.maxWrites writes that may wait at most
 * @param {number} o.maxBatchItems items per job at most (the S7 protocol's limit)
 * @param {{refused: number, expired: number}} o.counters incremented here
 * @param {() => number} [o.now] lib/core/clock.js time (tests pass their own)
 * @returns {{add: Function, dropExpired: Function, refuseAll: Function, takeJob: Function,
 *   readonly length: number}}
 */
function createWriteQueue(o) {
  const now = o.now || (() => clock.now());
  const writes = [];
  return {
    get length() { return writes.length; },

    /**
     * Queue one write.
     * @param {Array<{addr: string, value: *}>} items
     * @param {{independent?: boolean, deadline?: number}} opts see createS7Connection's write()
     * @param {() => void} resolve called once the whole write is done
     * @param {(err: Error) => void} reject called once if it is not
     * @returns {boolean} false when the queue is full (reject was called with E_BUSY)
     */
    add(items, opts, resolve, reject) {
      if (writes.length >= o.maxWrites) {
        o.counters.refused += 1;
        reject(s7Error('E_BUSY', `${writes.length} writes already waiting`));
        return false;
      }
      const independent = opts.independent === true;
      const deadline = typeof opts.deadline === 'number' ? opts.deadline : undefined;
      if (items.length <= o.maxBatchItems) {
        writes.push({ items, resolve, reject, independent, deadline });
        return true;
      }
      const parts = [];
      for (let i = 0; i < items.length; i += o.maxBatchItems) {
        const part = items.slice(i, i + o.maxBatchItems);
        parts.push(new Promise((res, rej) => writes.push({ items: part, resolve: res, reject: rej, independent, deadline })));
      }
      Promise.all(parts).then(() => resolve(), reject);
      return true;
    },

    /** Reject the writes whose deadline has passed: the job about to go out must not hold them. */
    dropExpired() {
      const t = now();
      let kept = 0;
      for (const w of writes) {
        if (w.deadline !== undefined && t >= w.deadline) {
          o.counters.expired += 1;
          w.reject(s7Error('E_EXPIRED', `deadline passed ${Math.round(t - w.deadline)} ms before its turn in the write queue: not written`));
        } else {
          writes[kept++] = w;
        }
      }
      writes.length = kept;
    },

    /** Reject every waiting write: the connection they were waiting for is gone (`why`). */
    refuseAll(why) {
      while (writes.length) {
        o.counters.refused += 1;
        writes.shift().reject(s7Error('E_PLC_DOWN', `PLC connection lost before the write: ${why.message}`));
      }
    },

    /**
     * Take the next job out of the queue (which must not be empty).
     * @param {number} maxPdu bytes one request may carry (the negotiated PDU size)
     * @returns {{items: Array<{addr:string, value:*}>, resolve(): void, reject(err: Error): void,
     *   merged?: number}} merged: how many writes went into it, when more than one write or part
     */
    takeJob(maxPdu) {
      const { ops, items } = takeBatch(writes, { maxItems: o.maxBatchItems, maxPdu });
      if (ops.length === 1 && items.length === ops[0].items.length) return ops[0];
      return {
        items,
        resolve: () => { for (const op of ops) op.resolve(); },
        reject: (err) => { for (const op of ops) op.reject(err); },
        merged: ops.length,
      };
    },
  };
}

module.exports = { createWriteQueue };
