'use strict';
/**
 * One cloud instance as a member of a fleet: the plant side of its edge endpoint
 * (lib/link/edge-relay.js) on a backplane (lib/fleet/backplane.js: in-process for a single
 * instance, Redis for several). Every instance runs the same code; a single instance is a fleet
 * of one.
 *
 * Who does what, per plant:
 * - the HOLDER, the instance the plant's edge is connected to, holds the plant's lease
 *   (lib/fleet/leases.js) and relays the requests other instances forward to its edge;
 * - an ORIGIN, an instance a twin of the plant is connected to, forwards its twins' requests to
 *   the holder and holds each until its one answer (lib/fleet/requests.js);
 * - a WATCHER, an instance with twins of the plant, takes the plant's states (lib/fleet/states.js).
 * A plant's I/O table, as its edge taught the holder, reaches every member (lib/fleet/tables.js).
 * Deadlines cross instances on each member's estimate of the others' clocks (lib/fleet/clocks.js).
 * Channels and keys: lib/fleet/keys.js.
 */
const crypto = require('node:crypto');
const os = require('node:os');
const clock = require('../core/clock');
const { KEYS } = require('./keys');
const { createMemberClocks } = require('./clocks');
const { createLeases } = require('./leases');
const { createFleetRequests } = require('./requests');
const { createStateWatch } = require('./states');
const { createTableShare } = require('./tables');
const { plantTables } = require('../core/io-table');

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
 * @param {object} [o.tables] the plant registry tables go into (default: the process's, lib/core/io-table.js)
 */
function createFleetMember(o) {
  const cfg = { ...DEFAULTS, ...o };
  const bp = cfg.backplane;
  const id = cfg.id || memberId();
  const counters = {
    members: 0, forwarded: 0, forwardRefused: 0, remoteRequests: 0, notHolder: 0, noClock: 0,
    replies: 0, unroutableReplies: 0, remoteAnswers: 0, lateAnswers: 0, unknownOutcomes: 0,
    statesPublished: 0, statesIn: 0, snapsFromStore: 0, badMessages: 0, leaseLost: 0, backplaneErrors: 0, duplicates: 0,
    tablesAnnounced: 0, tablesIn: 0, tableRefused: 0,
  };
  let closed = false;
  let lastError = null;
  const fail = (err) => { counters.backplaneErrors += 1; lastError = err.message; };
  const isClosed = () => closed;
  const parts = { bp, id, counters, fail, sender: cfg.sender, closed: isClosed };

  const clocks = createMemberClocks({ ...parts, syncMs: cfg.syncMs, memberTimeoutMs: cfg.memberTimeoutMs });
  const leases = createLeases({
    ...parts, leaseMs: cfg.leaseMs, leaseDriftPpm: cfg.leaseDriftPpm, onLost: cfg.onLost,
    onRequest: (plant, text) => requests.onRequest(plant, text),
  });
  const requests = createFleetRequests({
    ...parts, graceMs: cfg.graceMs, hopMs: cfg.hopMs, probeAnswerMs: cfg.probeAnswerMs, maxForwarded: cfg.maxForwarded,
    holds: leases.holds, localDeadline: clocks.localDeadline, onRequest: cfg.onRequest, onEnvelope: cfg.onEnvelope,
  });
  const states = createStateWatch({ ...parts, onEnvelope: cfg.onEnvelope });
  const tables = createTableShare({ ...parts, registry: cfg.tables || plantTables });

  /** This member's own channel: clock answers and answers to the requests it forwarded. */
  function onMember(text) {
    const arrived = clock.now();
    let m;
    try { m = JSON.parse(text); } catch { counters.badMessages += 1; return; }
    if (m && m.t === 'sync-res' && typeof m.f === 'string') { clocks.onSyncRes(m, arrived); return; }
    if (m && m.t === 'ans' && typeof m.p === 'string') { requests.onAnswer(m.p, m.e); return; }
    counters.badMessages += 1;
  }

  // This member's own channels: the fleet's heartbeats and its answers.
  let listening = false;
  async function listen() {
    try {
      await Promise.all([bp.subscribe(KEYS.fleet, clocks.onFleet), bp.subscribe(KEYS.member(id), onMember), tables.listen()]);
      listening = true;
      clocks.syncAll();
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
    states.up();
    clocks.syncAll();
  };
  bp.on('up', onUp);
  const ready = listen();

  return {
    id,
    counters,
    get lastError() { return lastError; },
    get forwardedSize() { return requests.size; },
    /** Resolves once this member listens on its channels (or failed to: see counters). */
    ready: () => ready,
    claim: leases.claim,
    renew: leases.renew,
    release: leases.release,
    holds: leases.holds,
    forward: requests.forward,
    reply: requests.reply,
    publishState: states.publishState,
    watch: states.watch,
    /** Share a plant's table its edge taught here with every member. */
    announceTable: tables.announce,
    /** Read a plant's table from the backplane into the registry (a twin of it came first). */
    loadTable: tables.load,
    /** Plants whose states this member takes. */
    watching: states.plants,
    /** Members heard from, with the clock estimate of each. */
    members: clocks.estimates,
    async close() {
      if (closed) return;
      closed = true;
      clocks.close();
      bp.removeListener('up', onUp);
      requests.clear('this cloud instance is closing');
      await Promise.allSettled(leases.plants().map((p) => leases.release(p)));
      await Promise.allSettled([
        ...states.unsubscribeAll(),
        bp.unsubscribe(KEYS.fleet, clocks.onFleet),
        bp.unsubscribe(KEYS.member(id), onMember),
        tables.unlisten(),
      ]);
      states.clear();
    },
  };
}

module.exports = { createFleetMember, DEFAULTS, KEYS, memberId };
