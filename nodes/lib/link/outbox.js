'use strict';
/**
 * A bounded outbox for one WebSocket peer: what cannot be written now waits here, and waits in
 * bounded memory whatever the producer does.
 *
 * - state and snap frames coalesce into ONE pending plant-state entry holding the latest value
 *   of every tag (a snap merged in turns the entry into a snap), so 10,000 state frames sent to a
 *   stalled twin cost one entry of at most `maxTags` keys; the entry takes the newest frame's
 *   header and moves to the end of the queue, so what one sender sent stays in seq order;
 * - other frames (ack, err, probe, probe-res, cmd) queue in order up to `maxFrames`; past that the
 *   oldest is dropped and counted (they are answers whose sender has long timed out by then).
 *
 * The caller decides when the peer can take more (socket bufferedAmount below its high-water
 * mark, or connected at all) and calls flush().
 */

const DEFAULTS = {
  maxFrames: 1000, // queued non-state frames per peer
  maxTags: 4096, // distinct keys in the pending state entry
};

const STATE_KINDS = new Set(['state', 'snap']);

/**
 * @param {object} [opts] see DEFAULTS
 */
function createOutbox(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  /** @type {object[]} ordered entries; at most one of them is the coalesced state entry */
  let queue = [];
  let stateEntry = null; // the envelope object inside `queue` that state frames merge into
  let stateKeys = 0;
  const stats = { queued: 0, coalesced: 0, dropped: 0, droppedTags: 0, flushed: 0 };

  function mergeState(env) {
    if (!stateEntry) {
      stateEntry = { ...env, d: { ...env.d } };
      stateKeys = Object.keys(stateEntry.d).length;
      if (stateKeys > o.maxTags) {
        // A single frame cannot be bigger than the frame size limit, but be safe anyway.
        const keep = Object.keys(stateEntry.d).slice(0, o.maxTags);
        stats.droppedTags += stateKeys - o.maxTags;
        stateEntry.d = Object.fromEntries(keep.map((k) => [k, env.d[k]]));
        stateKeys = o.maxTags;
      }
      queue.push(stateEntry);
      stats.queued += 1;
      return;
    }
    stats.coalesced += 1;
    for (const [k, v] of Object.entries(env.d)) {
      if (!(k in stateEntry.d)) {
        if (stateKeys >= o.maxTags) { stats.droppedTags += 1; continue; }
        stateKeys += 1;
      }
      stateEntry.d[k] = v;
    }
    // The merged frame carries the newest header: receivers see a gap in seq (they are told
    // frames were merged) and the newest timestamp.
    const kind = stateEntry.k === 'snap' || env.k === 'snap' ? 'snap' : 'state';
    Object.assign(stateEntry, { ...env, k: kind, d: stateEntry.d });
    // It now carries the newest seq, so it moves behind every frame queued before it: a receiver
    // that drops frames whose seq is not above the last one seen must get them in seq order.
    if (queue[queue.length - 1] !== stateEntry) {
      queue.splice(queue.indexOf(stateEntry), 1);
      queue.push(stateEntry);
    }
  }

  return {
    stats,
    /** Entries waiting (the coalesced state counts as one). */
    get depth() { return queue.length; },
    get empty() { return queue.length === 0; },
    /** Keys held by the pending state entry. */
    get pendingTags() { return stateEntry ? stateKeys : 0; },
    /** The pending coalesced state entry, if any (read-only use). */
    get pendingState() { return stateEntry; },

    /**
     * Queue one envelope (coalescing state/snap).
     * @param {object} env a valid envelope
     */
    push(env) {
      if (STATE_KINDS.has(env.k) && env.d) {
        mergeState(env);
        return;
      }
      if (queue.length - (stateEntry ? 1 : 0) >= o.maxFrames) {
        const i = queue.findIndex((e) => e !== stateEntry);
        queue.splice(i, 1);
        stats.dropped += 1;
      }
      queue.push(env);
      stats.queued += 1;
    },

    /**
     * Take the pending state entry out of the queue (to merge it into a fresher snapshot).
     * @returns {object|null}
     */
    takeState() {
      if (!stateEntry) return null;
      const e = stateEntry;
      queue = queue.filter((x) => x !== e);
      stateEntry = null;
      stateKeys = 0;
      return e;
    },

    /**
     * Write entries in order while `canWrite()` holds.
     * @param {(env: object) => void} write
     * @param {() => boolean} canWrite
     * @returns {number} entries written
     */
    flush(write, canWrite) {
      let n = 0;
      while (queue.length && canWrite()) {
        const env = queue.shift();
        if (env === stateEntry) { stateEntry = null; stateKeys = 0; }
        write(env);
        n += 1;
      }
      stats.flushed += n;
      return n;
    },

    /** Forget everything (peer gone). @returns {number} entries discarded */
    clear() {
      const n = queue.length;
      queue = [];
      stateEntry = null;
      stateKeys = 0;
      return n;
    },
  };
}

module.exports = { DEFAULTS, createOutbox };
