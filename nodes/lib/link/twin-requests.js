'use strict';
/**
 * The requests twins sent through the twin endpoint and not answered yet: which connection each
 * one's answer goes back to. Two twins with one sender id (two connections, by mistake, or one
 * twin restarted while its old request is still on its way) would otherwise receive each other's
 * answers: an answer goes to the connection its request came on, found by (plant, src, seq), and
 * to nobody if that connection is gone (the endpoint counts it `unroutable`).
 *
 * A second request with the (plant, src, seq) of one still in flight cannot be told apart from it
 * downstream (the edge answers by ref): it is refused at once (E_DUPLICATE), never relayed and
 * never lost without an answer.
 *
 * Bounded: an entry lives until its answer, or until its request's answer can no longer come (its
 * deadline plus `holdMs`); at most `maxEntries` wait, more are refused (E_BUSY).
 *
 * Plain module; lib/link/twin-endpoint.js keeps one.
 */
const clock = require('../core/clock');

const DEFAULTS = {
  // Past a request's deadline, how long its answer may still come: the edge endpoint answers by
  // the deadline plus its grace (250 ms), a fleet's origin plus one more hop (250 ms), a probe
  // after the edge's wait for its slot (5 s), and the flow between takes its time too.
  holdMs: 7000,
  maxEntries: 100000,
};

const keyOf = (plant, src, seq) => `${plant}\u0000${src}\u0000${seq}`;

/**
 * @param {object} [o] see DEFAULTS
 * @param {() => number} [o.now] lib/core/clock.js now
 * @returns {{hold(plant, env, peerId): 'held'|'duplicate'|'full', take(plant, ref): string|undefined, readonly size: number}}
 */
function createTwinRequests(o = {}) {
  const cfg = { ...DEFAULTS, ...o };
  const now = cfg.now || clock.now;
  const entries = new Map(); // key -> {peer, until} (insertion order: oldest first)

  /** Forget requests whose answer can no longer come (the oldest first; stops at the first alive). */
  function sweep(t) {
    for (const [key, e] of entries) {
      if (e.until > t) break;
      entries.delete(key);
    }
  }

  return {
    /**
     * A twin's request passes on from peer `peerId`.
     * @param {string} plant
     * @param {{src: string, seq: number, dl: number}} env its deadline set already
     * @param {string} peerId
     * @returns {'held'|'duplicate'|'full'}
     */
    hold(plant, env, peerId) {
      const t = now();
      sweep(t);
      const key = keyOf(plant, env.src, env.seq);
      const cur = entries.get(key);
      if (cur && cur.until > t) return 'duplicate';
      if (entries.size >= cfg.maxEntries) return 'full';
      entries.delete(key);
      entries.set(key, { peer: peerId, until: (Number.isFinite(env.dl) ? env.dl : t) + cfg.holdMs });
      return 'held';
    },
    /**
     * The answer to (plant, ref) goes out: the id of the peer that asked (now forgotten), if held.
     * @returns {string|undefined}
     */
    take(plant, ref) {
      const key = keyOf(plant, ref.src, ref.seq);
      const e = entries.get(key);
      if (!e) return undefined;
      entries.delete(key);
      return e.peer;
    },
    get size() { return entries.size; },
  };
}

module.exports = { createTwinRequests, DEFAULTS };
