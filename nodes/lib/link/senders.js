'use strict';
/**
 * The senders heard on one link endpoint: duplicate and gap tracking of every frame, per plant
 * and sender id (twins of two plants may use the same sender id), and which peer speaks for each
 * sender, so that an answer goes back to the connection its request came on.
 *
 * Plain module; lib/link/endpoint-core.js keeps one per endpoint.
 */
const envelope = require('../core/envelope');
const { trackFrame } = require('./frame');

/** The key of a sender on an endpoint: its plant and its id. */
const senderKey = (plant, src) => `${plant}\u0000${src}`;

/**
 * @param {object} [o]
 * @param {object} [o.counters] counts `duplicates` and `gaps` here too (the endpoint's counters)
 * @returns {object}
 */
function createSenders(o = {}) {
  const counters = o.counters || { duplicates: 0, gaps: 0 };
  const tracker = envelope.createTracker();
  const owners = new Map(); // sender key -> peer id

  return {
    tracker,
    /**
     * A frame arrived from `peer`: a duplicate (seq not above the sender's last), or new (gaps
     * counted); the peer now speaks for its sender.
     * @param {{id: string, plant: string, srcs: Set<string>}} peer
     * @param {{src: string, seq: number}} env
     * @returns {'accept'|'duplicate'}
     */
    accept(peer, env) {
      const key = senderKey(peer.plant, env.src);
      if (trackFrame(tracker, key, env.seq, counters) === 'duplicate') return 'duplicate';
      if (owners.get(key) !== peer.id) {
        owners.set(key, peer.id);
        peer.srcs.add(key);
      }
      return 'accept';
    },
    /** The id of the peer that speaks for sender `src` of `plant`, if any. */
    ownerOf: (plant, src) => owners.get(senderKey(plant, src)),
    /**
     * The peer is gone: its senders start afresh. No peer replays frames over a new connection,
     * and a process that restarted numbers from 1 again (or from wherever its sender got to
     * meanwhile).
     * @param {{id: string, srcs: Set<string>}} peer
     */
    forget(peer) {
      for (const key of peer.srcs) {
        if (owners.get(key) !== peer.id) continue;
        owners.delete(key);
        tracker.forget(key);
      }
    },
  };
}

module.exports = { createSenders, senderKey };
