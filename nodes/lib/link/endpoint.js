'use strict';
/**
 * One WebSocket endpoint of the cloud side of the link (`/s7twin/twin` for twins, `/s7twin/edge`
 * for the edge), mounted on an existing HTTP server's 'upgrade' event. No Node-RED here: the
 * `s7twin-link-server` config node wraps it.
 *
 * Per peer: token check before the upgrade (401, no socket), noDelay, no deflate, a frame size
 * limit (E_TOO_LARGE answer then close 1009), parse + validate + duplicate/gap tracking of every
 * frame (a malformed frame is answered with an `err` envelope and counted, never passed on), a
 * message rate and an error budget (lib/access/peer-limits.js: past them the peer is told why and closed
 * with 1008), a bounded outbox (lib/link/outbox.js) so a slow peer never grows memory or slows the
 * others.
 *
 * Twin endpoint (role 'twin'):
 * - twins send only `cmd` and `probe`; a peer that presented a viewer token is read-only (its
 *   requests are answered E_READ_ONLY and go nowhere);
 * - every request gets its deadline here, on the cloud's clock (lib/core/clock.js): its arrival plus
 *   the lifetime its `ttl` asks for (at most `maxLifetimeMs`) or `lifetimeMs`;
 * - answers (ack, err, probe-res) go to the peer whose frame they answer (by ref.src); the latest
 *   full plant state (merged from every state/snap) goes as a `snap` to each fresh peer;
 * - a peer silent for a whole `pingMs` is pinged and dropped if it stays silent.
 *
 * Plants (issue 17): every peer connects for one plant, the one it names (`?plant=`) or its
 * token's only plant; a token not valid for that plant is refused (403) before the upgrade
 * (lib/access/auth.js grants). Frames carry the plant out of the endpoint ('envelope' event) and into it
 * (`send(env, clientId, plant)`): states and snaps go to that plant's twins only, the latest state
 * is kept per plant, answers go back by (plant, ref.src), requests to that plant's edge.
 *
 * Edge endpoint (role 'edge'): one authority per plant, across every cloud instance of a fleet.
 * - One edge per plant: a second connection is refused (HTTP 409, counted) while the current edge
 *   is alive, i.e. heard within `linkTimeoutMs`; a newcomer is accepted only once the current one
 *   is gone or has been silent that long, never by displacing a live edge. The plant's lease in
 *   the backplane (lib/fleet/member.js, renewed on every sync) extends this to edges on other instances.
 * - Requests for a plant whose edge is on another instance go there over the backplane, and its
 *   answers come back the same way; states of other instances' edges come out of this endpoint as
 *   if its own edge had sent them (lib/fleet/member.js), so the cloud flow is the same on every instance.
 * - The edge sends a `sync` every 500 ms (lib/link/dialer.js); each is answered at once with a
 *   `sync-res` carrying the cloud's receive and send times (the edge's clock-offset estimate,
 *   lib/core/clock.js). An edge silent for `linkTimeoutMs` (3 s) is dropped: a black-holed link is
 *   torn down within seconds, not after TCP's minutes. Requests go to the edge only once it has
 *   had its first sync answered (it can judge deadlines from then on).
 * - Every request sent to the edge is held (lib/link/inflight.js) until its answer. When the edge
 *   link drops, or the answer is not back by the request's deadline, the endpoint answers it
 *   itself, at once, with E_OUTCOME_UNKNOWN (the twin resyncs from the next state). An answer
 *   that comes after that, or answers nothing held, is counted and dropped: exactly one answer
 *   per request.
 * - The edge may send state, snap, ack, err, probe-res and sync, and its state and snap frames
 *   may carry only streamed tags of the I/O table, with values of their type and range.
 */
const { EventEmitter } = require('node:events');
const { WebSocketServer } = require('ws');
const envelope = require('../core/envelope');
const tags = require('../core/tags');
const clock = require('../core/clock');
const { createOutbox } = require('./outbox');
const { createInflight } = require('./inflight');
const { createPeerLimits } = require('../access/peer-limits');
const { requestToken, requestPlant, mergeGrants, createGrantChecker, grantPlant, ANY_PLANT } = require('../access/auth');
const { DEFAULT_PLANT } = require('../core/plants');
const { createLocalBackplane } = require('../fleet/backplane');
const { createFleetMember } = require('../fleet/member');

const DEFAULTS = {
  pingMs: 10000, // twins: server ping period; a peer silent for a whole period is terminated
  linkTimeoutMs: 3000, // edge: a peer silent this long (no sync, no frame) is dropped
  maxPayload: 64 * 1024, // bytes; larger frames: err E_TOO_LARGE, then close 1009
  hardMaxPayload: 1024 * 1024, // bytes; ws itself refuses frames past this (close 1009, no answer)
  highWaterBytes: 256 * 1024, // socket bufferedAmount above which frames wait in the outbox
  drainPollMs: 10, // how often a congested peer is looked at again
  maxClients: 1000, // peers per endpoint (edge endpoint: edges, one per plant); more are refused with 503 before the upgrade
  maxFrames: 1000, // queued non-state frames per congested peer
  maxTags: 4096, // tags in a pending coalesced state / in the latest plant state
  closeGraceMs: 1000, // on close, how long peers get to answer the close handshake
  lifetimeMs: 1000, // a request's lifetime when it asks for none (ttl)
  maxLifetimeMs: 10000, // the longest lifetime a request may ask for; more is refused (E_RANGE)
  graceMs: 250, // edge: how long past a command's deadline its answer may still be on its way
  probeAnswerMs: 5000, // edge: how long past a probe's deadline the edge may wait for its slot
  ratePerS: 200, // frames a second per peer on average (0 = off; the edge endpoint: off)
  burst: 400, // frames a peer may send at once above that rate
  errors: 50, // refused frames per peer within errorWindowMs before it is disconnected (0 = off)
  errorWindowMs: 10000,
};

const TWIN_KINDS = envelope.REQUEST_KINDS;
const EDGE_KINDS = new Set(['state', 'snap', 'ack', 'err', 'probe-res', 'sync']);
const POLICY_CLOSE = 1008; // WebSocket close code: policy violation

/**
 * @param {object} opts
 * @param {string} opts.path e.g. '/s7twin/twin'
 * @param {string[]} [opts.tokens] accepted tokens of this endpoint's role, for `opts.plant`
 * @param {string[]} [opts.viewerTokens] twin role: tokens of read-only peers, for `opts.plant`
 * @param {string} [opts.plant] the plant of the plain token lists (default plant1)
 * @param {Array<{token, role, plants}>} [opts.grants] scoped tokens (lib/access/auth.js parseGrants)
 *   (no token at all = every peer refused)
 * @param {string} opts.src sender id for the frames the endpoint makes itself (err, snap, sync-res)
 * @param {'twin'|'edge'} [opts.role] default 'twin'
 * @param {object} [opts.backplane] edge role: the fleet's backplane (lib/fleet/backplane.js); default a
 *   private in-process one (a single instance)
 * @param {object} [opts.fleet] edge role: options for lib/fleet/member.js (hopMs, syncMs, id)
 * @returns {EventEmitter & object} events: envelope(env, clientId, plant), invalid(err, clientId, extra),
 *   connect(clientId, info), ready(clientId) (edge: first sync answered), disconnect(clientId, code),
 *   refused(reason, req), plant(plant) (twin: the first peer of a plant connected)
 * @throws {AuthError} E_TOKENS a token listed for two roles, a bad plant id
 */
function createEndpoint(opts) {
  const o = { ...DEFAULTS, ...opts };
  const role = o.role === 'edge' ? 'edge' : 'twin';
  const edge = role === 'edge';
  const ee = new EventEmitter();
  const plainPlant = o.plant || DEFAULT_PLANT;
  const grants = mergeGrants([
    { tokens: o.tokens || [], role: edge ? 'edge' : 'twin', plant: plainPlant },
    { tokens: edge ? [] : (o.viewerTokens || []), role: 'viewer', plant: plainPlant },
  ], o.grants || []);
  const accepts = edge ? new Set(['edge']) : new Set(['twin', 'viewer']);
  const mine = grants.filter((g) => accepts.has(g.role));
  const check = createGrantChecker(mine);
  // A frame from a flow that names no plant goes to the endpoint's plant when it serves only one.
  const servedPlants = new Set(mine.flatMap((g) => (g.plants === ANY_PLANT ? [ANY_PLANT] : g.plants)));
  const onlyPlant = servedPlants.size === 1 && !servedPlants.has(ANY_PLANT) ? [...servedPlants][0] : null;
  const resolvePlant = (plant) => (typeof plant === 'string' && plant ? plant : onlyPlant);
  const sender = envelope.createSender(o.src, { now: clock.now });
  const tracker = envelope.createTracker();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    clientTracking: false,
    maxPayload: Math.max(o.hardMaxPayload, o.maxPayload),
  });
  /** @type {Map<string, object>} */
  const clients = new Map();
  const edges = new Map(); // edge endpoint: plant -> its edge's client
  const srcOwner = new Map(); // plant + src of a peer's frames -> client id (to route answers)
  const ownerKey = (plant, src) => `${plant}\u0000${src}`;
  const latest = new Map(); // plant -> {values (short -> value), keys}
  const plantsSeen = new Set(); // twin endpoint: plants a peer has connected for
  let nextId = 0;
  let closed = false;
  const counters = {
    connections: 0, accepted: 0, refused: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0,
    errors: 0, tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0,
    unroutable: 0, queueDepth: 0, pings: 0,
    viewers: 0, readOnly: 0, kindRefused: 0, rateLimited: 0, errorBudget: 0,
    plantRefused: 0, noPlant: 0,
    // edge endpoint
    edgeRefused: 0, staleEdges: 0, syncs: 0, inflight: 0, unknownOutcomes: 0, lateAnswers: 0,
    edgeErrors: 0, busy: 0, leaseLost: 0, backplaneRefused: 0,
  };

  /** Emit a frame for the flow: from `clientId` (if a peer's), for `plant`. */
  const emit = (env, clientId, plant) => ee.emit('envelope', env, clientId, plant);

  // Edge endpoint: every request held until its one answer (see header), and the fleet member
  // that carries requests, answers and states to and from the other cloud instances.
  let fleet = null;
  let ownBackplane = null;
  const inflight = edge ? createInflight({
    graceMs: o.graceMs,
    probeAnswerMs: o.probeAnswerMs,
    onExpire(e, why) {
      counters.unknownOutcomes += 1;
      counters.inflight = inflight.size;
      answer(e, sender.error('E_OUTCOME_UNKNOWN', `${e.k} ${e.src}#${e.seq}: ${why}; whether it was written is unknown (resync from the next state)`, { src: e.src, seq: e.seq }, e.cid, e.dl));
    },
  }) : null;
  if (edge) {
    if (!o.backplane) ownBackplane = createLocalBackplane();
    fleet = createFleetMember({
      backplane: o.backplane || ownBackplane,
      sender,
      leaseMs: o.linkTimeoutMs,
      graceMs: o.graceMs,
      probeAnswerMs: o.probeAnswerMs,
      ...(o.fleet || {}),
      onRequest: fromFleet,
      onEnvelope: (env, plant) => emit(env, undefined, plant),
      onLost(plant) {
        // Another instance took the plant's lease (this edge was silent past it): it no longer
        // speaks for the plant here.
        const c = edges.get(plant);
        counters.leaseLost += 1;
        if (c) c.ws.terminate();
      },
    });
  }

  /** The answer to a held request: back to the instance it came from, or into this flow. */
  function answer(entry, env) {
    if (entry.origin) fleet.reply(entry.origin, entry.plant, env);
    else emit(env, entry.peer, entry.plant);
  }

  // Keepalive. Twins: only a peer not heard from for a whole period is pinged, and one that then
  // stays silent for another period is terminated; busy peers get no pings at all (pinging 1,000
  // busy twins every period showed as a 68 ms busy stretch of the cloud in a CPU profile). The
  // edge heartbeats every 500 ms on its own, so silence is judged against linkTimeoutMs.
  const pingTimer = setInterval(() => {
    const t = Date.now();
    for (const c of clients.values()) {
      if (edge) {
        if (t - c.heardAt > o.linkTimeoutMs) { counters.timeouts += 1; c.ws.terminate(); }
        continue;
      }
      if (c.heard) {
        c.heard = false;
        c.pinged = false;
        continue;
      }
      if (c.pinged) {
        counters.timeouts += 1;
        c.ws.terminate();
        continue;
      }
      c.pinged = true;
      counters.pings += 1;
      try { c.ws.ping(); } catch { /* socket already closing */ }
    }
  }, edge ? Math.max(50, Math.round(o.linkTimeoutMs / 6)) : o.pingMs);
  pingTimer.unref?.();

  function refuse(socket, status, text, reason, req) {
    counters.refused += 1;
    ee.emit('refused', reason, req);
    try {
      socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n`
        + (status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '')
        + `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    } catch { /* peer gone */ }
    socket.destroy();
  }

  /**
   * Handle an HTTP upgrade request if it is for this endpoint's path.
   * @returns {boolean} true if handled (accepted or refused), false if not ours
   */
  function handleUpgrade(req, socket, head) {
    let pathname;
    try { pathname = new URL(req.url, 'http://localhost').pathname; } catch { return false; }
    if (pathname !== o.path) return false;
    if (closed) { refuse(socket, 503, 'Service Unavailable', 'closed', req); return true; }
    const grant = check(requestToken(req));
    if (!grant) { refuse(socket, 401, 'Unauthorized', 'token', req); return true; }
    const where = grantPlant(grant, requestPlant(req));
    if (!where.plant) {
      counters.plantRefused += 1;
      refuse(socket, where.status, `${where.status === 403 ? 'Forbidden' : 'Bad Request'}: ${where.message}`, where.reason, req);
      return true;
    }
    const { plant } = where;
    const viewer = grant.role === 'viewer';
    if (edge) {
      const cur = edges.get(plant);
      if (cur && Date.now() - cur.heardAt <= o.linkTimeoutMs) {
        counters.edgeRefused += 1;
        refuse(socket, 409, 'Conflict: an edge is connected for this plant', 'edge-taken', req);
        return true;
      }
      if (cur) { counters.staleEdges += 1; cur.ws.terminate(); } // silent: gone in all but name
      else if (edges.size >= o.maxClients) { refuse(socket, 503, 'Service Unavailable', 'full', req); return true; }
      // The plant's lease, across every instance of the fleet: another instance's live edge
      // holds it (409), an unreachable backplane cannot say (503: the edge tries again).
      fleet.claim(plant).then((ok) => {
        if (!ok) {
          counters.edgeRefused += 1;
          refuse(socket, 409, 'Conflict: an edge is connected for this plant', 'edge-taken', req);
          return;
        }
        if (edges.has(plant)) { // another connection of the plant's edge won the race here
          counters.edgeRefused += 1;
          refuse(socket, 409, 'Conflict: an edge is connected for this plant', 'edge-taken', req);
          return;
        }
        if (closed || socket.destroyed) {
          fleet.release(plant);
          socket.destroy();
          return;
        }
        socket.setNoDelay(true);
        wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req, false, plant));
      }, (err) => {
        counters.backplaneRefused += 1;
        refuse(socket, 503, `Service Unavailable: ${err.message}`, 'backplane', req);
      });
      return true;
    }
    if (clients.size >= o.maxClients) {
      refuse(socket, 503, 'Service Unavailable', 'full', req);
      return true;
    }
    socket.setNoDelay(true);
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req, viewer, plant));
    return true;
  }

  function accept(ws, req, viewer, plant) {
    if (closed) { ws.terminate(); if (edge) fleet.release(plant); return; }
    nextId += 1;
    const id = `${role}-${nextId}`;
    const c = {
      id, ws, viewer, plant, heard: true, heardAt: Date.now(), pinged: false, ready: false, closing: false,
      srcs: new Set(), drainTimer: null,
      outbox: createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags }),
      limits: createPeerLimits(edge ? { ratePerS: 0, errors: o.errors, errorWindowMs: o.errorWindowMs }
        : { ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs }),
      remote: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
    };
    clients.set(id, c);
    if (edge) edges.set(plant, c);
    counters.accepted += 1;
    if (viewer) counters.viewers += 1;
    counters.connections = clients.size;
    const alive = () => { c.heard = true; c.heardAt = Date.now(); };
    ws.on('pong', alive);
    ws.on('ping', alive);
    ws.on('message', (data, isBinary) => onFrame(c, data, isBinary));
    ws.on('error', (err) => {
      // ws reports oversized frames (past hardMaxPayload) here and closes with 1009 itself.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.tooLarge += 1;
      counters.errors += 1;
    });
    ws.on('close', (code) => {
      clearInterval(c.drainTimer);
      clearTimeout(c.killTimer);
      c.outbox.clear();
      clients.delete(id);
      for (const s of c.srcs) {
        if (srcOwner.get(s) !== id) continue;
        srcOwner.delete(s);
        // No peer replays frames over a new connection, and a process that restarted numbers
        // from 1 again (or from wherever its sender got to meanwhile): its senders start afresh.
        tracker.forget(s);
      }
      counters.connections = clients.size;
      updateDepth();
      if (edge && edges.get(plant) === c) {
        edges.delete(plant);
        // First the requests held for it (their answers go out while the lease still says this
        // instance spoke for the plant), then the lease.
        inflight.dropPeer(id, `the edge link was lost (close ${code}) before the answer`);
        counters.inflight = inflight.size;
        fleet.release(plant);
      }
      ee.emit('disconnect', id, code);
    });
    ee.emit('connect', id, { remote: c.remote, url: req.url, viewer, plant });
    if (!edge) {
      const l = latest.get(plant);
      if (l && l.keys > 0) deliver(c, sender.make('snap', { d: { ...l.values } }));
      if (!plantsSeen.has(plant)) { plantsSeen.add(plant); ee.emit('plant', plant); }
    }
  }

  /** Tell a peer why, then close it with 1008 (and cut it off if it does not answer the close). */
  function expel(c, why) {
    if (c.closing) return;
    c.closing = true;
    deliver(c, sender.error(why.code, why.message));
    try { c.ws.close(POLICY_CLOSE, why.code); } catch { /* already closing */ }
    c.killTimer = setTimeout(() => c.ws.terminate(), o.closeGraceMs);
    c.killTimer.unref?.();
  }

  function answerError(c, err, extra) {
    counters.errors += 1;
    deliver(c, sender.error(err.code || 'E_SCHEMA', err.message, err.ref, err.cid));
    ee.emit('invalid', err, c.id, extra);
    const over = c.limits.error();
    if (over) { counters.errorBudget += 1; expel(c, over); }
  }

  const refusal = (code, message, env) => new envelope.EnvelopeError(code, message, { src: env.src, seq: env.seq });

  function onFrame(c, data, isBinary) {
    const arrived = clock.now();
    c.heard = true;
    c.heardAt = Date.now();
    if (c.closing) return;
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.length;
    counters.bytesIn += size;
    const over = c.limits.frame();
    if (over) { counters.rateLimited += 1; expel(c, over); return; }
    if (size > o.maxPayload) {
      counters.tooLarge += 1;
      answerError(c, new envelope.EnvelopeError('E_TOO_LARGE', `frame of ${size} bytes exceeds the ${o.maxPayload}-byte limit`));
      c.ws.close(1009, 'frame too large');
      return;
    }
    let env;
    try {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data).toString('utf8');
      if (isBinary) throw new envelope.EnvelopeError('E_SCHEMA', 'binary frames are not envelopes');
      env = envelope.parse(text, { maxBytes: o.maxPayload });
    } catch (err) {
      answerError(c, err, { raw: String(data).slice(0, 200) });
      return;
    }
    counters.framesIn += 1;
    const gapsBefore = tracker.stats.gaps;
    // Per plant and sender: twins of two plants may use the same sender id.
    if (tracker.check({ src: ownerKey(c.plant, env.src), seq: env.seq }) === 'duplicate') {
      counters.duplicates += 1;
      return;
    }
    counters.gaps += tracker.stats.gaps - gapsBefore;
    const owner = ownerKey(c.plant, env.src);
    if (srcOwner.get(owner) !== c.id) {
      srcOwner.set(owner, c.id);
      c.srcs.add(owner);
    }
    if (edge ? !fromEdge(c, env, arrived) : !fromTwin(c, env, arrived)) return;
    emit(env, c.id, c.plant);
  }

  /** A twin's frame: false if refused (answered already). Stamps a request's deadline. */
  function fromTwin(c, env, arrived) {
    if (!TWIN_KINDS.has(env.k)) {
      counters.kindRefused += 1;
      answerError(c, refusal('E_KIND', `twins send cmd and probe frames, not "${env.k}"`, env));
      return false;
    }
    if (c.viewer) {
      counters.readOnly += 1;
      answerError(c, Object.assign(refusal('E_READ_ONLY', `this connection is read-only (a viewer token): the ${env.k} was not relayed`, env), { cid: env.cid }));
      return false;
    }
    if (env.ttl !== undefined && env.ttl > o.maxLifetimeMs) {
      answerError(c, Object.assign(refusal('E_RANGE', `ttl ${env.ttl} ms is more than the ${o.maxLifetimeMs} ms this endpoint allows`, env), { cid: env.cid }));
      return false;
    }
    env.dl = arrived + (env.ttl || o.lifetimeMs); // a dl the twin sent means nothing here
    return true;
  }

  /** The edge's frame: false if it is not passed on. Answers syncs, checks states and answers. */
  function fromEdge(c, env, arrived) {
    if (!EDGE_KINDS.has(env.k)) {
      counters.kindRefused += 1;
      answerError(c, refusal('E_KIND', `the edge sends state, snap, ack, err, probe-res and sync frames, not "${env.k}"`, env));
      return false;
    }
    if (env.k === 'sync') {
      counters.syncs += 1;
      deliver(c, sender.make('sync-res', { ref: { src: env.src, seq: env.seq }, d: { t1: env.ts, t2: arrived } }));
      if (!c.ready) { c.ready = true; ee.emit('ready', c.id); }
      fleet.renew(c.plant); // alive: the plant's lease stays with this instance
      return false;
    }
    if (env.k === 'state' || env.k === 'snap') {
      try {
        tags.checkState(env.d);
      } catch (err) {
        answerError(c, Object.assign(err, { ref: { src: env.src, seq: env.seq } }));
        return false;
      }
      fleet.publishState(env, c.plant);
      return true;
    }
    if (!env.ref) { // an err about a frame it could not read: the cloud's own doing, not a twin's
      counters.edgeErrors += 1;
      ee.emit('invalid', Object.assign(new Error(`the edge reported ${env.e ? `${env.e.code}: ${env.e.msg}` : env.k} without a ref`), { code: env.e ? env.e.code : 'E_SCHEMA' }), c.id);
      return false;
    }
    const held = inflight.answer(env.ref, c.plant);
    counters.inflight = inflight.size;
    if (!held) { counters.lateAnswers += 1; return false; }
    if (held.origin) { fleet.reply(held.origin, held.plant, env); return false; }
    return true;
  }

  function updateDepth() {
    let n = 0;
    for (const c of clients.values()) n += c.outbox.depth;
    counters.queueDepth = n;
  }

  function write(c, env, text) {
    const t = text || envelope.stringify(env);
    c.ws.send(t);
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  function deliver(c, env, text) {
    if (c.ws.readyState !== c.ws.OPEN) return;
    if (c.outbox.empty && c.ws.bufferedAmount <= o.highWaterBytes) {
      write(c, env, text);
      return;
    }
    const before = c.outbox.stats.coalesced;
    const droppedBefore = c.outbox.stats.dropped;
    c.outbox.push(env);
    counters.coalesced += c.outbox.stats.coalesced - before;
    counters.dropped += c.outbox.stats.dropped - droppedBefore;
    updateDepth();
    if (!c.drainTimer) {
      c.drainTimer = setInterval(() => {
        if (c.ws.readyState !== c.ws.OPEN) return;
        c.outbox.flush((e) => write(c, e), () => c.ws.bufferedAmount <= o.highWaterBytes);
        if (c.outbox.empty) { clearInterval(c.drainTimer); c.drainTimer = null; }
        updateDepth();
      }, o.drainPollMs);
    }
  }

  function remember(plant, env) {
    let l = latest.get(plant);
    if (!l) { l = { values: {}, keys: 0 }; latest.set(plant, l); }
    for (const [k, v] of Object.entries(env.d || {})) {
      if (!(k in l.values)) {
        if (l.keys >= o.maxTags) continue;
        l.keys += 1;
      }
      l.values[k] = v;
    }
  }

  /** The plant's edge here, if it may take requests now (ready, open, and the lease surely ours). */
  function liveEdge(plant) {
    const c = edges.get(plant);
    return c && c.ready && !c.closing && c.ws.readyState === c.ws.OPEN && fleet.holds(plant) ? c : null;
  }

  /** Deliver a request to the plant's edge here and hold it until its answer (see header). */
  function toEdge(c, env, plant, origin) {
    if (inflight.full) {
      counters.busy += 1;
      answer({ origin, plant, peer: c.id }, sender.error('E_BUSY', `${inflight.size} requests already wait for the edge's answer: the ${env.k} was not relayed`, { src: env.src, seq: env.seq }, env.cid, env.dl));
      return;
    }
    if (inflight.add(env, c.id, { plant, origin })) deliver(c, env);
    counters.inflight = inflight.size;
  }

  /** A request another instance forwarded for a plant held here (its dl on this clock). */
  function fromFleet(env, plant, origin) {
    const c = liveEdge(plant);
    if (!c) {
      fleet.reply(origin, plant, sender.error('E_EDGE_DOWN', `the edge of plant ${plant} is not ready on this instance: the ${env.k} was not delivered`, { src: env.src, seq: env.seq }, env.cid, env.dl));
      return;
    }
    toEdge(c, env, plant, origin);
  }

  /**
   * Edge endpoint: a request from the flow. To the plant's edge here and held until its answer;
   * to the instance holding the plant's edge (lib/fleet/member.js) if it is elsewhere.
   * @returns {number} 0: not delivered (the caller refuses it E_EDGE_DOWN)
   */
  function sendRequest(env, plant) {
    // A request from a flow that did not come through a twin endpoint gets the default lifetime.
    const req = Number.isFinite(env.dl) ? env : { ...env, dl: clock.now() + o.lifetimeMs };
    if (edges.has(plant)) {
      const c = liveEdge(plant);
      if (!c) return 0; // connected but not ready yet, or its lease not surely held
      toEdge(c, req, plant, undefined);
      return 1;
    }
    fleet.forward(req, plant);
    return 1;
  }

  /**
   * Send one envelope: to `clientId` only if it is a peer of THIS endpoint; else answers
   * (ack/err/probe-res) to the peer of `plant` whose src is ref.src; else to every peer of `plant`.
   * On the edge endpoint, requests (cmd, probe) go to the plant's edge and are held until answered.
   * @param {object} env a valid envelope
   * @param {string} [clientId]
   * @param {string} [plant] msg.plant; may be left out when the endpoint serves one plant only
   * @returns {number} peers the frame was delivered or queued to (0 also when no plant is named
   *   and the endpoint serves several: counted in noPlant)
   */
  function send(env, clientId, plant) {
    if (closed) return 0;
    const p = resolvePlant(plant);
    if (clientId !== undefined && clients.has(clientId)) {
      const c = clients.get(clientId);
      if ((env.k === 'state' || env.k === 'snap') && env.d) remember(c.plant, env);
      if (edge && envelope.REQUEST_KINDS.has(env.k)) return sendRequest(env, c.plant);
      const text = envelope.stringify(env);
      deliver(c, env, text);
      return 1;
    }
    if (!p) { counters.noPlant += 1; return 0; }
    if (edge && envelope.REQUEST_KINDS.has(env.k)) return sendRequest(env, p);
    if ((env.k === 'state' || env.k === 'snap') && env.d) remember(p, env);
    let targets;
    const owner = env.ref ? srcOwner.get(ownerKey(p, env.ref.src)) : undefined;
    if (envelope.ANSWER_KINDS.has(env.k) && owner !== undefined) {
      targets = [clients.get(owner)];
    } else if (envelope.ANSWER_KINDS.has(env.k) && env.ref && o.routeAnswers !== false && !edge) {
      // An answer for a twin that is gone: sending it to every other twin would be noise.
      counters.unroutable += 1;
      return 0;
    } else {
      targets = [...clients.values()].filter((c) => c.plant === p);
    }
    const text = envelope.stringify(env); // one serialisation for the whole fan-out
    for (const c of targets) deliver(c, env, text);
    return targets.length;
  }

  /** Close every peer (1001) and stop; resolves when all are gone (and the plants' leases freed). */
  function close() {
    if (closed) return Promise.resolve();
    closed = true;
    clearInterval(pingTimer);
    const all = [...clients.values()];
    const peersGone = new Promise((resolve) => {
      if (!all.length) { wss.close(); resolve(); return; }
      let left = all.length;
      const t = setTimeout(() => { for (const c of all) c.ws.terminate(); }, o.closeGraceMs);
      for (const c of all) {
        c.ws.once('close', () => {
          left -= 1;
          if (left === 0) { clearTimeout(t); wss.close(); resolve(); }
        });
        try { c.ws.close(1001, 'endpoint closing'); } catch { c.ws.terminate(); }
      }
    });
    return peersGone.then(async () => {
      if (fleet) await fleet.close();
      if (ownBackplane) await ownBackplane.close();
    });
  }

  return Object.assign(ee, {
    path: o.path,
    role,
    counters,
    tracker,
    handleUpgrade,
    send,
    close,
    /**
     * An err envelope from this endpoint answering `env` (for a frame that could not be
     * delivered): send it through the endpoint the asker is connected to.
     */
    errorFor: (env, code, msg) => sender.error(code, msg, { src: env.src, seq: env.seq }, env.cid),
    hasClient: (id) => clients.has(id),
    clientIds: () => [...clients.keys()],
    /**
     * Edge endpoint: the plant's edge (any plant's, without one) is connected here, has had its
     * first sync answered and holds the plant's lease.
     */
    edgeReady: (plant) => {
      if (plant !== undefined) return Boolean(liveEdge(plant));
      return [...edges.keys()].some((p) => liveEdge(p));
    },
    /** Edge endpoint: the plants whose edges are connected here. */
    edgePlants: () => [...edges.keys()],
    /** Edge endpoint: take the plant's states from the other instances (its twins are here). */
    watch: (plant) => (fleet ? fleet.watch(plant) : Promise.resolve()),
    /** Edge endpoint: the fleet member (lib/fleet/member.js), for stats and tests. */
    fleet,
    /** Internals for tests and the stats endpoint. */
    client: (id) => clients.get(id),
    latestState: (plant) => {
      const l = latest.get(resolvePlant(plant));
      return l ? { ...l.values } : {};
    },
    /** The plant a frame without msg.plant goes to (null: the endpoint serves several). */
    onlyPlant,
  });
}

module.exports = { DEFAULTS, createEndpoint };
