'use strict';
/**
 * The cloud's book of requests (cmd, probe) relayed to the edge and not answered yet, so that each
 * gets exactly one answer whatever happens to the link.
 *
 * - A request is held from the moment it goes to the edge until the edge's answer (ack, err,
 *   probe-res with its ref) comes back; `answer()` hands that entry out once and forgets it.
 * - An answer with no entry (it came after the request was given up, or it answers nothing this
 *   cloud sent) is not an answer to pass on: the caller counts and drops it, so a twin never gets
 *   two answers for one request.
 * - A request whose answer has not come by its deadline (plus `graceMs` for a write started just
 *   before it; probes also wait `probeAnswerMs`, the edge's own wait for the PLC's response slot)
 *   is given up: `onExpire(entry)` answers it with "outcome unknown".
 * - When the edge link drops, every request held for it is given up at once (`dropPeer`).
 *
 * Plain module (timers only); the edge endpoint's relay (lib/link/edge-relay.js) and the fleet's
 * forwarded requests (lib/fleet/requests.js) use it.
 */
const clock = require('../core/clock');

const DEFAULTS = {
  graceMs: 250, // after a command's deadline, how long its answer may still be on its way
  probeAnswerMs: 5000, // the edge waits this long for a probe's response slot (s7twin-s7 probeTimeoutMs)
  maxEntries: 100000, // requests held at once; more are refused by the caller (E_BUSY)
};

// Plant first: twins of two plants may use the same sender id.
const keyOf = (plant, src, seq) => `${plant || ''}\u0000${src}\u0000${seq}`;

/**
 * @param {object} opts see DEFAULTS
 * @param {(entry: object, why: string) => void} opts.onExpire a request given up; the entry:
 *   {src, seq, cid?, k, peer, dl, plant?, origin?}
 * @param {() => number} [opts.now] the cloud's clock (lib/core/clock.js now)
 */
function createInflight(opts) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || clock.now;
  const entries = new Map(); // key -> entry (insertion order)
  const counters = { held: 0, answered: 0, expired: 0, dropped: 0, lateAnswers: 0 };

  function expire(key, why) {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    clearTimeout(e.timer);
    o.onExpire(e, why);
  }

  return {
    counters,
    get size() { return entries.size; },
    /** Room for one more? */
    get full() { return entries.size >= o.maxEntries; },
    /**
     * Hold a request that has just been sent to `peer`.
     * @param {{k: string, src: string, seq: number, cid?: any, dl: number}} env
     * @param {string} peer
     * @param {{plant?: string, origin?: string}} [meta] the request's plant; the fleet member that
     *   forwarded it (lib/fleet/member.js), whose twin the answer goes back to
     * @returns {boolean} false if it was held already (a duplicate send: nothing changes)
     */
    add(env, peer, meta = {}) {
      const key = keyOf(meta.plant, env.src, env.seq);
      if (entries.has(key)) return false;
      const wait = Math.max(0, env.dl - now()) + o.graceMs + (env.k === 'probe' ? o.probeAnswerMs : 0);
      const e = { src: env.src, seq: env.seq, cid: env.cid, k: env.k, peer, dl: env.dl, plant: meta.plant, origin: meta.origin, timer: null };
      e.timer = setTimeout(() => {
        counters.expired += 1;
        expire(key, `no answer from the edge by the ${env.k === 'probe' ? "probe's answer time" : "command's deadline"}`);
      }, wait);
      e.timer.unref?.();
      entries.set(key, e);
      counters.held += 1;
      return true;
    },
    /**
     * An answer arrived from the edge.
     * @param {{src: string, seq: number}} ref the answered request's ref
     * @param {string} [plant] the plant it came for
     * @returns {object|null} its entry (now forgotten), or null for an answer to nothing held
     */
    answer(ref, plant) {
      const key = keyOf(plant, ref.src, ref.seq);
      const e = entries.get(key);
      if (!e) { counters.lateAnswers += 1; return null; }
      entries.delete(key);
      clearTimeout(e.timer);
      counters.answered += 1;
      return e;
    },
    /** Give up every request held for `peer` (its link dropped); onExpire is called for each. */
    dropPeer(peer, why) {
      for (const [key, e] of entries) {
        if (e.peer !== peer) continue;
        counters.dropped += 1;
        expire(key, why);
      }
    },
    /** Give up everything (the endpoint closes). */
    clear(why) {
      for (const key of [...entries.keys()]) { counters.dropped += 1; expire(key, why); }
    },
  };
}

/**
 * The answer to a request given up (its deadline passed, its link dropped): nobody knows whether
 * it was written, so the twin resyncs from the next state.
 * @param {object} sender an envelope sender (lib/core/envelope.js)
 * @param {{k: string, src: string, seq: number, cid?: any, dl?: number}} e the entry given up
 * @param {string} why
 * @returns {object} an err envelope E_OUTCOME_UNKNOWN
 */
function outcomeUnknown(sender, e, why) {
  const msg = `${e.k} ${e.src}#${e.seq}: ${why}; whether it was written is unknown (resync from the next state)`;
  return sender.error('E_OUTCOME_UNKNOWN', msg, { src: e.src, seq: e.seq }, e.cid, e.dl);
}

module.exports = { createInflight, outcomeUnknown, DEFAULTS };
