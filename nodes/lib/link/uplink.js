'use strict';
/**
 * What the edge sends to the cloud, across the link's drops (lib/link/dialer.js dials):
 *
 * - while the link is up, frames go out at once, or wait in a bounded outbox (lib/link/outbox.js)
 *   while the connection is congested;
 * - while it is down, state frames coalesce into one pending state (latest value per tag,
 *   bounded); other frames (acks, errors) are dropped and counted, because their sender has timed
 *   out long before the link is back and a late ack would be a lie about timing;
 * - with a journal (lib/link/journal.js: store and forward), every state frame of that time also
 *   goes into it, whole, with its edge timestamp and that time on the cloud's clock (`cloudTime`),
 *   for lib/link/forwarder.js to send as backfill after the reconnect;
 * - a link that dies silently (a black hole) is found only after the heartbeat's timeout, and the
 *   states written on it meanwhile are lost with it. So the states written on a link are kept
 *   (bounded, `maxUnconfirmed`) until the cloud has surely read them: a `sync` written after a
 *   state reaches the cloud after it, so the answer to that sync confirms it (`confirm`). Those
 *   still unconfirmed when the link drops go into the journal, marked with the frame they were
 *   (`of`: the cloud may have it and then files it once);
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
 * @param {object} o.counters the dialer's: framesOut, bytesOut, coalesced, dropped, queueDepth, and
 *   with a journal its `backfill` group (unconfirmed, unconfirmedJournalled, unconfirmedDropped)
 * @param {object} [o.journal] lib/link/journal.js: store and forward (none: states of an outage coalesce only)
 * @param {(ts: number) => number|null} [o.cloudTime] an edge timestamp on the cloud's clock now, or null
 * @param {() => number} [o.mark] the number of the newest sync made so far (the dialer's sender's seq)
 * @param {number} [o.maxUnconfirmed] states kept until confirmed (default 10,000; past it the oldest
 *   are forgotten and counted)
 */
function createUplink(o) {
  const { counters } = o;
  const outbox = createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags });
  const journal = o.journal || null;
  const maxUnconfirmed = o.maxUnconfirmed || 10000;
  let conn = null;
  let drainTimer = null;
  let snapTimer = null;
  let awaitingSnap = false;
  // States sent on this link and not yet confirmed, oldest first: {env, mark} where mark is the
  // newest sync made before the state was written (Infinity while it waits in the outbox).
  let unconfirmed = [];
  let unwritten = 0; // entries at the end of `unconfirmed` not written yet
  // A snapshot has gone out on this link (or snapWaitMs passed without one): the live view has the
  // present, and backfill may follow.
  let snapThrough = false;
  let throughTimer = null;

  const isOpen = () => Boolean(conn && conn.open);
  const canWrite = () => isOpen() && conn.buffered <= o.highWaterBytes;
  const isState = (env) => (env.k === 'state' || env.k === 'snap') && Boolean(env.d);

  /** A state into the journal, whole, with its time on the cloud's clock now (if known). */
  function journalState(env, of) {
    const ct = o.cloudTime ? o.cloudTime(env.ts) : null;
    journal.append({ ts: env.ts, ct, d: env.d, ...(of ? { of } : {}) });
  }

  function keepUnconfirmed(env) {
    if (unconfirmed.length >= maxUnconfirmed) {
      const gone = unconfirmed.shift();
      if (gone.mark === Infinity) unwritten -= 1;
      counters.backfill.unconfirmedDropped += 1;
    }
    unconfirmed.push({ env, mark: Infinity });
    unwritten += 1;
    counters.backfill.unconfirmed = unconfirmed.length;
  }

  function write(env) {
    const t = conn.codec ? conn.codec.encode(env) : envelope.stringify(env);
    conn.send(t);
    counters.framesOut += 1;
    counters.bytesOut += t.length;
    if (env.k === 'snap') snapThrough = true;
    // A state written carries every state sent before it (merged into it, or written earlier).
    if (journal && unwritten && isState(env)) {
      const m = o.mark();
      for (let i = unconfirmed.length - unwritten; i < unconfirmed.length; i++) unconfirmed[i].mark = m;
      unwritten = 0;
    }
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
    clearTimeout(throughTimer); throughTimer = null;
    awaitingSnap = false;
    snapThrough = false;
    // What the cloud may not have read goes into the journal, oldest first, before anything the
    // outage brings.
    if (journal) {
      for (const u of unconfirmed) journalState(u.env, { src: u.env.src, seq: u.env.seq });
      counters.backfill.unconfirmedJournalled += unconfirmed.length;
    }
    unconfirmed = [];
    unwritten = 0;
    if (journal) counters.backfill.unconfirmed = 0;
  }

  return {
    /** A pending state waits for a snapshot now (after a reconnect). */
    get awaitingSnap() { return awaitingSnap; },
    /** The link is up and nothing live waits (a snapshot is through, the outbox empty): backfill may go. */
    get idle() { return isOpen() && snapThrough && !awaitingSnap && outbox.empty; },
    /**
     * The cloud answered sync `seq`: it has read every state written before that sync.
     * @param {number} seq
     */
    confirm(seq) {
      let n = 0;
      while (n < unconfirmed.length && unconfirmed[n].mark < seq) n += 1;
      if (n) unconfirmed = unconfirmed.slice(n);
      if (journal) counters.backfill.unconfirmed = unconfirmed.length;
    },
    /**
     * The link is up on `c`: hold the pending state until the snapshot the flow is about to send
     * (and backfill until a snapshot, or snapWaitMs, has passed).
     * @param {object} c the connection (lib/link/ws-transport.js)
     */
    attach(c) {
      conn = c;
      snapThrough = false;
      clearTimeout(throughTimer);
      throughTimer = setTimeout(() => { snapThrough = true; }, o.snapWaitMs);
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
        if (isState(env)) {
          if (journal) journalState(env);
          queue(env);
          return 'queued';
        }
        counters.dropped += 1;
        return 'dropped';
      }
      if (journal && isState(env)) keepUnconfirmed(env);
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
    /** Stop for good: forget what waits (states not yet confirmed go into the journal). */
    close() {
      detach();
      outbox.clear();
    },
  };
}

module.exports = { createUplink };
