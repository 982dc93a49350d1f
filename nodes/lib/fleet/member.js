'use strict';
/**
 * One cloud instance as a member of a fleet (issue 17): the plant side of its edge endpoint
 * (lib/link/endpoint.js) on a backplane (lib/fleet/backplane.js: in-process for a single instance, Redis
 * for several). Every instance runs the same code; a single instance is a fleet of one.
 *
 * Who does what, per plant:
 * - The HOLDER is the instance the plant's edge is connected to. It holds the plant's lease (a
 *   key with a TTL of the edge endpoint's link timeout, 3 s, renewed on every sync of the edge,
 *   500 ms), so a second edge of the plant on another instance is refused (HTTP 409) while the
 *   first is alive, as on one instance. It listens on the plant's request channel, relays what
 *   comes there to its edge, holds each request until its one answer (lib/link/inflight.js) and sends
 *   that answer, or E_OUTCOME_UNKNOWN, to the instance the request came from. It writes every
 *   state and snap of its edge into the plant's latest-state hash and publishes it, in one atomic
 *   step with a version number.
 * - An ORIGIN is an instance a twin of the plant is connected to. A twin's request for a plant
 *   this instance does not hold is published on the plant's request channel (nobody listening:
 *   E_EDGE_DOWN at once, nothing was delivered) and held here too, for its deadline plus grace
 *   plus `hopMs`: if no answer comes back (the holder died), this instance answers
 *   E_OUTCOME_UNKNOWN itself. The first answer wins; any later one is counted and dropped. So a
 *   twin gets exactly one answer, and always from the instance it is connected to.
 * - A WATCHER is an instance with twins of the plant: it subscribes to the plant's states, reads
 *   the latest-state hash and emits it as a `snap` first (a new twin's snapshot, on any instance),
 *   then every state newer than the hash's version, in order.
 *
 * Deadlines cross instances on the clocks of the instances, never assumed equal: every member
 * heartbeats on the fleet channel (`syncMs`) and every other member answers with its receive and
 * send times, as the edge link does (lib/core/clock.js: NTP's on-wire exchange, offset within ±δ/2,
 * plus drift). A request keeps the deadline its origin gave it, on the origin's clock; the holder
 * turns it into the latest time on its own clock at which it has surely not passed
 * (`localDeadline`: only ever earlier), and the edge link does the same once more. A holder with no
 * estimate for the origin yet (the first second of a new member) refuses with E_EDGE_DOWN: nothing
 * is written on a guess. Carrying the remaining lifetime instead would have lengthened every
 * deadline by the hop's transit, which no instance can bound without a clock estimate.
 *
 * Channels and keys (`<plant>` a plant id, lib/core/plants.js; `<member>` an instance's id):
 *   s7twin:<plant>:edge     key    lease: the holding member's id, PX = link timeout
 *   s7twin:<plant>:latest   hash   latest plant state: tag short name → JSON value, `~v` version
 *   s7twin:<plant>:req      chan   requests for the holder: {o: origin, p: plant, e: envelope}
 *   s7twin:<plant>:state    chan   `<version> {o: holder, e: envelope}` (state and snap frames)
 *   s7twin:member:<member>  chan   answers to an origin {t:'ans', p, e}; clock answers {t:'sync-res', f, t1, t2, t3}
 *   s7twin:fleet            chan   heartbeats {t:'sync', f, t1}
 */
const crypto = require('node:crypto');
const os = require('node:os');
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const { createInflight } = require('../link/inflight');

const DEFAULTS = {
  leaseMs: 3000, // the plant lease's TTL: the edge endpoint's linkTimeoutMs
  leaseDriftPpm: 1000, // this host's clock vs Redis's: a held lease is trusted this much less long
  syncMs: 1000, // heartbeat and clock-offset exchange with every other member
  memberTimeoutMs: 10000, // a member not heard from this long is forgotten (its clock estimate too)
  graceMs: 250, // as lib/link/inflight.js: a command's answer may still be on its way this long
  probeAnswerMs: 5000, // as lib/link/inflight.js: the edge's own wait for a probe's slot
  hopMs: 250, // an origin waits this much longer than the holder: the answer's trip back
  maxForwarded: 100000, // requests held for answers from other instances; more → E_BUSY
};

const KEYS = {
  lease: (plant) => `s7twin:${plant}:edge`,
  latest: (plant) => `s7twin:${plant}:latest`,
  req: (plant) => `s7twin:${plant}:req`,
  states: (plant) => `s7twin:${plant}:state`,
  member: (id) => `s7twin:member:${id}`,
  fleet: 's7twin:fleet',
};

/** A member id: host, process and a random part (a restarted process is a new member). */
const memberId = () => `${os.hostname().replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 32) || 'host'}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;

/**
 * @param {object} o DEFAULTS plus:
 * @param {object} o.backplane lib/fleet/backplane.js
 * @param {object} o.sender an envelope sender (lib/core/envelope.js createSender) for frames made here
 * @param {(env: object, plant: string, origin: string) => void} o.onRequest a request from another
 *   member for a plant held here: deliver it to the edge (its dl is on this clock already) and
 *   call reply() with its answer; refuse() if it cannot go
 * @param {(env: object, plant: string) => void} o.onEnvelope a frame for this instance's flow: an
 *   answer to a forwarded request (dl as this instance gave it), another member's state, a snap
 * @param {(plant: string) => void} [o.onLost] the lease of a plant held here was taken: its edge
 *   no longer speaks for the plant
 * @param {string} [o.id] member id (default: a fresh one)
 */
function createFleetMember(o) {
  const cfg = { ...DEFAULTS, ...o };
  const bp = cfg.backplane;
  const id = cfg.id || memberId();
  const sender = cfg.sender;
  const held = new Map(); // plant -> {validUntil, fn}
  const watched = new Map(); // plant -> {lastV, loading, buffer, fn}
  const members = new Map(); // member id -> {est, heardAt}
  const counters = {
    members: 0, forwarded: 0, forwardRefused: 0, remoteRequests: 0, notHolder: 0, noClock: 0,
    replies: 0, unroutableReplies: 0, remoteAnswers: 0, lateAnswers: 0, unknownOutcomes: 0,
    statesPublished: 0, statesIn: 0, snapsFromStore: 0, badMessages: 0, leaseLost: 0, backplaneErrors: 0,
  };
  let closed = false;
  let lastError = null;

  const fail = (err) => { counters.backplaneErrors += 1; lastError = err.message; };

  // Requests this instance forwarded, until their one answer (see header).
  const forwarded = createInflight({
    graceMs: cfg.graceMs + cfg.hopMs,
    probeAnswerMs: cfg.probeAnswerMs,
    maxEntries: cfg.maxForwarded,
    onExpire(e, why) {
      counters.unknownOutcomes += 1;
      cfg.onEnvelope(sender.error('E_OUTCOME_UNKNOWN', `${e.k} ${e.src}#${e.seq}: ${why}; whether it was written is unknown (resync from the next state)`, { src: e.src, seq: e.seq }, e.cid, e.dl), e.plant);
    },
  });

  // --- clocks and liveness of the other members --------------------------------------------
  function heard(from) {
    let m = members.get(from);
    const isNew = !m;
    if (!m) { m = { est: clock.createOffsetEstimator(), heardAt: 0 }; members.set(from, m); counters.members = members.size; }
    m.heardAt = Date.now();
    return isNew;
  }

  function syncAll() {
    bp.publish(KEYS.fleet, JSON.stringify({ t: 'sync', f: id, t1: clock.now() })).catch(fail);
  }

  function onFleet(text) {
    const arrived = clock.now();
    let m;
    try { m = JSON.parse(text); } catch { counters.badMessages += 1; return; }
    if (!m || m.t !== 'sync' || typeof m.f !== 'string' || !Number.isFinite(m.t1)) { counters.badMessages += 1; return; }
    if (m.f === id) return;
    const isNew = heard(m.f);
    bp.publish(KEYS.member(m.f), JSON.stringify({ t: 'sync-res', f: id, t1: m.t1, t2: arrived, t3: clock.now() })).catch(fail);
    if (isNew) syncAll(); // a new member: estimate its clock now, not a heartbeat later
  }

  function onMember(text) {
    const arrived = clock.now();
    let m;
    try { m = JSON.parse(text); } catch { counters.badMessages += 1; return; }
    if (m && m.t === 'sync-res' && typeof m.f === 'string') {
      heard(m.f);
      members.get(m.f).est.add(m.t1, m.t2, m.t3, arrived);
      return;
    }
    if (m && m.t === 'ans' && typeof m.p === 'string') { onAnswer(m.p, m.e); return; }
    counters.badMessages += 1;
  }

  const timer = setInterval(() => {
    syncAll();
    const t = Date.now();
    for (const [mid, m] of members) if (t - m.heardAt > cfg.memberTimeoutMs) members.delete(mid);
    counters.members = members.size;
  }, cfg.syncMs);
  timer.unref?.();

  // --- leases: one edge per plant across the fleet ------------------------------------------
  /** Trusted until: the lease was set before `sentAt`, so it lasts at least until sentAt + TTL on Redis's clock. */
  const trustUntil = (sentAt) => sentAt + cfg.leaseMs * (1 - cfg.leaseDriftPpm / 1e6) - 1;

  /**
   * Take the plant's lease for this instance's edge (and listen for its requests).
   * @returns {Promise<boolean>} false: another instance holds it (its edge is alive)
   * @throws {BackplaneError} the backplane is unreachable
   */
  async function claim(plant) {
    const sentAt = clock.now();
    const ok = await bp.lease(KEYS.lease(plant), id, cfg.leaseMs);
    if (!ok || closed) return false;
    const had = held.get(plant);
    if (had) { had.validUntil = trustUntil(sentAt); return true; } // held here already: renewed
    const h = { validUntil: trustUntil(sentAt), fn: (text) => onRequest(plant, text) };
    held.set(plant, h);
    try {
      await bp.subscribe(KEYS.req(plant), h.fn);
    } catch (err) {
      await release(plant);
      throw err;
    }
    return true;
  }

  /**
   * Renew the lease (the edge is alive: it just synced). Resolves true if renewed, false if
   * another instance took it (onLost is called), null if the backplane did not answer (the lease
   * lapses by itself here when it would have in Redis).
   */
  async function renew(plant) {
    const h = held.get(plant);
    if (!h) return false;
    const sentAt = clock.now();
    let ok;
    try {
      ok = await bp.lease(KEYS.lease(plant), id, cfg.leaseMs);
    } catch (err) {
      fail(err);
      return null;
    }
    if (held.get(plant) !== h) return false;
    if (ok) { h.validUntil = trustUntil(sentAt); return true; }
    counters.leaseLost += 1;
    held.delete(plant);
    bp.unsubscribe(KEYS.req(plant), h.fn).catch(fail);
    if (cfg.onLost) cfg.onLost(plant);
    return false;
  }

  /** Give the plant up (its edge left): stop taking its requests first, then free the lease. */
  async function release(plant) {
    const h = held.get(plant);
    if (!h) return;
    held.delete(plant);
    await bp.unsubscribe(KEYS.req(plant), h.fn).catch(fail);
    await bp.unlease(KEYS.lease(plant), id).catch(fail);
  }

  /** Does this instance hold the plant, surely (its lease cannot have passed to another yet)? */
  const holds = (plant) => { const h = held.get(plant); return Boolean(h && clock.now() < h.validUntil); };

  // --- requests --------------------------------------------------------------------------------
  function onRequest(plant, text) {
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
    // Not (surely) the holder: stay silent. Another instance may hold the plant by now and answer;
    // two answers would let a refusal ("not delivered") overtake an ack.
    if (!holds(plant)) { counters.notHolder += 1; return; }
    counters.remoteRequests += 1;
    const env = m.e;
    let dl = env.dl;
    if (m.o !== id) {
      const peer = members.get(m.o);
      dl = peer ? peer.est.localDeadline(env.dl) : null;
      if (dl === null) {
        counters.noClock += 1;
        reply(m.o, plant, sender.error('E_EDGE_DOWN', `instance ${id} has no clock estimate for instance ${m.o} yet: the ${env.k} was not delivered`, { src: env.src, seq: env.seq }, env.cid, env.dl));
        return;
      }
    }
    cfg.onRequest({ ...env, dl }, plant, m.o);
  }

  /** Send the answer to a request that came from member `origin`. */
  function reply(origin, plant, env) {
    counters.replies += 1;
    bp.publish(KEYS.member(origin), JSON.stringify({ t: 'ans', p: plant, e: env }))
      .then((n) => { if (n === 0) counters.unroutableReplies += 1; }, fail);
  }

  function onAnswer(plant, env) {
    try { envelope.validate(env); } catch { counters.badMessages += 1; return; }
    if (!env.ref) { counters.badMessages += 1; return; }
    const e = forwarded.answer(env.ref, plant);
    if (!e) { counters.lateAnswers += 1; return; }
    counters.remoteAnswers += 1;
    // The twin sees the deadline its own instance gave the request, on that instance's clock.
    cfg.onEnvelope(e.dl === undefined ? env : { ...env, dl: e.dl }, plant);
  }

  /**
   * A local twin's request for a plant this instance does not hold: to its holder, if any.
   * Its answer (or a refusal) comes back through onEnvelope.
   */
  function forward(env, plant) {
    if (forwarded.full) {
      cfg.onEnvelope(sender.error('E_BUSY', `${forwarded.size} requests already wait for other instances: the ${env.k} was not relayed`, { src: env.src, seq: env.seq }, env.cid), plant);
      return;
    }
    if (!forwarded.add(env, 'fleet', { plant })) return; // the same request twice: held already
    counters.forwarded += 1;
    const notDelivered = (why) => {
      if (!forwarded.answer(env, plant)) return; // answered meanwhile
      counters.forwardRefused += 1;
      cfg.onEnvelope(sender.error('E_EDGE_DOWN', `${why}: the ${env.k} was not delivered`, { src: env.src, seq: env.seq }, env.cid, env.dl), plant);
    };
    bp.publish(KEYS.req(plant), JSON.stringify({ o: id, p: plant, e: env })).then(
      (n) => { if (n === 0) notDelivered(`no edge of plant ${plant} is connected to any cloud instance`); },
      (err) => {
        fail(err);
        // Surely not sent: refuse now. Maybe sent: the hold answers E_OUTCOME_UNKNOWN in time.
        if (err.code === 'E_BACKPLANE_DOWN') notDelivered(`the fleet backplane is unreachable (${err.message})`);
      },
    );
  }

  // --- states ------------------------------------------------------------------------------
  /** A state or snap of the plant's edge (held here): into the latest-state hash, to the watchers. */
  function publishState(env, plant) {
    if (!env.d) return;
    counters.statesPublished += 1;
    bp.mergeState(KEYS.latest(plant), KEYS.states(plant), env.d, JSON.stringify({ o: id, e: env })).catch(fail);
  }

  function deliverState(plant, w, v, m) {
    if (v <= w.lastV) return; // in the snapshot already, or seen
    w.lastV = v;
    if (m.o === id) return; // this instance's own edge: its flow has the frame already
    counters.statesIn += 1;
    cfg.onEnvelope(m.e, plant);
  }

  function onState(plant, text) {
    const w = watched.get(plant);
    if (!w) return;
    const sp = text.indexOf(' ');
    const v = Number(text.slice(0, sp));
    let m;
    try {
      m = JSON.parse(text.slice(sp + 1));
      envelope.validate(m.e);
      if (!Number.isSafeInteger(v) || (m.e.k !== 'state' && m.e.k !== 'snap')) throw new Error('not a state');
    } catch {
      counters.badMessages += 1;
      return;
    }
    if (w.loading) w.buffer.push([v, m]);
    else deliverState(plant, w, v, m);
  }

  /** Read the latest state: a snap of it first, then what came meanwhile and is newer. */
  async function reload(plant) {
    const w = watched.get(plant);
    if (!w) return;
    w.loading = true;
    try {
      const { version, values } = await bp.readState(KEYS.latest(plant));
      if (version > w.lastV && Object.keys(values).length) {
        counters.snapsFromStore += 1;
        cfg.onEnvelope(sender.make('snap', { d: values }), plant);
      }
      w.lastV = Math.max(w.lastV, version);
    } catch (err) {
      fail(err); // read again when the backplane is back ('up')
    }
    w.loading = false;
    const buffered = w.buffer.splice(0);
    for (const [v, m] of buffered) deliverState(plant, w, v, m);
  }

  async function subscribeWatch(plant, w) {
    try {
      await bp.subscribe(KEYS.states(plant), w.fn);
      w.subscribed = true;
      return true;
    } catch (err) {
      fail(err); // subscribed when the backplane is (back) up: onUp
      // Failed though connected (no 'up' will come to retry it): try again shortly.
      if (bp.connected && !closed) setTimeout(() => { if (!closed && !w.subscribed && watched.get(plant) === w) subscribeWatch(plant, w).then((ok) => ok && reload(plant)); }, 1000).unref?.();
      return false;
    }
  }

  /**
   * Take the plant's states from now on (an instance with twins of it). Kept until close: the
   * instance's latest state then stays current, so the next twin's snapshot is never stale.
   */
  async function watch(plant) {
    if (watched.has(plant) || closed) return;
    const w = { lastV: 0, loading: true, buffer: [], subscribed: false, fn: (text) => onState(plant, text) };
    watched.set(plant, w);
    if (await subscribeWatch(plant, w)) await reload(plant);
  }

  // This member's own channels: the fleet's heartbeats and its answers.
  let listening = false;
  async function listen() {
    try {
      await Promise.all([bp.subscribe(KEYS.fleet, onFleet), bp.subscribe(KEYS.member(id), onMember)]);
      listening = true;
      syncAll();
    } catch (err) {
      fail(err); // again when the backplane is up: onUp
    }
  }

  // The backplane is up: at start (a Redis connection is made after this member), or back after
  // an outage. Subscriptions made before are restored by the backplane, but what was published
  // meanwhile was missed: the hash has it. Those that failed are made now.
  const onUp = () => {
    if (closed) return;
    if (!listening) listen();
    for (const [plant, w] of watched) {
      if (w.subscribed) reload(plant);
      else subscribeWatch(plant, w).then((ok) => ok && reload(plant));
    }
    syncAll();
  };
  bp.on('up', onUp);
  const ready = listen();

  return {
    id,
    counters,
    get lastError() { return lastError; },
    get forwardedSize() { return forwarded.size; },
    /** Resolves once this member listens on its channels (or failed to: see counters). */
    ready: () => ready,
    claim,
    renew,
    release,
    holds,
    forward,
    reply,
    publishState,
    watch,
    /** Plants whose states this member takes. */
    watching: () => [...watched.keys()],
    /** Members heard from, with the clock estimate of each. */
    members: () => Object.fromEntries([...members].map(([mid, m]) => [mid, m.est.estimate()])),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      bp.removeListener('up', onUp);
      forwarded.clear('this cloud instance is closing');
      await Promise.allSettled([...held.keys()].map((p) => release(p)));
      await Promise.allSettled([
        ...[...watched].map(([p, w]) => bp.unsubscribe(KEYS.states(p), w.fn)),
        bp.unsubscribe(KEYS.fleet, onFleet),
        bp.unsubscribe(KEYS.member(id), onMember),
      ]);
      watched.clear();
    },
  };
}

module.exports = { createFleetMember, DEFAULTS, KEYS, memberId };
