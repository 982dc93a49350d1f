'use strict';
/**
 * What both link endpoints of the cloud do for every connection (the twin endpoint,
 * lib/link/twin-endpoint.js, and the edge endpoint, lib/link/edge-endpoint.js, are this core with
 * a role on top):
 *
 * - admission before the upgrade: the token and the plant (lib/link/admission.js; 401, 400 or
 *   403 and no socket), then the role's own checks (capacity, one edge per plant);
 * - per frame: a message rate (past it the peer is told why and closed with 1008), a size limit
 *   (E_TOO_LARGE answer, then close 1009), parse and validation (a malformed frame is answered
 *   with an `err` envelope and counted, never passed on), an error budget (past it: told, 1008),
 *   duplicate and gap tracking per connection and sender (lib/link/senders.js), then the role's check;
 * - a bounded outbox per peer (lib/link/peer.js) so a slow peer never grows memory or slows the
 *   others, and one keepalive round for all peers whose rule the role gives;
 * - routing out: to one peer, an answer to the peer that asked (the role knows which), anything
 *   else to every peer of the frame's plant; the latest state of each plant kept as it goes out
 *   (lib/link/latest-state.js).
 *
 * The transport is a seam: `handleUpgrade` takes WebSocket upgrades (lib/link/ws-transport.js),
 * `admitRequest(r)` admits a peer of any transport (a message bus's hello,
 * lib/link/transports/bus-session.js) before its connection opens, and `accept(conn, info)` runs
 * any connection that can send a frame, close, and emits frames and close, once its peer has been
 * admitted.
 *
 * A role: {name, counters, tickMs, limits, admit(ticket), onAccept(peer), onFrame(peer, env,
 * arrived) → pass on?, tick(peer, now), onClose(peer, code), onAbandon?(plant), sendRequest?(env,
 * plant, by) → peers reached (by: the flow's node that sent it, when one did), answerTo?(plant,
 * ref) → the id of the peer whose request an answer answers, strayAnswer?() → the answer to a peer that is gone is dropped (else it goes to every
 * peer of the plant), onSend?(env, plant) → sees every frame sent out for a plant (the twin
 * endpoint records its answers in the command log), onEmit?(env, plant) → sees every frame passed to
 * the flow (the edge endpoint records the edge's answers to a flow's own commands), onClosed?() →
 * Promise}.
 */
const { EventEmitter } = require('node:events');
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const { createCodec, PROTOCOLS, TIME_UNIT_US } = require('../core/codec');
const { plantTables } = require('../core/io-table');
const { createWsAcceptor } = require('./ws-transport');
const { createPeerSet } = require('./peer-set');
const { createIntake } = require('./intake');
const { createSenders } = require('./senders');
const { createLatestStates } = require('./latest-state');
const { createAdmission } = require('./admission');
const { requestToken, requestPlant } = require('../access/auth');

const DEFAULTS = {
  pingMs: 10000, // twins: server ping period; a peer silent for a whole period is terminated
  linkTimeoutMs: 3000, // edge: a peer silent this long (no sync, no frame) is dropped
  maxPayload: 64 * 1024, // bytes; larger frames: err E_TOO_LARGE, then close 1009
  hardMaxPayload: 1024 * 1024, // bytes; the transport itself refuses frames past this (close 1009, no answer)
  highWaterBytes: 256 * 1024, // connection buffer above which frames wait in the outbox
  drainPollMs: 10, // how often a congested peer is looked at again
  maxClients: 1000, // peers per endpoint (edge endpoint: edges, one per plant); more are refused with 503 before the upgrade
  maxFrames: 1000, // queued non-state frames per congested peer
  maxTags: 4096, // tags in a pending coalesced state / in the latest plant state
  closeGraceMs: 1000, // on close, how long peers get to answer the close handshake
  lifetimeMs: envelope.DEFAULT_LIFETIME_MS, // a request's lifetime when it asks for none (ttl)
  maxLifetimeMs: 10000, // the longest lifetime a request may ask for; more is refused (E_RANGE)
  graceMs: 250, // edge: how long past a command's deadline its answer may still be on its way
  probeAnswerMs: 5000, // edge: how long past a probe's deadline the edge may wait for its slot
  maxHeld: 100000, // twin: requests waiting for their answers; more are refused (E_BUSY)
  ratePerS: 200, // frames a second per peer on average (0 = off; the edge endpoint: off)
  burst: 400, // frames a peer may send at once above that rate
  errors: 50, // refused frames per peer within errorWindowMs before it is disconnected (0 = off)
  errorWindowMs: 10000,
};

/** Counters of every endpoint; a role adds its own. */
const COUNTERS = {
  connections: 0, accepted: 0, refused: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0,
  errors: 0, tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0,
  queueDepth: 0, kindRefused: 0, rateLimited: 0, errorBudget: 0, plantRefused: 0, noPlant: 0,
  protocolRefused: 0, compactPeers: 0,
};

const isState = (env) => (env.k === 'state' || env.k === 'snap') && Boolean(env.d);

/**
 * The way in for any transport: a peer that presents a token and names a plant is admitted
 * (lib/link/admission.js), then the role decides (capacity, one edge per plant) on a ticket, and
 * the transport opens the connection only once it is accepted; every refusal is an HTTP status
 * (the WebSocket answers the upgrade with it, a message bus sends it back in its refusal), and no
 * frame of a refused peer is ever read.
 * @param {object} o
 * @param {object} o.admission lib/link/admission.js
 * @param {object} o.counters the endpoint's: refused, plantRefused
 * @param {EventEmitter} o.ee the endpoint: 'refused'(reason, req) (req: the upgrade request, or
 *   for another transport an object with its `socket.remoteAddress` and `url`)
 * @param {(ticket: object) => void} o.admit the role's decision: ticket.refuse(status, text, reason) or ticket.accept()
 * @param {(conn: object, info: object) => void} o.accept run the admitted connection
 * @param {() => boolean} o.isClosed
 * @returns {(r: object) => void} admitRequest(r): r = {token, plant, remote, url?, transport?,
 *   req?, protocolRefused? (it offered only subprotocols this bridge does not speak), refuse(status,
 *   text), abandoned (the peer left), drop(), open(cb: (conn) => void)}
 */
function createAdmitter(o) {
  const { counters } = o;

  function refuse(r, status, text, reason) {
    counters.refused += 1;
    o.ee.emit('refused', reason, r.req || { socket: { remoteAddress: r.remote }, url: r.url || '', headers: {} });
    r.refuse(status, text);
  }

  return function admitRequest(r) {
    if (o.isClosed()) { refuse(r, 503, 'Service Unavailable', 'closed'); return; }
    const who = o.admission.admitCredentials(r.token, r.plant);
    if (who.status) {
      if (who.reason !== 'token') counters.plantRefused += 1;
      refuse(r, who.status, who.text, who.reason);
      return;
    }
    // A client that offers subprotocols and none of ours would get frames it cannot read.
    if (r.protocolRefused) {
      counters.protocolRefused += 1;
      refuse(r, 400, `Bad Request: unsupported subprotocol (this endpoint speaks ${PROTOCOLS.join(', ')})`, 'subprotocol');
      return;
    }
    const info = { plant: who.plant, viewer: who.viewer, who: who.who, remote: r.remote, url: r.url, transport: r.transport || 'ws' };
    o.admit({
      plant: who.plant,
      viewer: who.viewer,
      refuse: (status, text, reason) => refuse(r, status, text, reason),
      /** The endpoint closed or the peer left while the role made up its mind. */
      get abandoned() { return o.isClosed() || r.abandoned; },
      drop: () => r.drop(),
      accept: () => r.open((conn) => o.accept(conn, info)),
    });
  };
}

/**
 * The WebSocket way in: an HTTP upgrade request for the endpoint's path, admitted before any
 * WebSocket exists (lib/link/ws-transport.js).
 * @param {object} acceptor lib/link/ws-transport.js createWsAcceptor, or null (the endpoint takes
 *   its peers over another transport: no upgrade is its)
 * @param {(r: object) => void} admitRequest createAdmitter's
 * @returns {(req, socket, head) => boolean} true if handled (accepted or refused), false if not ours
 */
function createUpgradeHandler(acceptor, admitRequest) {
  return function handleUpgrade(req, socket, head) {
    if (!acceptor || !acceptor.matches(req)) return false;
    admitRequest({
      req,
      token: requestToken(req),
      plant: requestPlant(req),
      remote: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
      url: req.url,
      transport: 'ws',
      protocolRefused: acceptor.protocolOf(req) === null,
      refuse: (status, text) => acceptor.refuse(socket, status, text),
      get abandoned() { return socket.destroyed; },
      drop: () => socket.destroy(),
      open: (cb) => acceptor.upgrade(req, socket, head, cb),
    });
    return true;
  };
}

/**
 * @param {object} o DEFAULTS plus path, src, tokens, viewerTokens, plant, grants (see lib/link/endpoint.js)
 * @param {object} role see the header
 * @returns {object} the core: its parts for the role, and api(extra) → the endpoint
 * @throws {AuthError} E_TOKENS a token listed for two roles, a bad plant id
 */
function createEndpointCore(o, role) {
  const ee = new EventEmitter();
  const admission = createAdmission({ role: role.name, tokens: o.tokens, viewerTokens: o.viewerTokens, plant: o.plant, grants: o.grants });
  const sender = envelope.createSender(o.src, { now: clock.now });
  const counters = { ...COUNTERS, ...role.counters };
  const senders = createSenders({ counters });
  const latest = createLatestStates({ maxTags: o.maxTags });
  /**
   * Each plant's I/O table (lib/core/table/registry.js): where the compact encoding's tag ids come
   * from, looked up per frame, as an edge may teach its plant's table once connected.
   */
  const tables = o.tables || plantTables;
  // Peers come over WebSocket upgrades unless the endpoint takes them over another transport
  // (`transport`, lib/link/transports/): then `admitRequest` is its only way in.
  const overWs = !o.transport || o.transport === 'ws';
  const acceptor = overWs ? createWsAcceptor({ path: o.path, maxPayload: Math.max(o.hardMaxPayload, o.maxPayload) }) : null;
  let closed = false;

  /** Emit a frame for the flow: from `clientId` (if a peer's), for `plant`. */
  const emit = (env, clientId, plant) => {
    if (role.onEmit) role.onEmit(env, plant);
    ee.emit('envelope', env, clientId, plant);
  };
  const intake = createIntake({
    maxPayload: o.maxPayload,
    counters,
    sender,
    senders,
    onInvalid: (err, clientId, extra) => ee.emit('invalid', err, clientId, extra),
    check: (c, env, arrived) => role.onFrame(c, env, arrived),
    pass: (c, env) => emit(env, c.id, c.plant),
  });

  const peers = createPeerSet({
    name: role.name,
    counters,
    limits: role.limits,
    peer: { maxFrames: o.maxFrames, maxTags: o.maxTags, highWaterBytes: o.highWaterBytes, drainPollMs: o.drainPollMs, closeGraceMs: o.closeGraceMs },
    tickMs: role.tickMs,
    tick: role.tick,
    onFrame: intake.receive,
    onGone(c, code) {
      senders.forget(c);
      role.onClose(c, code);
      ee.emit('disconnect', c.id, code);
    },
  });

  /**
   * Run an admitted peer's connection (any transport's).
   * @param {object} conn a connection (lib/link/ws-transport.js)
   * @param {{plant: string, viewer?: boolean, who?: object, remote?: string, url?: string}} info
   */
  function accept(conn, info) {
    if (closed) { conn.terminate(); if (role.onAbandon) role.onAbandon(info.plant); return; }
    // The frames' encoding, as the opening handshake agreed (JSON when it named none).
    if (!conn.codec) {
      conn.codec = createCodec(conn.protocol, { table: () => tables.get(info.plant), timeUnitUs: TIME_UNIT_US[role.name === 'edge' ? 'link' : 'twin'] });
    }
    if (conn.codec.binary) counters.compactPeers += 1;
    const c = peers.add(conn, info);
    ee.emit('connect', c.id, { remote: c.remote, url: info.url, viewer: c.viewer, plant: c.plant });
    role.onAccept(c);
  }

  const admitRequest = createAdmitter({ admission, counters, ee, admit: role.admit, accept, isClosed: () => closed });
  const handleUpgrade = createUpgradeHandler(acceptor, admitRequest);

  /** Deliver to every peer of `plant`, or (an answer) to the peer that asked. */
  function route(env, plant) {
    const answer = envelope.ANSWER_KINDS.has(env.k) && env.ref;
    const owner = answer && role.answerTo ? peers.get(role.answerTo(plant, env.ref)) : undefined;
    let targets;
    if (owner) targets = [owner];
    else if (envelope.ANSWER_KINDS.has(env.k) && env.ref && role.strayAnswer) { role.strayAnswer(env); return 0; }
    else targets = peers.ofPlant(plant);
    // One JSON text for the whole fan-out; a compact peer's frame depends on what its
    // connection carried before (lib/core/codec/compact.js), so it is made per peer.
    let text;
    for (const c of targets) {
      if (c.conn.codec && c.conn.codec.binary) { c.deliver(env); continue; }
      if (text === undefined) text = envelope.stringify(env);
      c.deliver(env, text);
    }
    return targets.length;
  }

  /**
   * Send one envelope: to `clientId` only if it is a peer of THIS endpoint; else answers
   * (ack/err/probe-res) to the peer of `plant` whose src is ref.src; else to every peer of `plant`.
   * A role that relays requests (the edge endpoint) takes cmd and probe frames itself.
   * @param {object} env a valid envelope
   * @param {string} [clientId]
   * @param {string} [plant] msg.plant; may be left out when the endpoint serves one plant only
   * @param {{id: string, name?: string}} [by] the flow's node that sends it (s7twin-link-out): a
   *   request's sender for the command log
   * @returns {number} peers the frame was delivered or queued to (0 also when no plant is named
   *   and the endpoint serves several: counted in noPlant)
   */
  function send(env, clientId, plant, by) {
    if (closed) return 0;
    const c = clientId !== undefined ? peers.get(clientId) : undefined;
    const p = c ? c.plant : admission.resolvePlant(plant);
    if (!p) { counters.noPlant += 1; return 0; }
    if (isState(env)) latest.remember(p, env);
    if (role.onSend) role.onSend(env, p);
    if (role.sendRequest && envelope.REQUEST_KINDS.has(env.k)) return role.sendRequest(env, p, by);
    if (c) { c.deliver(env); return 1; }
    return route(env, p);
  }

  /** Close every peer (1001) and stop; resolves when all are gone (and the role has closed). */
  function close() {
    if (closed) return Promise.resolve();
    closed = true;
    return peers.close(o.closeGraceMs)
      .then(() => { if (acceptor) acceptor.close(); })
      .then(() => (role.onClosed ? role.onClosed() : undefined));
  }

  /** The endpoint: an EventEmitter with the API both roles share, and the role's `extra`. */
  function api(extra) {
    return Object.assign(ee, {
      path: o.path,
      role: role.name,
      counters,
      /** Duplicate tracking over every connection: stats.restarts. */
      tracker: { stats: senders.stats },
      /** The transport the endpoint takes its peers over ('ws' unless set). */
      transport: overWs ? 'ws' : o.transport,
      handleUpgrade,
      admitRequest,
      accept,
      send,
      close,
      /**
       * An err envelope from this endpoint answering `env` (for a frame that could not be
       * delivered): send it through the endpoint the asker is connected to.
       */
      errorFor: (env, code, msg) => sender.error(code, msg, { src: env.src, seq: env.seq }, env.cid),
      hasClient: peers.has,
      clientIds: peers.ids,
      /** A peer (lib/link/peer.js), for tests and the stats endpoint. */
      client: peers.get,
      /** The latest state of the plant (of the only plant without one) as it went out. */
      latestState: (plant) => latest.values(admission.resolvePlant(plant)),
      /** The plant a frame without msg.plant goes to (null: the endpoint serves several). */
      onlyPlant: admission.onlyPlant,
    }, extra);
  }

  return { ee, counters, sender, peers, latest, emit, answerError: intake.answerError, api };
}

module.exports = { DEFAULTS, COUNTERS, createEndpointCore };
