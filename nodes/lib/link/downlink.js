'use strict';
/**
 * What the edge takes from the cloud (lib/link/dialer.js dials): every frame read and checked
 * (lib/link/frame.js; a malformed or oversized frame is answered with an `err` envelope and
 * counted, never passed on), the cloud's own duplicates dropped and gaps counted (not the relayed
 * requests', whose numbers are their twins'), the answers to the heartbeat's
 * syncs to the clock estimate (lib/link/heartbeat.js), the answers about backfill to the
 * forwarder (lib/link/forwarder.js), the rest to the flow.
 *
 * Plain module; lib/link/dialer.js keeps one.
 */
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const { readFrame, trackFrame } = require('./frame');

/**
 * @param {object} o
 * @param {number} o.maxPayload bytes; larger frames are answered E_TOO_LARGE
 * @param {object} o.counters the dialer's: bytesIn, framesIn, tooLarge, errors, duplicates, gaps
 * @param {object} o.sender the dialer's envelope sender (its err answers)
 * @param {(env: object) => void} o.answer send an err answer to the cloud
 * @param {(env: object, arrived: number) => void} o.onSyncRes the answer to a sync
 * @param {(env: object) => boolean} [o.onControl] link control the dialer keeps (the answers about
 *   backfill, lib/link/forwarder.js): true if it took the frame
 * @param {(env: object) => void} o.onEnvelope a frame for the flow
 * @param {(err: Error) => void} o.onInvalid a frame was refused
 * @param {() => void} [o.onHeard] any frame arrived (the cloud is alive)
 */
function createDownlink(o) {
  const { counters } = o;
  const tracker = envelope.createTracker();

  function reject(err) {
    counters.errors += 1;
    o.answer(o.sender.error(err.code || 'E_SCHEMA', err.message, err.ref));
    o.onInvalid(err);
  }

  return {
    tracker,
    /**
     * A new connection: the cloud's senders' numbers do not follow on from an earlier one (a
     * restarted cloud numbers from 1, and may have used some numbers, e.g. E_EDGE_DOWN answers,
     * before this link); nothing is replayed over a new link.
     */
    reset() { tracker.reset(); },
    /** One frame from the cloud, read with the connection's codec (lib/core/codec). */
    receive(data, isBinary, codec) {
      const arrived = clock.now();
      if (o.onHeard) o.onHeard();
      counters.bytesIn += data.length;
      let env;
      try {
        env = readFrame(data, isBinary, o.maxPayload, codec || undefined);
      } catch (err) {
        if (data.length > o.maxPayload) counters.tooLarge += 1;
        reject(err);
        return;
      }
      counters.framesIn += 1;
      // A request the cloud relays carries its twin's sender id and number, not the cloud's: two
      // twins with one id on two connections number independently. The cloud holds each relayed
      // request once and refuses a second with the same number while the first is in flight
      // (E_DUPLICATE); the edge's key store writes a keyed command at most once.
      const relayed = envelope.REQUEST_KINDS.has(env.k);
      if (!relayed && trackFrame(tracker, env.src, env.seq, counters) === 'duplicate') return;
      if (env.k === 'sync-res') { o.onSyncRes(env, arrived); return; }
      if (o.onControl && o.onControl(env)) return;
      if (env.k === 'backfill-res') return; // about a journal this edge no longer has: nothing for the flow
      o.onEnvelope(env);
    },
  };
}

module.exports = { createDownlink };
