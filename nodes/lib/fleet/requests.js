'use strict';
/**
 * Requests across a fleet, each with exactly one answer, always from the instance its twin is
 * connected to:
 *
 * - An ORIGIN is an instance a twin of the plant is connected to. A twin's request for a plant
 *   this instance does not hold is published on the plant's request channel (nobody listening:
 *   E_EDGE_DOWN at once, nothing was delivered) and held here too, for its deadline plus grace
 *   plus `hopMs`: if no answer comes back (the holder died), this instance answers
 *   E_OUTCOME_UNKNOWN itself. The first answer wins; any later one is counted and dropped.
 * - The HOLDER (lib/fleet/leases.js) takes what comes on the request channel of a plant it surely
 *   holds, relays it to its edge and sends the answer back to the origin's member channel. A
 *   member not sure it holds the plant stays silent: another instance may hold it by now and
 *   answer, and two answers would let a refusal ("not delivered") overtake an ack.
 *
 * A request keeps the deadline its origin gave it, on the origin's clock; the holder turns it into
 * the latest time on its own clock at which it has surely not passed (lib/fleet/clocks.js:
 * only ever earlier). A holder with no estimate for the origin yet (the first second of a new
 * member) refuses with E_EDGE_DOWN: nothing is written on a guess. Carrying the remaining lifetime
 * instead would have lengthened every deadline by the hop's transit, which no instance can bound
 * without a clock estimate.
 *
 * Plain module; lib/fleet/member.js keeps one.
 */
const envelope = require('../core/envelope');
const { createInflight, outcomeUnknown } = require('../link/inflight');
const { KEYS } = require('./keys');

/**
 * @param {object} o
 * @param {object} o.bp the backplane (lib/fleet/backplane.js)
 * @param {string} o.id this member's id
 * @param {object} o.sender envelope sender for the answers made here
 * @param {number} o.graceMs as lib/link/inflight.js
 * @param {number} o.hopMs an origin waits this much longer than the holder: the answer's trip back
 * @param {number} o.probeAnswerMs as lib/link/inflight.js
 * @param {number} o.maxForwarded requests held for answers from other instances; more → E_BUSY
 * @param {object} o.counters the member's
 * @param {(err: Error) => void} o.fail a backplane command failed
 * @param {(plant: string) => boolean} o.holds does this member surely hold the plant?
 * @param {(member: string, dl: number) => number|null} o.localDeadline lib/fleet/clocks.js
 * @param {(env: object, plant: string, origin: string) => void} o.onRequest a request for a plant held here
 * @param {(env: object, plant: string) => void} o.onEnvelope an answer (or refusal) for this instance's flow
 */
function createFleetRequests(o) {
  const { bp, id, sender, counters } = o;

  // Requests this instance forwarded, until their one answer.
  const forwarded = createInflight({
    graceMs: o.graceMs + o.hopMs,
    probeAnswerMs: o.probeAnswerMs,
    maxEntries: o.maxForwarded,
    onExpire(e, why) {
      counters.unknownOutcomes += 1;
      o.onEnvelope(outcomeUnknown(sender, e, why), e.plant);
    },
  });

  /** Send the answer to a request that came from member `origin`. */
  function reply(origin, plant, env) {
    counters.replies += 1;
    bp.publish(KEYS.member(origin), JSON.stringify({ t: 'ans', p: plant, e: env }))
      .then((n) => { if (n === 0) counters.unroutableReplies += 1; }, o.fail);
  }

  return {
    reply,
    get size() { return forwarded.size; },
    /** A message on the request channel of a plant held here. */
    onRequest(plant, text) {
      let m;
      try {
        m = JSON.parse(text);
        if (!m || typeof m.o !== 'string' || m.p !== plant) throw new Error('not a request message');
        envelope.validate(m.e);
        if (!envelope.REQUEST_KINDS.has(m.e.k) || !Number.isFinite(m.e.dl)) throw new Error('not a request');
      } catch {
        counters.badMessages += 1;
        return;
      }
      if (!o.holds(plant)) { counters.notHolder += 1; return; }
      counters.remoteRequests += 1;
      const env = m.e;
      const dl = m.o === id ? env.dl : o.localDeadline(m.o, env.dl);
      if (dl === null) {
        counters.noClock += 1;
        const msg = `instance ${id} has no clock estimate for instance ${m.o} yet: the ${env.k} was not delivered`;
        reply(m.o, plant, sender.error('E_EDGE_DOWN', msg, { src: env.src, seq: env.seq }, env.cid, env.dl));
        return;
      }
      o.onRequest({ ...env, dl }, plant, m.o);
    },
    /** An answer on this member's channel to a request it forwarded. */
    onAnswer(plant, env) {
      try { envelope.validate(env); } catch { counters.badMessages += 1; return; }
      if (!env.ref) { counters.badMessages += 1; return; }
      const e = forwarded.answer(env.ref, plant);
      if (!e) { counters.lateAnswers += 1; return; }
      counters.remoteAnswers += 1;
      // The twin sees the deadline its own instance gave the request, on that instance's clock.
      o.onEnvelope(e.dl === undefined ? env : { ...env, dl: e.dl }, plant);
    },
    /**
     * A local twin's request for a plant this instance does not hold: to its holder, if any.
     * Its answer (or a refusal) comes back through onEnvelope.
     */
    forward(env, plant) {
      if (forwarded.full) {
        const msg = `${forwarded.size} requests already wait for other instances: the ${env.k} was not relayed`;
        o.onEnvelope(sender.error('E_BUSY', msg, { src: env.src, seq: env.seq }, env.cid), plant);
        return;
      }
      if (!forwarded.add(env, 'fleet', { plant })) {
        // The same request twice: its one answer is for the first; this one gets its own.
        counters.duplicates += 1;
        const msg = `a ${env.k} ${env.src}#${env.seq} of plant ${plant} already waits for another instance's answer: this one was not relayed`;
        o.onEnvelope(sender.error('E_DUPLICATE', msg, { src: env.src, seq: env.seq }, env.cid, env.dl), plant);
        return;
      }
      counters.forwarded += 1;
      const notDelivered = (why) => {
        if (!forwarded.answer(env, plant)) return; // answered meanwhile
        counters.forwardRefused += 1;
        o.onEnvelope(sender.error('E_EDGE_DOWN', `${why}: the ${env.k} was not delivered`, { src: env.src, seq: env.seq }, env.cid, env.dl), plant);
      };
      bp.publish(KEYS.req(plant), JSON.stringify({ o: id, p: plant, e: env })).then(
        (n) => { if (n === 0) notDelivered(`no edge of plant ${plant} is connected to any cloud instance`); },
        (err) => {
          o.fail(err);
          // Surely not sent: refuse now. Maybe sent: the hold answers E_OUTCOME_UNKNOWN in time.
          if (err.code === 'E_BACKPLANE_DOWN') notDelivered(`the fleet backplane is unreachable (${err.message})`);
        },
      );
    },
    /** Give up every forwarded request (the member closes): each is answered E_OUTCOME_UNKNOWN. */
    clear(why) { forwarded.clear(why); },
  };
}

module.exports = { createFleetRequests };
