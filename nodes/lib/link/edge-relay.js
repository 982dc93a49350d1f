'use strict';
/**
 * The edge endpoint's requests: which edge serves each plant on this instance, every request
 * relayed to it held until its one answer, and the fleet (lib/fleet/member.js) for plants whose
 * edge is on another cloud instance.
 *
 * - Requests go to a plant's edge only once it has had its first sync answered (it can judge
 *   deadlines from then on) and while this instance surely holds the plant's lease; while the
 *   lease cannot be renewed (the backplane unreachable) they are refused E_EDGE_DOWN, saying so.
 * - Every request sent to the edge is held (lib/link/inflight.js) until its answer. When the edge
 *   link drops, or the answer is not back by the request's deadline, the relay answers it itself,
 *   at once, with E_OUTCOME_UNKNOWN (the twin resyncs from the next state). An answer that comes
 *   after that, or answers nothing held, is counted and dropped: exactly one answer per request.
 * - A request for a plant whose edge is on another instance goes there over the backplane, and
 *   its answer comes back the same way; a request another instance forwarded here is relayed to
 *   the edge and its answer sent back to that instance.
 *
 * Plain module; lib/link/edge-endpoint.js keeps one.
 */
const clock = require('../core/clock');
const { createInflight, outcomeUnknown } = require('./inflight');
const { createLocalBackplane } = require('../fleet/backplane');
const { createFleetMember } = require('../fleet/member');

/**
 * A request with its deadline on the cloud's clock: as it came when it has one (a twin endpoint
 * stamped it), else the default lifetime from now (a request from a flow).
 * @param {object} env
 * @param {number} lifetimeMs
 * @returns {object} env itself, or a copy with `dl`
 */
const withDeadline = (env, lifetimeMs) => (Number.isFinite(env.dl) ? env : { ...env, dl: clock.now() + lifetimeMs });

/**
 * @param {object} o
 * @param {number} o.linkTimeoutMs the plant lease's TTL: an edge silent this long is gone
 * @param {number} o.graceMs how long past a command's deadline its answer may still be on its way
 * @param {number} o.probeAnswerMs how long past a probe's deadline the edge may wait for its slot
 * @param {number} o.lifetimeMs the lifetime of a request that came with no deadline
 * @param {object} [o.backplane] the fleet's backplane (lib/fleet/backplane.js); default a private
 *   in-process one (a single instance)
 * @param {object} [o.fleet] options for lib/fleet/member.js (hopMs, syncMs, id)
 * @param {object} o.sender the endpoint's envelope sender
 * @param {object} o.counters the endpoint's: inflight, unknownOutcomes, lateAnswers, busy, leaseLost, duplicateRequests,
 *   leaseUnsure
 * @param {(env: object, clientId: string|undefined, plant: string) => void} o.emit a frame for the flow
 */
function createEdgeRelay(o) {
  const { sender, counters } = o;
  const edges = new Map(); // plant -> its edge's peer (lib/link/peer.js)
  const ownBackplane = o.backplane ? null : createLocalBackplane();
  const inflight = createInflight({
    graceMs: o.graceMs,
    probeAnswerMs: o.probeAnswerMs,
    onExpire(e, why) {
      counters.unknownOutcomes += 1;
      counters.inflight = inflight.size;
      answer(e, outcomeUnknown(sender, e, why));
    },
  });
  const fleet = createFleetMember({
    backplane: o.backplane || ownBackplane,
    sender,
    leaseMs: o.linkTimeoutMs,
    graceMs: o.graceMs,
    probeAnswerMs: o.probeAnswerMs,
    ...(o.fleet || {}),
    onRequest: fromFleet,
    onEnvelope: (env, plant) => o.emit(env, undefined, plant),
    onLost(plant) {
      // Another instance took the plant's lease (this edge was silent past it): it no longer
      // speaks for the plant here.
      const c = edges.get(plant);
      counters.leaseLost += 1;
      if (c) c.conn.terminate();
    },
  });

  /** The answer to a held request: back to the instance it came from, or into this flow. */
  function answer(entry, env) {
    if (entry.origin) fleet.reply(entry.origin, entry.plant, env);
    else o.emit(env, entry.peer, entry.plant);
  }

  /** The plant's edge here, if it may take requests now (ready, open, and the lease surely ours). */
  function liveEdge(plant) {
    const c = edges.get(plant);
    return c && c.ready && !c.closing && c.conn.open && fleet.holds(plant) ? c : null;
  }

  /** The plant's edge here is alive and ready, but the lease is not surely this instance's. */
  function leaseUnsure(plant) {
    const c = edges.get(plant);
    return Boolean(c && c.ready && !c.closing && c.conn.open && !fleet.holds(plant));
  }

  /** Deliver a request to the plant's edge here and hold it until its answer. */
  function toEdge(c, env, plant, origin) {
    if (inflight.full) {
      counters.busy += 1;
      const msg = `${inflight.size} requests already wait for the edge's answer: the ${env.k} was not relayed`;
      answer({ origin, plant, peer: c.id }, sender.error('E_BUSY', msg, { src: env.src, seq: env.seq }, env.cid, env.dl));
      return;
    }
    if (inflight.add(env, c.id, { plant, origin })) c.deliver(env);
    else {
      // The same (src, seq) is held for an answer already: relayed twice it could not be told
      // apart from the first, and silence would leave it with no answer at all.
      counters.duplicateRequests += 1;
      const msg = `a ${env.k} ${env.src}#${env.seq} of plant ${plant} already waits for the edge's answer: this one was not relayed`;
      answer({ origin, plant, peer: c.id }, sender.error('E_DUPLICATE', msg, { src: env.src, seq: env.seq }, env.cid, env.dl));
    }
    counters.inflight = inflight.size;
  }

  /** A request another instance forwarded for a plant held here (its dl on this clock). */
  function fromFleet(env, plant, origin) {
    const c = liveEdge(plant);
    if (!c) {
      const msg = `the edge of plant ${plant} is not ready on this instance: the ${env.k} was not delivered`;
      fleet.reply(origin, plant, sender.error('E_EDGE_DOWN', msg, { src: env.src, seq: env.seq }, env.cid, env.dl));
      return;
    }
    toEdge(c, env, plant, origin);
  }

  return {
    fleet,
    /** The plant's edge connected here, if any (ready or not). */
    edgeOf: (plant) => edges.get(plant),
    /** Plants whose edges are connected here. */
    plants: () => [...edges.keys()],
    liveEdge,
    /** A new edge for its plant (admitted: no live edge of the plant here). */
    attach(c) { edges.set(c.plant, c); },
    /**
     * An edge's connection closed: first the requests held for it (their answers go out while the
     * lease still says this instance spoke for the plant), then the lease.
     */
    detach(c, code) {
      if (edges.get(c.plant) !== c) return;
      edges.delete(c.plant);
      inflight.dropPeer(c.id, `the edge link was lost (close ${code}) before the answer`);
      counters.inflight = inflight.size;
      fleet.release(c.plant);
    },
    /**
     * A request from the flow. To the plant's edge here and held until its answer; to the
     * instance holding the plant's edge (lib/fleet/member.js) if it is elsewhere.
     * @returns {number} 0: not delivered (the caller refuses it E_EDGE_DOWN); 1: delivered, or
     *   refused here (its one answer is on its way)
     */
    sendRequest(env, plant) {
      // A request from a flow that did not come through a twin endpoint gets the default lifetime.
      const req = withDeadline(env, o.lifetimeMs);
      if (edges.has(plant)) {
        const c = liveEdge(plant);
        if (c) { toEdge(c, req, plant, undefined); return 1; }
        if (!leaseUnsure(plant)) return 0; // connected but not ready yet
        // The edge is here and alive, but this instance could not renew the plant's lease (the
        // backplane is unreachable). It cannot tell a Redis outage from its own partition, in
        // which another instance may take the lease and a second edge of the plant: two edges
        // would each keep their own idempotency keys, and a command sent again could be
        // written twice. So nothing is relayed until the lease is this instance's again.
        counters.leaseUnsure += 1;
        const why = fleet.lastError ? ` (${fleet.lastError})` : '';
        const msg = `the edge of plant ${plant} is connected here, but the plant's lease could not be renewed${why}: the ${env.k} was not relayed`;
        answer({ plant, peer: edges.get(plant).id }, sender.error('E_EDGE_DOWN', msg, { src: env.src, seq: env.seq }, env.cid, req.dl));
        return 1;
      }
      fleet.forward(req, plant);
      return 1;
    },
    /**
     * An answer from the edge (it has a ref).
     * @returns {boolean} true if it goes into this flow; false: late (counted) or sent back to
     *   the instance the request came from
     */
    fromEdge(c, env) {
      const held = inflight.answer(env.ref, c.plant);
      counters.inflight = inflight.size;
      if (!held) { counters.lateAnswers += 1; return false; }
      if (held.origin) { fleet.reply(held.origin, held.plant, env); return false; }
      return true;
    },
    /** Leave the fleet (after every edge is gone). */
    async close() {
      await fleet.close();
      if (ownBackplane) await ownBackplane.close();
    },
  };
}

module.exports = { createEdgeRelay, withDeadline };
