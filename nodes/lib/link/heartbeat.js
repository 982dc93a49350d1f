'use strict';
/**
 * The edge link's heartbeat: a `sync` frame every `heartbeatMs` (500 ms), answered by the cloud
 * with its receive and send times. The answers feed the clock-offset estimate (lib/core/clock.js)
 * that turns a command's deadline, set on the cloud's clock, into a conservative one on the edge's
 * own (`localDeadline`). Nothing heard from the cloud for `linkTimeoutMs` (3 s) → the connection is
 * cut (and the dialer reconnects): a black-holed link is torn down within seconds (the cloud drops
 * a silent edge on the same timeout), where TCP alone would take minutes.
 *
 * Plain module (timers only); lib/link/dialer.js keeps one.
 */
const envelope = require('../core/envelope');
const clock = require('../core/clock');

const round2 = (x) => Math.round(x * 100) / 100;

/**
 * @param {object} o
 * @param {object} o.sender the dialer's envelope sender (the sync frames)
 * @param {number} o.heartbeatMs a sync this often
 * @param {number} o.linkTimeoutMs nothing heard this long → cut the connection
 * @param {object} o.counters the dialer's: framesOut, bytesOut, timeouts, syncs, syncRttMs,
 *   offsetMs, offsetUncertaintyMs
 * @param {object} [o.clock] lib/core/clock.js createOffsetEstimator options
 */
function createHeartbeat(o) {
  const { counters } = o;
  const offset = clock.createOffsetEstimator(o.clock);
  let conn = null;
  let timer = null;
  let heardAt = 0;

  function beat() {
    if (!conn || !conn.open) return;
    if (clock.now() - heardAt > o.linkTimeoutMs) {
      counters.timeouts += 1;
      conn.terminate(); // 'close' follows and the dialer reconnects
      return;
    }
    // Straight to the connection, past the outbox: a sync that waited in a queue would measure the
    // queue, and a congested link is one whose silence should count.
    const sync = o.sender.make('sync');
    const t = conn.codec ? conn.codec.encode(sync) : envelope.stringify(sync);
    try { conn.send(t); } catch { return; }
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  return {
    /**
     * A new connection is open. The cloud behind it may be another process (a restart, another
     * instance) whose clock is anchored elsewhere: samples of an earlier connection do not bound
     * it. The first sync goes at once: the cloud relays no request before it has answered one.
     * @param {object} c the connection (lib/link/ws-transport.js)
     */
    start(c) {
      conn = c;
      heardAt = clock.now();
      offset.reset();
      clearInterval(timer);
      timer = setInterval(beat, o.heartbeatMs);
      beat();
    },
    /** The connection is gone (or closing). */
    stop() {
      clearInterval(timer);
      timer = null;
      conn = null;
    },
    /** Any traffic proves the peer alive. */
    heard() { heardAt = clock.now(); },
    /**
     * The cloud's answer to a sync: one clock sample.
     * @param {object} env the sync-res envelope
     * @param {number} arrived lib/core/clock.js now() when it arrived
     */
    onSyncRes(env, arrived) {
      const s = offset.add(env.d.t1, env.d.t2, env.ts, arrived);
      if (!s) return;
      counters.syncs += 1;
      counters.syncRttMs = round2(s.delay);
      const est = offset.estimate(arrived);
      counters.offsetMs = round2(est.offset);
      counters.offsetUncertaintyMs = round2(est.uncertainty);
    },
    /**
     * A deadline on the cloud's clock as a time on this edge's clock before which it has surely
     * not passed; null while there is no estimate (nothing may be written on it then).
     */
    localDeadline: (dl) => offset.localDeadline(dl),
    /** The clock-offset estimate (cloud − edge) now, or null. */
    estimate: () => offset.estimate(),
  };
}

module.exports = { createHeartbeat };
