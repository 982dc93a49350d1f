'use strict';
/**
 * One WebSocket endpoint of the cloud side of the link (`/s7twin/twin` for twins, `/s7twin/edge`
 * for the edge), mounted on an existing HTTP server's 'upgrade' event. No Node-RED here: the
 * `s7twin-link-server` config node wraps it.
 *
 * What it does per peer: token check before the upgrade (401, no socket), noDelay, no deflate,
 * a frame size limit (E_TOO_LARGE answer then close 1009), parse + validate + duplicate/gap
 * tracking of every frame (a malformed frame is answered with an `err` envelope and counted,
 * never passed on), a server-initiated ping that terminates half-open peers, and a bounded
 * outbox (lib/outbox.js) so a slow peer never grows memory or slows the others.
 *
 * What it does per endpoint: fan-out of frames to every peer, routing of answers (ack, err,
 * probe-res) to the peer whose frame they answer (by ref.src, learnt from that peer's frames),
 * and the latest full plant state (merged from every state/snap it sent) as a `snap` for each
 * fresh peer.
 */
const { EventEmitter } = require('node:events');
const { WebSocketServer } = require('ws');
const envelope = require('./envelope');
const { createOutbox } = require('./outbox');
const { createChecker, requestToken } = require('./auth');

const DEFAULTS = {
  pingMs: 10000, // server ping period; a peer silent for a whole period is terminated
  maxPayload: 64 * 1024, // bytes; larger frames: err E_TOO_LARGE, then close 1009
  hardMaxPayload: 1024 * 1024, // bytes; ws itself refuses frames past this (close 1009, no answer)
  highWaterBytes: 256 * 1024, // socket bufferedAmount above which frames wait in the outbox
  drainPollMs: 10, // how often a congested peer is looked at again
  maxClients: 1000, // peers per endpoint; more are refused with 503 before the upgrade
  maxFrames: 1000, // queued non-state frames per congested peer
  maxTags: 4096, // tags in a pending coalesced state / in the latest plant state
  closeGraceMs: 1000, // on close, how long peers get to answer the close handshake
};

const ANSWER_KINDS = new Set(['ack', 'err', 'probe-res']);

/**
 * @param {object} opts
 * @param {string} opts.path e.g. '/s7twin/twin'
 * @param {string[]} opts.tokens accepted tokens (empty = every peer refused)
 * @param {string} opts.src sender id for the frames the endpoint makes itself (err, snap)
 * @param {string} [opts.role] 'twin' | 'edge' (a label for client ids)
 * @returns {EventEmitter & object} events: envelope(env, clientId), invalid(err, clientId),
 *   connect(clientId, info), disconnect(clientId, code), refused(reason, req)
 */
function createEndpoint(opts) {
  const o = { ...DEFAULTS, ...opts };
  const ee = new EventEmitter();
  const check = createChecker(o.tokens || []);
  const sender = envelope.createSender(o.src);
  const tracker = envelope.createTracker();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    clientTracking: false,
    maxPayload: Math.max(o.hardMaxPayload, o.maxPayload),
  });
  /** @type {Map<string, object>} */
  const clients = new Map();
  const srcOwner = new Map(); // src of a peer's frames -> client id (to route answers)
  let latest = {}; // latest full plant state (short -> value)
  let latestKeys = 0;
  let nextId = 0;
  let closed = false;
  const counters = {
    connections: 0, accepted: 0, refused: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0,
    errors: 0, tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0,
    unroutable: 0, queueDepth: 0, pings: 0,
  };

  // Keepalive: only a peer we have not heard from for a whole period is pinged, and one that then
  // stays silent for another period is terminated. A frame proves the peer alive as well as a
  // pong does, so busy peers get no pings at all: pinging 1,000 busy twins at once every period
  // showed as a 68 ms busy stretch of the cloud, 20 ms of it sending pings, in a CPU profile.
  const pingTimer = setInterval(() => {
    for (const c of clients.values()) {
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
  }, o.pingMs);
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
    if (!check(requestToken(req))) { refuse(socket, 401, 'Unauthorized', 'token', req); return true; }
    if (clients.size >= o.maxClients) { refuse(socket, 503, 'Service Unavailable', 'full', req); return true; }
    socket.setNoDelay(true);
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
    return true;
  }

  function accept(ws, req) {
    if (closed) { ws.terminate(); return; }
    nextId += 1;
    const id = `${o.role || 'peer'}-${nextId}`;
    const c = {
      id, ws, heard: true, pinged: false, srcs: new Set(), drainTimer: null,
      outbox: createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags }),
      remote: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
    };
    clients.set(id, c);
    counters.accepted += 1;
    counters.connections = clients.size;
    ws.on('pong', () => { c.heard = true; });
    ws.on('ping', () => { c.heard = true; }); // the edge's dialer pings on its own schedule
    ws.on('message', (data, isBinary) => onFrame(c, data, isBinary));
    ws.on('error', (err) => {
      // ws reports oversized frames (past hardMaxPayload) here and closes with 1009 itself.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.tooLarge += 1;
      counters.errors += 1;
    });
    ws.on('close', (code) => {
      clearInterval(c.drainTimer);
      c.outbox.clear();
      clients.delete(id);
      for (const s of c.srcs) if (srcOwner.get(s) === id) srcOwner.delete(s);
      counters.connections = clients.size;
      updateDepth();
      ee.emit('disconnect', id, code);
    });
    ee.emit('connect', id, { remote: c.remote, url: req.url });
    if (latestKeys > 0) deliver(c, sender.make('snap', { d: { ...latest } }));
  }

  function answerError(c, err, extra) {
    counters.errors += 1;
    const e = sender.error(err.code || 'E_SCHEMA', err.message, err.ref);
    deliver(c, e);
    ee.emit('invalid', err, c.id, extra);
  }

  function onFrame(c, data, isBinary) {
    c.heard = true;
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.length;
    counters.bytesIn += size;
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
    if (tracker.check(env) === 'duplicate') {
      counters.duplicates += 1;
      return;
    }
    counters.gaps += tracker.stats.gaps - gapsBefore;
    if (srcOwner.get(env.src) !== c.id) {
      srcOwner.set(env.src, c.id);
      c.srcs.add(env.src);
    }
    ee.emit('envelope', env, c.id);
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

  function remember(env) {
    for (const [k, v] of Object.entries(env.d || {})) {
      if (!(k in latest)) {
        if (latestKeys >= o.maxTags) continue;
        latestKeys += 1;
      }
      latest[k] = v;
    }
  }

  /**
   * Send one envelope: to `clientId` only if it is a peer of THIS endpoint; else answers
   * (ack/err/probe-res) to the peer whose src is ref.src; else to every peer.
   * @param {object} env a valid envelope
   * @param {string} [clientId]
   * @returns {number} peers the frame was delivered or queued to
   */
  function send(env, clientId) {
    if (closed) return 0;
    if ((env.k === 'state' || env.k === 'snap') && env.d) remember(env);
    let targets;
    if (clientId !== undefined && clients.has(clientId)) {
      targets = [clients.get(clientId)];
    } else if (ANSWER_KINDS.has(env.k) && env.ref && srcOwner.has(env.ref.src)) {
      targets = [clients.get(srcOwner.get(env.ref.src))];
    } else if (ANSWER_KINDS.has(env.k) && env.ref && o.routeAnswers !== false && o.role === 'twin') {
      // An answer for a twin that is gone: sending it to every other twin would be noise.
      counters.unroutable += 1;
      return 0;
    } else {
      targets = [...clients.values()];
    }
    const text = envelope.stringify(env); // one serialisation for the whole fan-out
    for (const c of targets) deliver(c, env, text);
    return targets.length;
  }

  /** Close every peer (1001) and stop; resolves when all are gone. */
  function close() {
    if (closed) return Promise.resolve();
    closed = true;
    clearInterval(pingTimer);
    const all = [...clients.values()];
    return new Promise((resolve) => {
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
  }

  return Object.assign(ee, {
    path: o.path,
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
    /** Internals for tests and the stats endpoint. */
    client: (id) => clients.get(id),
    latestState: () => ({ ...latest }),
  });
}

module.exports = { DEFAULTS, createEndpoint };
