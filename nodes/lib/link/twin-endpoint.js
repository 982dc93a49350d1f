'use strict';
/**
 * The cloud's twin endpoint (`/s7twin/twin`): the peer core (lib/link/endpoint-core.js) in the
 * role of the twins' side.
 *
 * - Twins send only `cmd` and `probe`; a peer that presented a viewer token is read-only (its
 *   requests are answered E_READ_ONLY and go nowhere). A command is checked against the plant's
 *   I/O table (lib/core/table/registry.js: configured, taught by its edge, else the process's):
 *   one naming a tag the table has not, or cannot be written from the cloud, or a value of the
 *   wrong type or range, is answered here (E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE) and
 *   never reaches the edge (which checks again before it writes).
 * - Every request gets its deadline here, on the cloud's clock (lib/core/clock.js): its arrival
 *   plus the lifetime its `ttl` asks for (at most `maxLifetimeMs`) or `lifetimeMs`; a `dl` the
 *   twin sent means nothing here.
 * - Answers (ack, err, probe-res) go to the connection the request came on (by plant and ref,
 *   lib/link/twin-requests.js), never to another twin that uses the same sender id; an answer for
 *   a twin that is gone is dropped and counted (to every other twin it would be noise). A request
 *   with the (src, seq) of one still in flight is refused E_DUPLICATE: downstream it could not be
 *   told apart. The latest full state of a plant goes as a `snap` to each fresh twin of it, and the
 *   first twin of a plant is announced ('plant' event) so the edge endpoint takes its states.
 * - The command log (lib/history/command-audit.js, when `audit` is given): every cmd is recorded
 *   as it arrives (who, from where, its deadline, what it asks), with the refusal when it is
 *   refused here, and every answer sent out for a plant (ack, err) as its outcome.
 * - Keepalive: only a twin not heard from for a whole `pingMs` is pinged, and one that then stays
 *   silent for another period is terminated; busy twins get no pings at all (pinging 1,000 busy
 *   twins every period showed as a 68 ms busy stretch of the cloud in a CPU profile).
 */
const envelope = require('../core/envelope');
const { plantTables } = require('../core/io-table');
const { DEFAULTS, createEndpointCore } = require('./endpoint-core');
const { createTwinRequests } = require('./twin-requests');

const TWIN_KINDS = envelope.REQUEST_KINDS;

const refusal = (code, message, env, cid) => Object.assign(
  new envelope.EnvelopeError(code, message, { src: env.src, seq: env.seq }),
  cid === undefined ? {} : { cid },
);

/**
 * Why a twin's frame is refused, or null if it may go on.
 * @param {object} env a valid envelope from a twin
 * @param {{viewer: boolean}} peer
 * @param {{maxLifetimeMs: number}} o
 * @param {object} [table] the plant's I/O table: a command's values are checked against it
 * @returns {null|{err: EnvelopeError, counter?: string}} the err to answer with, the counter it adds to
 */
function twinRefusal(env, peer, o, table) {
  if (!TWIN_KINDS.has(env.k)) {
    return { counter: 'kindRefused', err: refusal('E_KIND', `twins send cmd and probe frames, not "${env.k}"`, env) };
  }
  if (peer.viewer) {
    return { counter: 'readOnly', err: refusal('E_READ_ONLY', `this connection is read-only (a viewer token): the ${env.k} was not relayed`, env, env.cid) };
  }
  if (env.ttl !== undefined && env.ttl > o.maxLifetimeMs) {
    return { err: refusal('E_RANGE', `ttl ${env.ttl} ms is more than the ${o.maxLifetimeMs} ms this endpoint allows`, env, env.cid) };
  }
  if (env.k === 'cmd' && table) {
    try {
      for (const [k, v] of Object.entries(env.d)) table.checkWrite(k, v);
    } catch (err) {
      return { counter: 'tableRefused', err: refusal(err.code, err.message, env, env.cid) };
    }
  }
  return null;
}

/**
 * A request's deadline on the cloud's clock: its arrival plus the lifetime it asks for (`ttl`),
 * or the endpoint's default lifetime.
 * @param {{ttl?: number}} env
 * @param {number} arrived lib/core/clock.js now() when the frame arrived
 * @param {number} lifetimeMs
 */
const deadlineOf = (env, arrived, lifetimeMs) => arrived + (env.ttl || lifetimeMs);

/**
 * One keepalive round for a twin (see the header): ping the silent, terminate the still silent.
 * @param {object} c a peer (lib/link/peer.js)
 * @param {{pings: number, timeouts: number}} counters
 */
function pingSilent(c, counters) {
  if (c.heard) {
    c.heard = false;
    c.pinged = false;
    return;
  }
  if (c.pinged) {
    counters.timeouts += 1;
    c.conn.terminate();
    return;
  }
  c.pinged = true;
  counters.pings += 1;
  try { c.conn.ping(); } catch { /* connection already closing */ }
}

/**
 * @param {object} opts DEFAULTS of lib/link/endpoint-core.js plus path, src, tokens, viewerTokens,
 *   plant, grants (see lib/link/endpoint.js); `routeAnswers: false` sends an answer for a twin
 *   that is gone to every twin of the plant instead of dropping it; `audit`: the command log's
 *   recorder (lib/history/command-audit.js)
 * @returns {EventEmitter & object} see lib/link/endpoint.js
 * @throws {AuthError} E_TOKENS
 */
function createTwinEndpoint(opts) {
  const o = { ...DEFAULTS, ...opts };
  const plantsSeen = new Set(); // plants a twin has connected for
  const requests = createTwinRequests({ holdMs: o.graceMs + o.probeAnswerMs + 1750, maxEntries: o.maxHeld });
  const { audit } = o;
  const tables = o.tables || plantTables; // each plant's I/O table
  const core = createEndpointCore(o, {
    name: 'twin',
    counters: { pings: 0, viewers: 0, readOnly: 0, unroutable: 0, duplicateRequests: 0, busy: 0, tableRefused: 0 },
    tickMs: o.pingMs,
    limits: { ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs },
    admit(ticket) {
      if (core.peers.size >= o.maxClients) { ticket.refuse(503, 'Service Unavailable', 'full'); return; }
      ticket.accept();
    },
    onAccept(c) {
      if (c.viewer) core.counters.viewers += 1;
      if (core.latest.has(c.plant)) c.deliver(core.sender.make('snap', { d: core.latest.values(c.plant) }));
      if (!plantsSeen.has(c.plant)) { plantsSeen.add(c.plant); core.ee.emit('plant', c.plant); }
    },
    onFrame(c, env, arrived) {
      const no = twinRefusal(env, c, o, tables.get(c.plant));
      if (no) {
        if (no.counter) core.counters[no.counter] += 1;
        if (audit) {
          audit.arrived({ via: 'ws', plant: c.plant, who: c.who, from: c.remote, at: arrived, env });
          audit.refused(c.plant, { src: env.src, seq: env.seq }, no.err.code, no.err.message);
        }
        core.answerError(c, no.err);
        return false;
      }
      env.dl = deadlineOf(env, arrived, o.lifetimeMs);
      if (audit) audit.arrived({ via: 'ws', plant: c.plant, who: c.who, from: c.remote, at: arrived, env });
      const held = requests.hold(c.plant, env, c.id);
      if (held === 'held') return true;
      let err;
      if (held === 'duplicate') {
        core.counters.duplicateRequests += 1;
        const why = 'another connection with this sender id, or this one: give every twin its own id and every frame a new seq';
        err = refusal('E_DUPLICATE', `a ${env.k} ${env.src}#${env.seq} is still in flight (${why})`, env, env.cid);
      } else {
        core.counters.busy += 1;
        err = refusal('E_BUSY', `${requests.size} requests already wait for their answers: the ${env.k} was not relayed`, env, env.cid);
      }
      if (audit) audit.refused(c.plant, { src: env.src, seq: env.seq }, err.code, err.message);
      core.answerError(c, err);
      return false;
    },
    answerTo: (plant, ref) => requests.take(plant, ref),
    onSend: audit ? (env, plant) => audit.answered(plant, env) : undefined,
    tick: (c) => pingSilent(c, core.counters),
    onClose() {},
    strayAnswer: o.routeAnswers === false ? undefined : () => { core.counters.unroutable += 1; },
  });
  return core.api({});
}

module.exports = { createTwinEndpoint, twinRefusal, deadlineOf, pingSilent };
