'use strict';
/**
 * After a reconnect, the edge's journal (lib/link/journal.js) goes to the cloud in order, as
 * `backfill` frames (lib/core/envelope.js), beside the live stream and never in its way:
 *
 * - it starts once the live side is through its reconnect (the snapshot sent, nothing waiting in
 *   the outbox: `ready()`) and the link's clock-offset estimate is known (a record journalled
 *   without one gets its time on the cloud's clock from the estimate now);
 * - paced: at most `window` frames unanswered, at most `burst` frames a turn every `pollMs`, and
 *   only while the connection holds less than `highWaterBytes` unsent, a quarter of the outbox's
 *   high-water mark, so a live frame never waits in the outbox because of backfill;
 * - each record's time on the cloud's clock keeps the journal's order (`cloudTime`): the offset
 *   estimate moves between syncs and connections, and the history files by that time;
 * - the cloud answers with `backfill-res` naming the newest record it has dealt with (filed, found
 *   filed already, or refused): the journal drops its records up to there, never before. When the
 *   link drops again mid-forward, what was sent and not answered is sent again on the next link,
 *   from the journal; the cloud files a record once (lib/link/backfill-intake.js);
 * - an `err` about one record (its values refused by the plant's table) is counted (`refused`),
 *   and the next answer covers it; `E_KIND` (a cloud that does not know backfill) or
 *   `E_NO_HISTORY` (a cloud without a plant history) pauses forwarding until the next connection,
 *   and the journal keeps its records (bounded);
 * - `E_HISTORY_STORE` (the cloud's history failed to file a record; it answers nothing after it):
 *   counted (`retries`), and after `retryMs` the forward starts again from the newest record
 *   answered, on the same connection, with that record alone until it is answered (a history that
 *   is still failing costs one frame a try, not a window of them);
 * - the first frame of a connection goes alone, the rest after its answer: a cloud of a version
 *   before backfill refuses an unknown kind with E_SCHEMA, charged to the edge's error budget, and
 *   one refusal a connection never trips it (a burst of 200 would cut the link).
 *
 * Plain module (timers only); lib/link/dialer.js keeps one when it has a journal.
 */
const envelope = require('../core/envelope');

const DEFAULTS = {
  window: 2000, // frames sent and not answered yet
  burst: 200, // frames sent per turn
  pollMs: 10, // a turn this often while there is something to send
  highWaterBytes: 64 * 1024, // the connection's unsent bytes below which backfill may be written
  retryMs: 5000, // after the cloud's history failed to file a record, forward again this much later
};
/** Answers after which the cloud will file nothing on this connection. */
const PAUSE_CODES = new Set(['E_KIND', 'E_NO_HISTORY']);

/**
 * @param {object} o DEFAULTS plus:
 * @param {object} o.journal lib/link/journal.js
 * @param {object} o.counters where the forward's counters go (the dialer's `backfill`)
 * @param {(c: object, env: object) => number} o.write send one frame on connection c; returns its bytes
 * @param {() => boolean} o.ready the live side is through its reconnect (snapshot sent, outbox empty)
 * @param {() => number|null} o.offset the clock-offset estimate now (cloud − edge, ms), or null
 * @param {(code: string, msg: string) => void} [o.onPause] the cloud will not take backfill now
 */
function createForwarder(o) {
  const cfg = { ...DEFAULTS, ...o };
  const { journal, counters } = o;
  const src = journal.src;
  let conn = null;
  let timer = null;
  let after = 0; // the newest record sent on this connection
  let paused = false;
  let heard = false; // a backfill-res came on this connection: more than one frame may be out
  let retry = null; // the timer of a forward started again after E_HISTORY_STORE
  const unanswered = []; // record numbers sent on this connection, oldest first
  const madeCt = new Map(); // record number → the time on the cloud's clock it went with, till answered
  let newest = null; // {j, ts, ct} of the newest record sent so far

  const stop = () => { clearInterval(timer); timer = null; };
  const stopRetry = () => { clearTimeout(retry); retry = null; };

  /**
   * A record's time on the cloud's clock: as journalled, else from the estimate now. The history
   * files by that time, so records whose edge times are in order keep their order there: the
   * estimate moves between syncs and connections (a few ms), and a record sent later never goes
   * before the one sent before it; a record sent again after a drop goes with its first time.
   */
  function cloudTime(r, offset) {
    if (madeCt.has(r.j)) return madeCt.get(r.j);
    let ct = Number.isFinite(r.ct) ? r.ct : (offset === null ? null : Math.round(r.ts + offset));
    if (ct === null) return null;
    if (newest && r.j > newest.j && r.ts >= newest.ts && ct < newest.ct) ct = newest.ct;
    madeCt.set(r.j, ct);
    if (!newest || r.j > newest.j) newest = { j: r.j, ts: r.ts, ct };
    return ct;
  }

  /** One backfill frame of a record, with its time on the cloud's clock (cloudTime). */
  function frameOf(r, offset) {
    const env = { v: envelope.VERSION, k: 'backfill', src, seq: r.j, ts: r.ts, d: r.d };
    const ct = cloudTime(r, offset);
    if (ct !== null) env.ct = ct;
    if (r.of) env.of = r.of;
    return env;
  }

  function turn() {
    if (!conn || !conn.open || paused || retry) return;
    if (!o.ready()) return;
    const offset = o.offset();
    if (offset === null) return; // the first sync's answer is a round trip away
    const window = heard ? cfg.window : 1;
    let sent = 0;
    while (sent < cfg.burst && unanswered.length < window && conn.buffered <= cfg.highWaterBytes) {
      const recs = journal.read(after, Math.min(cfg.burst - sent, window - unanswered.length));
      if (!recs.length) break;
      for (const r of recs) {
        try {
          counters.bytes += o.write(conn, frameOf(r, offset));
        } catch {
          return; // closing: the next connection sends it again
        }
        after = r.j;
        unanswered.push(r.j);
        sent += 1;
        counters.sent += 1;
      }
    }
    counters.inflight = unanswered.length;
    if (!unanswered.length && journal.pending === 0) stop();
  }

  function start() {
    if (timer || !conn || paused || retry) return;
    timer = setInterval(turn, cfg.pollMs);
    timer.unref?.();
    turn();
  }

  return {
    src,
    /**
     * The link is up on `c`: forward what the journal holds, from the newest record answered.
     * @param {object} c the connection (lib/link/ws-transport.js)
     */
    attach(c) {
      conn = c;
      after = journal.acked;
      unanswered.length = 0;
      paused = false;
      heard = false;
      stopRetry();
      counters.inflight = 0;
      if (journal.pending > 0) start();
    },
    /** The link is down: what was sent and not answered goes again on the next one. */
    detach() {
      conn = null;
      stop();
      stopRetry();
      unanswered.length = 0;
      counters.inflight = 0;
    },
    /**
     * A frame from the cloud about backfill: `backfill-res`, or an `err` about one of its records.
     * @param {object} env
     * @returns {boolean} it was one (not for the flow)
     */
    take(env) {
      if (!env.ref || env.ref.src !== src) return false;
      if (env.k === 'backfill-res') {
        const j = env.ref.seq;
        journal.ack(j);
        for (const k of madeCt.keys()) if (k <= j) madeCt.delete(k);
        heard = true;
        while (unanswered.length && unanswered[0] <= j) unanswered.shift();
        counters.answered += 1;
        counters.inflight = unanswered.length;
        if (conn && !timer && journal.pending > 0) start();
        return true;
      }
      if (env.k !== 'err') return false;
      const code = env.e && env.e.code;
      if (PAUSE_CODES.has(code)) {
        if (!paused) {
          paused = true;
          counters.paused += 1;
          stop();
          if (o.onPause) o.onPause(code, env.e.msg || '');
        }
      } else if (code === 'E_HISTORY_STORE') {
        if (!retry) {
          counters.retries += 1;
          stop();
          retry = setTimeout(() => {
            retry = null;
            // From the newest record answered (answers sent before the failure have come by now).
            after = journal.acked;
            unanswered.length = 0;
            heard = false;
            counters.inflight = 0;
            if (conn && journal.pending > 0) start();
          }, cfg.retryMs);
          retry.unref?.();
        }
      } else {
        counters.refused += 1;
      }
      return true;
    },
    /** Stop for good (the journal stays with its owner). */
    close() { conn = null; stop(); stopRetry(); },
  };
}

module.exports = { DEFAULTS, PAUSE_CODES, createForwarder };
