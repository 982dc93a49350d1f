'use strict';
/**
 * The senders heard on one link endpoint: duplicate and gap tracking of every frame, per
 * connection and sender id. Two twins with one id (two plants', or one plant's by mistake, or one
 * twin restarted before its old connection was gone) number their frames independently, so a
 * connection's frames are judged against its own numbers only; where an answer goes is the
 * role's (lib/link/twin-requests.js), never "whoever spoke for that id last".
 *
 * Memory is bounded: each connection remembers at most `maxSenders` ids (the least recently heard
 * forgotten first), and all of it goes with the connection.
 *
 * Plain module; lib/link/endpoint-core.js keeps one per endpoint.
 */
const envelope = require('../core/envelope');
const { trackFrame } = require('./frame');

const DEFAULTS = {
  maxSenders: 256, // sender ids remembered per connection (a load generator's connection speaks for one)
};

/**
 * @param {object} [o] see DEFAULTS
 * @param {object} [o.counters] counts `duplicates` and `gaps` here too (the endpoint's counters)
 * @returns {object}
 */
function createSenders(o = {}) {
  const cfg = { ...DEFAULTS, ...o };
  const counters = cfg.counters || { duplicates: 0, gaps: 0 };
  const trackers = new WeakMap(); // peer -> its tracker
  const stats = { restarts: 0 };

  return {
    /** Counters over every connection: restarts (a sender that numbered from 1 again). */
    stats,
    /**
     * A frame arrived from `peer`: a duplicate (seq not above its sender's last on this
     * connection), or new (gaps counted).
     * @param {object} peer
     * @param {{src: string, seq: number}} env
     * @returns {'accept'|'duplicate'}
     */
    accept(peer, env) {
      let tracker = trackers.get(peer);
      if (!tracker) { tracker = envelope.createTracker({ maxSenders: cfg.maxSenders }); trackers.set(peer, tracker); }
      const restarts = tracker.stats.restarts;
      const verdict = trackFrame(tracker, env.src, env.seq, counters);
      stats.restarts += tracker.stats.restarts - restarts;
      return verdict;
    },
    /** Sender ids the peer's connection remembers (at most maxSenders). */
    heard: (peer) => (trackers.has(peer) ? trackers.get(peer).size : 0),
    /** The peer is gone: what it numbered goes with it. */
    forget(peer) { trackers.delete(peer); },
  };
}

module.exports = { createSenders, DEFAULTS };
