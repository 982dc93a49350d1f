'use strict';
/**
 * The edge's S7 writes waiting for their turn: which are let in, which are dropped before they go
 * out, and which go out together as the next job. No I/O and no nodes7: the session
 * (lib/s7/session.js) hands each job to the PLC, so what is written is decided here and only here.
 *
 * - A full queue refuses at once with E_BUSY (memory stays bounded while the PLC is slow).
 * - A write larger than one job (only probe frames carrying many slots get there) is queued in
 *   parts of at most `maxBatchItems` items, each its own job with its own deadline check; the
 *   whole resolves when every part did, and is answered once, after every part settled: a failure
 *   says which items were written (`err.written`), since some parts may have gone out.
 * - A write whose deadline (lib/core/clock.js time) has passed, or will have before its request
 *   can reach the PLC (`transitMs`), is rejected with E_EXPIRED and never sent: the sender has
 *   given up on it, and a late command is worse than none. It is checked when its turn comes and
 *   again right before the job's bytes go out (lib/s7/session.js; a job refused there goes back
 *   to the head of the queue without the writes that are now late).
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
 * @param {number} [o.transitMs] a write must reach the PLC before its deadline: this long is
 *   allowed for the request's way there (default 0)
 * @param {{refused: number, expired: number}} o.counters incremented here
 * @param {() => number} [o.now] lib/core/clock.js time (tests pass their own)
 * @returns {{add: Function, dropExpired: Function, refuseAll: Function, takeJob: Function,
 *   late: Function, putBack: Function, readonly length: number}}
 */
function createWriteQueue(o) {
  const now = o.now || (() => clock.now());
  const transitMs = o.transitMs || 0;
  const writes = [];
  /** Is `w` too late to be sent at time `t` (its deadline reached before it could land)? */
  const tooLate = (w, t) => w.deadline !== undefined && t + transitMs >= w.deadline;
  const expire = (w, t, when) => {
    o.counters.expired += 1;
    const left = w.deadline - t;
    const why = left > 0
      ? `its deadline was ${Math.round(left)} ms away, less than the ${transitMs} ms its request needs to reach the PLC,`
      : `its deadline had passed ${Math.round(-left)} ms before`;
    w.reject(s7Error('E_EXPIRED', `${why} ${when}: not written`));
  };
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
      Promise.allSettled(parts).then((results) => {
        const failed = results.find((r) => r.status === 'rejected');
        if (!failed) { resolve(); return; }
        const written = [];
        results.forEach((r, i) => { if (r.status === 'fulfilled') written.push(...items.slice(i * o.maxBatchItems, (i + 1) * o.maxBatchItems)); });
        const err = failed.reason;
        reject(Object.assign(s7Error(err.code, `${written.length} of ${items.length} items were written; the others not: ${err.message}`), { written }));
      });
      return true;
    },

    /** Reject the writes too late to be sent now: the job about to go out must not hold them. */
    dropExpired() {
      const t = now();
      let kept = 0;
      for (const w of writes) {
        if (tooLate(w, t)) expire(w, t, 'at its turn in the write queue');
        else writes[kept++] = w;
      }
      writes.length = kept;
    },

    /** Would `job` (takeJob's) land too late if its bytes went out now? Asked right before they do. */
    late(job) {
      const t = now();
      return job.ops.some((w) => tooLate(w, t));
    },

    /**
     * A job that did not go out (its last check said too late): the writes that are too late now
     * are rejected E_EXPIRED, the others go back to the head of the queue, in their order.
     */
    putBack(job) {
      const t = now();
      const kept = [];
      for (const w of job.ops) {
        if (tooLate(w, t)) expire(w, t, 'as its request was about to go out');
        else kept.push(w);
      }
      writes.unshift(...kept);
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
     *   ops: object[], merged?: number}} ops: the writes in it (late(), putBack()); merged: how
     *   many writes went into it, when more than one write or part
     */
    takeJob(maxPdu) {
      const { ops, items } = takeBatch(writes, { maxItems: o.maxBatchItems, maxPdu });
      if (ops.length === 1 && items.length === ops[0].items.length) {
        const op = ops[0];
        return { items: op.items, resolve: op.resolve, reject: op.reject, ops };
      }
      return {
        items,
        resolve: () => { for (const op of ops) op.resolve(); },
        reject: (err) => { for (const op of ops) op.reject(err); },
        ops,
        merged: ops.length,
      };
    },
  };
}

module.exports = { createWriteQueue };
