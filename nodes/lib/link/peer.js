'use strict';
/**
 * One peer of a link endpoint (a twin, or the edge) over one connection (lib/link/ws-transport.js
 * describes a connection): what it may send (a message rate and an error budget,
 * lib/access/peer-limits.js), whether it is alive, and a bounded outbox (lib/link/outbox.js) so
 * that a slow peer never grows the cloud's memory or slows the others.
 *
 * Plain module (timers only); lib/link/peer-set.js makes one per connection.
 */
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const { createOutbox } = require('./outbox');
const { createPeerLimits } = require('../access/peer-limits');

const POLICY_CLOSE = 1008; // WebSocket close code: policy violation

/**
 * @param {object} o
 * @param {string} o.id
 * @param {object} o.conn the connection (see lib/link/ws-transport.js)
 * @param {string} o.plant the plant it connected for
 * @param {boolean} [o.viewer] a read-only peer (a viewer token)
 * @param {{token: string, role: string}} [o.who] its token's fingerprint and role (the command log)
 * @param {string} [o.remote] address:port, for logs
 * @param {object} o.limits lib/access/peer-limits.js options
 * @param {number} o.maxFrames outbox: queued non-state frames
 * @param {number} o.maxTags outbox: tags in the pending coalesced state
 * @param {number} o.highWaterBytes connection buffer above which frames wait in the outbox
 * @param {number} o.drainPollMs how often a congested peer is looked at again
 * @param {number} o.closeGraceMs how long an expelled peer gets to answer the close
 * @param {object} o.counters the endpoint's: framesOut, bytesOut, coalesced, dropped
 * @param {(delta: number) => void} [o.onQueue] the outbox's depth changed by `delta` (to 0 when the
 *   peer is disposed): the endpoint keeps one total without going over every peer
 */
function createPeer(o) {
  const { conn, counters } = o;
  const outbox = createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags });
  let drainTimer = null;
  let killTimer = null;
  const onQueue = o.onQueue || (() => {});
  let told = 0; // the outbox's depth as onQueue last learnt it
  const tell = () => {
    const d = outbox.depth;
    if (d !== told) { onQueue(d - told); told = d; }
  };

  function write(env, text) {
    const t = text || (conn.codec ? conn.codec.encode(env) : envelope.stringify(env));
    // A request's deadline goes along: a transport that queues frames (a broker) drops it there
    // once it has passed, rather than deliver it late.
    conn.send(t, env.dl);
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  function drain() {
    if (!conn.open) return;
    outbox.flush((e) => write(e), () => conn.buffered <= o.highWaterBytes);
    if (outbox.empty) { clearInterval(drainTimer); drainTimer = null; }
    tell();
  }

  const peer = {
    id: o.id,
    conn,
    plant: o.plant,
    viewer: Boolean(o.viewer),
    who: o.who,
    remote: o.remote,
    heard: true, // heard from since the last keepalive round
    // Monotonic (lib/core/clock.js): a stepped wall clock neither keeps a dead peer "alive" (a new
    // edge refused 409 for the length of the step) nor drops a live one.
    heardAt: clock.now(),
    pinged: false,
    ready: false, // the edge: its first sync was answered
    closing: false,
    outbox,
    limits: createPeerLimits(o.limits),
    /** The WebSocket underneath, for tests and diagnostics. */
    get ws() { return conn.ws; },
    /** Any traffic proves the peer alive. */
    markHeard() { peer.heard = true; peer.heardAt = clock.now(); },
    /**
     * Write one envelope now, or queue it (coalescing states) while the connection is congested.
     * @param {object} env
     * @param {string} [text] its JSON text, when the caller has one (a fan-out to JSON peers)
     */
    deliver(env, text) {
      if (!conn.open) return;
      if (outbox.empty && conn.buffered <= o.highWaterBytes) {
        write(env, text);
        return;
      }
      const before = outbox.stats.coalesced;
      const droppedBefore = outbox.stats.dropped;
      outbox.push(env);
      counters.coalesced += outbox.stats.coalesced - before;
      counters.dropped += outbox.stats.dropped - droppedBefore;
      tell();
      if (!drainTimer) drainTimer = setInterval(drain, o.drainPollMs);
    },
    /**
     * Tell the peer why (an err envelope), then close it with 1008, and cut it off if it does not
     * answer the close within closeGraceMs.
     * @param {object} errEnv an err envelope; its code is the close reason
     */
    expel(errEnv) {
      if (peer.closing) return;
      peer.closing = true;
      peer.deliver(errEnv);
      try { conn.close(POLICY_CLOSE, errEnv.e.code); } catch { /* already closing */ }
      killTimer = setTimeout(() => conn.terminate(), o.closeGraceMs);
      killTimer.unref?.();
    },
    /** The connection is gone: stop every timer, forget what waits. */
    dispose() {
      clearInterval(drainTimer);
      drainTimer = null;
      clearTimeout(killTimer);
      outbox.clear();
      tell();
    },
  };
  return peer;
}

module.exports = { createPeer, POLICY_CLOSE };
