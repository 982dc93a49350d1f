'use strict';
/**
 * The cloud's edge endpoint (`/s7twin/edge`): the peer core (lib/link/endpoint-core.js) in the
 * role of the plants' side. One authority per plant, across every cloud instance of a fleet.
 *
 * - One edge per plant: a second connection is refused (HTTP 409, counted) while the current edge
 *   is alive, i.e. heard within `linkTimeoutMs`; a newcomer is accepted only once the current one
 *   is gone or has been silent that long, never by displacing a live edge. The plant's lease in
 *   the backplane (lib/fleet/member.js, renewed on every sync) extends this to edges on other
 *   instances; a backplane that cannot say is a 503 (the edge tries again).
 * - The edge sends a `sync` every 500 ms (lib/link/dialer.js); each is answered at once with a
 *   `sync-res` carrying the cloud's receive and send times (the edge's clock-offset estimate,
 *   lib/core/clock.js). An edge silent for `linkTimeoutMs` (3 s) is dropped: a black-holed link is
 *   torn down within seconds, not after TCP's minutes.
 * - Requests from the flow, and each one's single answer: lib/link/edge-relay.js. States of other
 *   instances' edges come out of this endpoint as if its own edge had sent them, so the cloud flow
 *   is the same on every instance.
 * - The edge may send state, snap, ack, err, probe-res, sync, table, backfill and samples (a block
 *   of a high-frequency signal, passed to the flow as it came), and its state, snap and backfill
 *   frames may carry only streamed tags of the plant's I/O table, with values of their type and
 *   range. The plant's table: the one configured here for it (an s7twin-io-table node naming the
 *   plant), else the one its edge sends first on every connection (a `table` frame), else the
 *   process's (S7T_IO_TABLE, else the demo plant's). An edge whose table is not the one configured
 *   for its plant is told why (E_TABLE_MISMATCH) and disconnected; a table an edge taught is
 *   shared with the fleet's other instances (lib/fleet/tables.js).
 * - Backfill (the states of an outage, forwarded from the edge's journal): filed into the plant
 *   history through `fileBackfill` and answered once stored, never passed on to the flows, the
 *   fleet or a twin (lib/link/backfill-intake.js).
 * - The command log (lib/history/command-audit.js, when `audit` is given): a command a flow of the
 *   cloud sends (an s7twin-link-out node names itself as `by`), not one it passes on from a twin
 *   or the REST endpoint, is recorded as the flow's as it leaves, and the answer this endpoint
 *   passes to the flow for it (the edge's, or its own: E_BUSY, E_OUTCOME_UNKNOWN, E_EDGE_DOWN…)
 *   as its outcome.
 */
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const { plantTables } = require('../core/io-table');
const { DEFAULTS, createEndpointCore } = require('./endpoint-core');
const { createEdgeRelay, withDeadline } = require('./edge-relay');
const { createBackfillIntake } = require('./backfill-intake');

const EDGE_KINDS = new Set(['state', 'snap', 'ack', 'err', 'probe-res', 'sync', 'table', 'backfill', 'samples']);
/** The edge's frames that carry the plant's values, checked against its table. */
const VALUE_KINDS = new Set(['state', 'snap', 'backfill']);
const TAKEN = 'Conflict: an edge is connected for this plant';

/** How often silent edges are looked for: a sixth of the timeout (at least 50 ms). */
const tickMsOf = (linkTimeoutMs) => Math.max(50, Math.round(linkTimeoutMs / 6));

/**
 * Why the edge's frame is refused, or null.
 * @param {object} env a valid envelope from the edge
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {null|{err: Error, counter?: string}}
 */
function edgeRefusal(env, table = plantTables.get(undefined)) {
  const ref = { src: env.src, seq: env.seq };
  if (!EDGE_KINDS.has(env.k)) {
    const msg = `the edge sends state, snap, ack, err, probe-res, sync, table, backfill and samples frames, not "${env.k}"`;
    return { counter: 'kindRefused', err: new envelope.EnvelopeError('E_KIND', msg, ref) };
  }
  if (VALUE_KINDS.has(env.k)) {
    try {
      table.checkState(env.d);
    } catch (err) {
      return { counter: 'stateRefused', err: Object.assign(err, { ref }) };
    }
  }
  return null;
}

/**
 * @param {object} opts DEFAULTS of lib/link/endpoint-core.js plus path, src, tokens, plant, grants
 *   (see lib/link/endpoint.js), backplane and fleet (lib/link/edge-relay.js), fileBackfill
 *   (plant, env) → Promise: where backfill frames are filed (the plant history; none: refused
 *   E_NO_HISTORY, lib/link/backfill-intake.js), and `audit`: the command log's recorder
 *   (lib/history/command-audit.js), for the flow's own commands
 * @returns {EventEmitter & object} see lib/link/endpoint.js
 * @throws {AuthError} E_TOKENS
 */
function createEdgeEndpoint(opts) {
  const o = { ...DEFAULTS, ...opts };
  const counters = {
    edgeRefused: 0, staleEdges: 0, syncs: 0, inflight: 0, unknownOutcomes: 0, lateAnswers: 0,
    edgeErrors: 0, busy: 0, leaseLost: 0, backplaneRefused: 0, duplicateRequests: 0, leaseUnsure: 0,
    tables: 0, tableRefused: 0, stateRefused: 0, // tables edges sent; refused (not the plant's); states their table refused
    // backfill frames: received, filed, found filed already, refused by the table, refused for want
    // of a history, and connections whose filing failed (the rest of it left unanswered)
    backfillIn: 0, backfillFiled: 0, backfillKnown: 0, backfillRefused: 0, backfillUnfiled: 0, backfillUnanswered: 0,
  };
  const tables = o.tables || plantTables; // each plant's I/O table (lib/core/table/registry.js)
  const core = createEndpointCore(o, {
    name: 'edge',
    counters,
    tickMs: tickMsOf(o.linkTimeoutMs),
    limits: { ratePerS: 0, errors: o.errors, errorWindowMs: o.errorWindowMs },
    admit,
    onAccept: (c) => relay.attach(c),
    onFrame,
    tick(c, t) {
      if (t - c.heardAt > o.linkTimeoutMs) { core.counters.timeouts += 1; c.conn.terminate(); }
    },
    onClose: (c, code) => relay.detach(c, code),
    onAbandon: (plant) => relay.fleet.release(plant),
    sendRequest,
    onEmit: o.audit ? (env, plant) => o.audit.answered(plant, env, { flow: true }) : undefined,
    onClosed: () => relay.close(),
  });
  const relay = createEdgeRelay({ ...o, sender: core.sender, counters: core.counters, emit: core.emit });
  const backfill = createBackfillIntake({ sender: core.sender, counters: core.counters, file: o.fileBackfill });

  /**
   * A request from the flow, to the plant's edge; a flow's own command in the command log first
   * (its answer comes back through onEmit, or is the E_EDGE_DOWN below).
   */
  function sendRequest(env, plant, by) {
    const req = withDeadline(env, o.lifetimeMs);
    const flow = Boolean(o.audit && by) && o.audit.flowSent({ plant, by, at: clock.now(), env: req });
    const n = relay.sendRequest(req, plant);
    if (n === 0 && flow) {
      // Not delivered: the link-out node refuses it to twins, which a flow is not; the log says so here.
      const msg = `no edge of plant ${plant} is ready: the ${env.k} was not delivered`;
      o.audit.refused(plant, { src: env.src, seq: env.seq }, 'E_EDGE_DOWN', msg, { flow: true });
    }
    return n;
  }

  function admit(ticket) {
    const { plant } = ticket;
    const cur = relay.edgeOf(plant);
    if (cur && clock.now() - cur.heardAt <= o.linkTimeoutMs) {
      core.counters.edgeRefused += 1;
      ticket.refuse(409, TAKEN, 'edge-taken');
      return;
    }
    if (cur) { core.counters.staleEdges += 1; cur.conn.terminate(); } // silent: gone in all but name
    else if (relay.plants().length >= o.maxClients) { ticket.refuse(503, 'Service Unavailable', 'full'); return; }
    // The plant's lease, across every instance of the fleet: another instance's live edge
    // holds it (409), an unreachable backplane cannot say (503: the edge tries again).
    relay.fleet.claim(plant).then((ok) => {
      // Refused too when another connection of the plant's edge won the race here.
      if (!ok || relay.edgeOf(plant)) {
        core.counters.edgeRefused += 1;
        ticket.refuse(409, TAKEN, 'edge-taken');
        return;
      }
      if (ticket.abandoned) {
        relay.fleet.release(plant);
        ticket.drop();
        return;
      }
      ticket.accept();
    }, (err) => {
      core.counters.backplaneRefused += 1;
      ticket.refuse(503, `Service Unavailable: ${err.message}`, 'backplane');
    });
  }

  /**
   * The edge's table (its first frame): the plant's from now on, unless the plant is configured
   * here with another, which sends the edge away. Shared with the fleet whether it was learned or
   * matches this instance's configuration: the instance a plant's OPC UA and Modbus servers run on
   * is configured with the plant's table, and the other instances learn it only from here.
   */
  function onTable(c, env) {
    core.counters.tables += 1;
    try {
      const table = tables.learn(c.plant, env.t);
      relay.fleet.announceTable(c.plant, table);
    } catch (err) {
      core.counters.tableRefused += 1;
      const code = err.code === 'E_TABLE' ? 'E_TABLE_MISMATCH' : err.code;
      c.expel(core.sender.error(code, err.message, { src: env.src, seq: env.seq }));
      core.ee.emit('invalid', Object.assign(new Error(err.message), { code }), c.id);
    }
  }

  /** The edge's frame: false if it is not passed on. Answers syncs, checks states and answers. */
  function onFrame(c, env, arrived) {
    if (env.k === 'table') { onTable(c, env); return false; }
    const no = edgeRefusal(env, tables.get(c.plant));
    if (no && env.k === 'backfill') {
      core.counters.stateRefused += 1;
      backfill.refused(c, env, no.err);
      return false;
    }
    if (no) {
      if (no.counter) core.counters[no.counter] += 1;
      core.answerError(c, no.err);
      return false;
    }
    if (env.k === 'sync') {
      core.counters.syncs += 1;
      c.deliver(core.sender.make('sync-res', { ref: { src: env.src, seq: env.seq }, d: { t1: env.ts, t2: arrived } }));
      if (!c.ready) { c.ready = true; core.ee.emit('ready', c.id); }
      relay.fleet.renew(c.plant); // alive: the plant's lease stays with this instance
      return false;
    }
    if (env.k === 'backfill') { backfill.receive(c, env); return false; }
    if (env.k === 'state' || env.k === 'snap') {
      backfill.sawLive(c.plant, env);
      relay.fleet.publishState(env, c.plant);
      return true;
    }
    if (env.k === 'samples') return true; // a signal's samples: the flow's (nothing to relay or answer)
    if (!env.ref) { // an err about a frame it could not read: the cloud's own doing, not a twin's
      core.counters.edgeErrors += 1;
      const what = env.e ? `${env.e.code}: ${env.e.msg}` : env.k;
      core.ee.emit('invalid', Object.assign(new Error(`the edge reported ${what} without a ref`), { code: env.e ? env.e.code : 'E_SCHEMA' }), c.id);
      return false;
    }
    return relay.fromEdge(c, env);
  }

  return core.api({
    /**
     * The plant's edge (any plant's, without one) is connected here, has had its first sync
     * answered and holds the plant's lease.
     */
    edgeReady: (plant) => {
      if (plant !== undefined) return Boolean(relay.liveEdge(plant));
      return relay.plants().some((p) => relay.liveEdge(p));
    },
    /** The plants whose edges are connected here. */
    edgePlants: () => relay.plants(),
    /**
     * Take the plant's states from the other instances (its twins are here), and its table if no
     * edge taught it here yet.
     */
    watch: (plant) => {
      if (tables.source(plant) === 'default') relay.fleet.loadTable(plant);
      return relay.fleet.watch(plant);
    },
    /** The fleet member (lib/fleet/member.js), for stats and tests. */
    fleet: relay.fleet,
  });
}

module.exports = { createEdgeEndpoint, edgeRefusal, EDGE_KINDS };
