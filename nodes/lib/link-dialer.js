'use strict';
/**
 * The edge side of the link: dials the cloud's edge endpoint and keeps that one connection up.
 * No Node-RED here: the `s7twin-link-client` config node wraps it.
 *
 * - token as `Authorization: Bearer`, noDelay, no per-message deflate;
 * - the client pings too (a NAT or proxy may drop a quiet connection without telling anyone):
 *   no pong within one ping period → terminate → reconnect;
 * - reconnect with exponential back-off and jitter (lib/backoff.js), reset after a stable link;
 * - while down, state frames coalesce into one pending state (latest value per tag, bounded);
 *   other frames (acks, errors) are dropped and counted, because their sender has timed out
 *   long before the link is back and a late ack would be a lie about timing;
 * - after a reconnect the pending state waits for the first snapshot the flow sends (the
 *   `connect` event asks for one) and is merged UNDER it (the snapshot's values are newer and win;
 *   pending tags it does not cover ride along in the same frame); if no snapshot comes within
 *   snapWaitMs the pending state is sent alone.
 */
const { EventEmitter } = require('node:events');
const WebSocket = require('ws');
const envelope = require('./envelope');
const { createOutbox } = require('./outbox');
const { createBackoff } = require('./backoff');

const DEFAULTS = {
  pingMs: 10000, // client ping period; no pong within it → terminate and reconnect
  handshakeTimeoutMs: 10000, // opening handshake limit
  maxPayload: 64 * 1024, // bytes; larger frames from the cloud are refused with an err envelope
  hardMaxPayload: 1024 * 1024, // bytes; ws closes with 1009 past this
  highWaterBytes: 256 * 1024, // socket bufferedAmount above which frames wait in the outbox
  drainPollMs: 10,
  snapWaitMs: 2000, // after a reconnect, how long the pending state waits for a snapshot
  maxFrames: 1000,
  maxTags: 4096,
  backoff: {}, // see lib/backoff.js (200 ms doubling to 5 s, jitter, reset after 5 s up)
};

/**
 * @param {object} opts
 * @param {string} opts.url ws:// or wss:// URL of the cloud edge endpoint
 * @param {string} [opts.token]
 * @param {string} opts.src sender id for the frames the dialer makes itself (err answers)
 * @returns {EventEmitter & object} events: status('connecting'|'connected'|'disconnected', detail),
 *   connect(), disconnect(code, reason), envelope(env), invalid(err), failure(err)
 */
function createDialer(opts) {
  const o = { ...DEFAULTS, ...opts };
  const ee = new EventEmitter();
  const sender = envelope.createSender(o.src);
  const tracker = envelope.createTracker();
  const backoff = createBackoff(o.backoff);
  const outbox = createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags });
  const counters = {
    connects: 0, reconnects: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, errors: 0,
    tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0, authFailures: 0,
    queueDepth: 0,
  };
  let ws = null;
  let state = 'disconnected';
  let stopped = true;
  let retryTimer = null;
  let pingTimer = null;
  let drainTimer = null;
  let snapTimer = null;
  let awaitingSnap = false;
  let awaitingPong = false;
  let everConnected = false;

  function setState(s, detail) {
    if (s === state) return;
    state = s;
    ee.emit('status', s, detail);
  }

  function connect() {
    if (stopped) return;
    retryTimer = null;
    setState('connecting');
    const headers = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    const sock = new WebSocket(o.url, {
      headers, perMessageDeflate: false, maxPayload: Math.max(o.hardMaxPayload, o.maxPayload),
      handshakeTimeout: o.handshakeTimeoutMs,
    });
    ws = sock;
    sock.on('unexpected-response', (req, res) => {
      if (res.statusCode === 401) counters.authFailures += 1;
      const err = new Error(`cloud refused the link: HTTP ${res.statusCode}`);
      err.code = res.statusCode === 401 ? 'E_AUTH' : 'E_HTTP';
      counters.errors += 1;
      ee.emit('failure', err);
      res.resume();
      sock.terminate();
    });
    sock.on('open', () => {
      if (sock !== ws) return;
      sock._socket.setNoDelay(true);
      counters.connects += 1;
      if (everConnected) counters.reconnects += 1;
      everConnected = true;
      backoff.connected();
      awaitingPong = false;
      clearInterval(pingTimer);
      pingTimer = setInterval(ping, o.pingMs);
      setState('connected');
      // Hold the pending state until the snapshot the flow is about to send.
      if (!outbox.empty) {
        awaitingSnap = true;
        clearTimeout(snapTimer);
        snapTimer = setTimeout(() => { awaitingSnap = false; flush(); }, o.snapWaitMs);
      }
      ee.emit('connect');
    });
    sock.on('pong', () => { awaitingPong = false; });
    sock.on('message', (data, isBinary) => onFrame(data, isBinary));
    sock.on('error', (err) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.tooLarge += 1;
      counters.errors += 1;
      if (sock === ws) ee.emit('failure', err);
    });
    sock.on('close', (code, reason) => {
      if (sock !== ws) return;
      ws = null;
      clearInterval(pingTimer); pingTimer = null;
      clearInterval(drainTimer); drainTimer = null;
      clearTimeout(snapTimer); snapTimer = null;
      awaitingSnap = false;
      backoff.disconnected();
      setState('disconnected', String(reason || code));
      ee.emit('disconnect', code, String(reason || ''));
      scheduleRetry();
    });
  }

  function scheduleRetry() {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(connect, backoff.next());
  }

  function ping() {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (awaitingPong) {
      counters.timeouts += 1;
      ws.terminate(); // 'close' follows and reconnects
      return;
    }
    awaitingPong = true;
    try { ws.ping(); } catch { /* closing */ }
  }

  function onFrame(data, isBinary) {
    awaitingPong = false; // any traffic proves the peer is alive
    counters.bytesIn += data.length;
    if (data.length > o.maxPayload) {
      counters.tooLarge += 1;
      reject(new envelope.EnvelopeError('E_TOO_LARGE', `frame of ${data.length} bytes exceeds the ${o.maxPayload}-byte limit`));
      return;
    }
    let env;
    try {
      if (isBinary) throw new envelope.EnvelopeError('E_SCHEMA', 'binary frames are not envelopes');
      env = envelope.parse(data.toString('utf8'), { maxBytes: o.maxPayload });
    } catch (err) {
      reject(err);
      return;
    }
    counters.framesIn += 1;
    const gapsBefore = tracker.stats.gaps;
    if (tracker.check(env) === 'duplicate') { counters.duplicates += 1; return; }
    counters.gaps += tracker.stats.gaps - gapsBefore;
    ee.emit('envelope', env);
  }

  function reject(err) {
    counters.errors += 1;
    send(sender.error(err.code || 'E_SCHEMA', err.message, err.ref));
    ee.emit('invalid', err);
  }

  const canWrite = () => ws && ws.readyState === WebSocket.OPEN && ws.bufferedAmount <= o.highWaterBytes;

  function write(env) {
    const t = envelope.stringify(env);
    ws.send(t);
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  function flush() {
    if (!canWrite() || awaitingSnap) return;
    outbox.flush(write, canWrite);
    counters.queueDepth = outbox.depth;
    if (!outbox.empty && !drainTimer) {
      drainTimer = setInterval(() => {
        if (canWrite()) outbox.flush(write, canWrite);
        counters.queueDepth = outbox.depth;
        if (outbox.empty) { clearInterval(drainTimer); drainTimer = null; }
      }, o.drainPollMs);
    }
  }

  function queue(env) {
    const c = outbox.stats.coalesced;
    const d = outbox.stats.dropped;
    outbox.push(env);
    counters.coalesced += outbox.stats.coalesced - c;
    counters.dropped += outbox.stats.dropped - d;
    counters.queueDepth = outbox.depth;
  }

  /**
   * Send one envelope to the cloud (or coalesce/drop it while the link is down; see header).
   * @param {object} env a valid envelope
   * @returns {'sent'|'queued'|'dropped'}
   */
  function send(env) {
    const open = ws && ws.readyState === WebSocket.OPEN;
    if (!open) {
      if ((env.k === 'state' || env.k === 'snap') && env.d) { queue(env); return 'queued'; }
      counters.dropped += 1;
      return 'dropped';
    }
    if (awaitingSnap && env.k === 'snap') {
      // The snapshot is newer than anything pending: pending values go UNDER it (the snapshot's
      // values win), in the snapshot's frame. A separate frame after it would carry an older seq
      // and be dropped as a duplicate by the receiver.
      const pending = outbox.takeState();
      awaitingSnap = false;
      clearTimeout(snapTimer); snapTimer = null;
      const merged = pending ? { ...env, d: { ...pending.d, ...env.d } } : env;
      if (outbox.empty && canWrite()) write(merged); else queue(merged);
      flush();
      return 'sent';
    }
    if (outbox.empty && !awaitingSnap && canWrite()) { write(env); return 'sent'; }
    queue(env);
    flush();
    return 'queued';
  }

  // defineProperties, not Object.assign: Object.assign would copy the getters' values once.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    tracker,
    get state() { return state; },
    get connected() { return state === 'connected'; },
    get backoffAttempt() { return backoff.attempt; },
    /** Start dialing (idempotent). */
    start() {
      if (!stopped) return;
      stopped = false;
      connect();
    },
    send,
    /** Stop dialing and close the link (1000); resolves once the socket is gone. */
    close() {
      stopped = true;
      clearTimeout(retryTimer); retryTimer = null;
      clearInterval(pingTimer); pingTimer = null;
      clearInterval(drainTimer); drainTimer = null;
      clearTimeout(snapTimer); snapTimer = null;
      outbox.clear();
      const sock = ws;
      ws = null;
      setState('disconnected', 'closed');
      if (!sock || sock.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(() => { sock.terminate(); }, 1000);
        sock.once('close', () => { clearTimeout(t); resolve(); });
        if (sock.readyState === WebSocket.CONNECTING) sock.terminate();
        else sock.close(1000, 'closing');
      });
    },
  }));
}

module.exports = { DEFAULTS, createDialer };
