'use strict';
/**
 * What the edge sends to the cloud, across the link's drops (lib/link/dialer.js dials):
 *
 * - while the link is up, frames go out at once, or wait in a bounded outbox (lib/link/outbox.js)
 *   while the connection is congested;
 * - while it is down, state frames coalesce into one pending state (latest value per tag,
 *   bounded); other frames (acks, errors) are dropped and counted, because their sender has timed
 *   out long before the link is back and a late ack would be a lie about timing;
 * - after a reconnect the pending state waits for the first snapshot the flow sends (the dialer's
 *   `connect` event asks for one) and is merged UNDER it (the snapshot's values are newer and win;
 *   pending tags it does not cover ride along in the same frame); if no snapshot comes within
 *   snapWaitMs the pending state is sent alone.
 *
 * Plain module (timers only); lib/link/dialer.js keeps one.
 */
const envelope = require('../core/envelope');
const { createOutbox } = require('./outbox');

/**
 * @param {object} o
 * @param {number} o.maxFrames outbox: queued non-state frames
 * @param {number} o.maxTags outbox: tags in the pending state
 * @param {number} o.highWaterBytes connection buffer above which frames wait in the outbox
 * @param {number} o.drainPollMs how often a congested link is looked at again
 * @param {number} o.snapWaitMs after a reconnect, how long the pending state waits for a snapshot
 * @param {object} o.counters the dialer's: framesOut, bytesOut, coalesced, dropped, queueDepth
 */
function createUplink(o) {
  const { counters } = o;
  const outbox = createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags });
  let conn = null;
  let drainTimer = null;
  let snapTimer = null;
  let awaitingSnap = false;

  const isOpen = () => Boolean(conn && conn.open);
  const canWrite = () => isOpen() && conn.buffered <= o.highWaterBytes;

  function write(env) {
    const t = conn.codec ? conn.codec.encode(env) : envelope.stringify(env);
    conn.send(t);
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  function flush() {
    if (!canWrite() || awaitingSnap) return;
    outbox.flush(write, canWrite);
    counters.queueDepth = outbox.depth;
    if (!outbox.empty && !drainTimer) {
      drainTimer = setInterval(() => {
        if (canWrite()) outbox.flush(write, canWrite);
        counters.queueDepth = outbox.depth;
        if (outbox.empty) { clearInterval(drainTimer); drainTimer = null; }
      }, o.drainPollMs);
    }
  }

  function queue(env) {
    const c = outbox.stats.coalesced;
    const d = outbox.stats.dropped;
    outbox.push(env);
    counters.coalesced += outbox.stats.coalesced - c;
    counters.dropped += outbox.stats.dropped - d;
    counters.queueDepth = outbox.depth;
  }

  function detach() {
    conn = null;
    clearInterval(drainTimer); drainTimer = null;
    clearTimeout(snapTimer); snapTimer = null;
    awaitingSnap = false;
  }

  return {
    /** A pending state waits for a snapshot now (after a reconnect). */
    get awaitingSnap() { return awaitingSnap; },
    /**
     * The link is up on `c`: hold the pending state until the snapshot the flow is about to send.
     * @param {object} c the connection (lib/link/ws-transport.js)
     */
    attach(c) {
      conn = c;
      if (outbox.empty) return;
      awaitingSnap = true;
      clearTimeout(snapTimer);
      snapTimer = setTimeout(() => { awaitingSnap = false; flush(); }, o.snapWaitMs);
    },
    /** The link is down: what waits stays (bounded) for the next one. */
    detach,
    /**
     * Send one envelope to the cloud (or coalesce/drop it while the link is down; see header).
     * @param {object} env a valid envelope
     * @returns {'sent'|'queued'|'dropped'}
     */
    send(env) {
      if (!isOpen()) {
        if ((env.k === 'state' || env.k === 'snap') && env.d) { queue(env); return 'queued'; }
        counters.dropped += 1;
        return 'dropped';
      }
      if (awaitingSnap && env.k === 'snap') {
        // The snapshot is newer than anything pending: pending values go UNDER it (the snapshot's
        // values win), in the snapshot's frame. A separate frame after it would carry an older seq
        // and be dropped as a duplicate by the receiver.
        const pending = outbox.takeState();
        awaitingSnap = false;
        clearTimeout(snapTimer); snapTimer = null;
        const merged = pending ? { ...env, d: { ...pending.d, ...env.d } } : env;
        if (outbox.empty && canWrite()) write(merged); else queue(merged);
        flush();
        return 'sent';
      }
      if (outbox.empty && !awaitingSnap && canWrite()) { write(env); return 'sent'; }
      queue(env);
      flush();
      return 'queued';
    },
    /** Stop for good: forget what waits. */
    close() {
      detach();
      outbox.clear();
    },
  };
}

module.exports = { createUplink };
