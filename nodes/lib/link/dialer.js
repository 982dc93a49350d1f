'use strict';
/**
 * The edge side of the link: dials the cloud's edge endpoint and keeps that one connection up.
 * No Node-RED here: the `s7twin-link-client` config node wraps it.
 *
 * - token as `Authorization: Bearer`, noDelay, no per-message deflate;
 * - a heartbeat: a `sync` frame every `heartbeatMs` (500 ms), answered by the cloud with its
 *   receive and send times. The answers feed the clock-offset estimate (lib/core/clock.js) that turns
 *   a command's deadline, set on the cloud's clock, into a conservative one on the edge's own
 *   (`localDeadline`). Nothing heard from the cloud for `linkTimeoutMs` (3 s) → terminate →
 *   reconnect: a black-holed link is torn down within seconds (the cloud drops a silent edge on
 *   the same timeout), where TCP alone would take minutes;
 * - reconnect with exponential back-off and jitter (lib/core/backoff.js), reset after a stable link;
 * - failover (issue 17): `url` may list several cloud instances (comma-separated); after a link
 *   that dropped or an attempt that failed (refused, 409 while the plant's lease is still held
 *   elsewhere, a timeout) the next attempt goes to the next URL. Every instance of a fleet serves
 *   the plant, so whichever takes the edge relays for it; `?plant=` names the plant to each;
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
const envelope = require('../core/envelope');
const { createOutbox } = require('./outbox');
const { createBackoff } = require('../core/backoff');
const clock = require('../core/clock');
const { parseCloudUrls, createRotation, redact } = require('./cloud-urls');

const DEFAULTS = {
  heartbeatMs: 500, // a sync frame this often: heartbeat and clock-offset sample
  linkTimeoutMs: 3000, // nothing heard from the cloud this long → terminate and reconnect
  handshakeTimeoutMs: 3000, // opening handshake limit (a black-holed link hangs here otherwise)
  maxPayload: 64 * 1024, // bytes; larger frames from the cloud are refused with an err envelope
  hardMaxPayload: 1024 * 1024, // bytes; ws closes with 1009 past this
  highWaterBytes: 256 * 1024, // socket bufferedAmount above which frames wait in the outbox
  drainPollMs: 10,
  snapWaitMs: 2000, // after a reconnect, how long the pending state waits for a snapshot
  maxFrames: 1000,
  maxTags: 4096,
  backoff: {}, // see lib/core/backoff.js (200 ms doubling to 5 s, jitter, reset after 5 s up)
  // After an HTTP 409 (another edge holds the plant: in a fleet, often the lease of an instance
  // that just died, which expires within linkTimeoutMs), try again at most this much later
  // instead of backing off further: the edge is back as soon as the lease is free.
  takenRetryMs: 500,
};

/**
 * @param {object} opts
 * @param {string|string[]} opts.url ws:// or wss:// URL of the cloud edge endpoint, or several
 *   (comma-separated or an array: the instances of a fleet, tried in turn)
 * @param {string} [opts.plant] the plant this edge serves (`?plant=` on each URL that names none)
 * @param {string} [opts.token]
 * @param {string} opts.src sender id for the frames the dialer makes itself (err answers, sync)
 * @param {object} [opts.ca] CA certificate(s) to verify a wss:// cloud with (PEM), passed to ws
 * @returns {EventEmitter & object} events: status('connecting'|'connected'|'disconnected', detail),
 *   connect(), disconnect(code, reason), envelope(env), invalid(err), failure(err)
 */
function createDialer(opts) {
  const o = { ...DEFAULTS, ...opts };
  const ee = new EventEmitter();
  const urls = createRotation(parseCloudUrls(o.url, { plant: o.plant }));
  const sender = envelope.createSender(o.src, { now: clock.now });
  const tracker = envelope.createTracker();
  const backoff = createBackoff(o.backoff);
  const offset = clock.createOffsetEstimator(o.clock);
  const outbox = createOutbox({ maxFrames: o.maxFrames, maxTags: o.maxTags });
  const counters = {
    connects: 0, reconnects: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, errors: 0,
    tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0, authFailures: 0,
    queueDepth: 0, refusedBusy: 0, failovers: 0,
    // clock: the latest exchange's round trip, and the offset estimate (cloud − edge) with its bound
    syncs: 0, syncRttMs: null, offsetMs: null, offsetUncertaintyMs: null,
  };
  let ws = null;
  let state = 'disconnected';
  let stopped = true;
  let retryTimer = null;
  let taken = false; // the last attempt was refused with 409 (see takenRetryMs)
  let heartbeatTimer = null;
  let heardAt = 0;
  let drainTimer = null;
  let snapTimer = null;
  let awaitingSnap = false;
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
    const sock = new WebSocket(urls.url, {
      headers, perMessageDeflate: false, maxPayload: Math.max(o.hardMaxPayload, o.maxPayload),
      handshakeTimeout: o.handshakeTimeoutMs,
      ...(o.ca ? { ca: o.ca } : {}),
    });
    ws = sock;
    sock.on('unexpected-response', (req, res) => {
      if (res.statusCode === 401) counters.authFailures += 1;
      if (res.statusCode === 409) counters.refusedBusy += 1;
      const err = new Error(res.statusCode === 409
        ? 'cloud refused the link: HTTP 409, another edge is connected for this plant'
        : `cloud refused the link: HTTP ${res.statusCode}`);
      err.code = { 401: 'E_AUTH', 409: 'E_EDGE_TAKEN' }[res.statusCode] || 'E_HTTP';
      taken = res.statusCode === 409;
      counters.errors += 1;
      ee.emit('failure', err);
      res.resume();
      sock.terminate();
    });
    sock.on('open', () => {
      if (sock !== ws) return; // ws sets noDelay on its socket itself
      counters.connects += 1;
      if (everConnected) counters.reconnects += 1;
      everConnected = true;
      backoff.connected();
      heardAt = Date.now();
      // The cloud behind this connection may be another process (a restart, another instance)
      // whose clock is anchored elsewhere: samples of an earlier connection do not bound it. Nor
      // do its senders' numbers follow on: a restarted cloud numbers from 1, and may have used
      // some numbers (E_EDGE_DOWN answers) before this link; nothing is replayed over a new link.
      offset.reset();
      tracker.reset();
      clearInterval(heartbeatTimer);
      heartbeatTimer = setInterval(heartbeat, o.heartbeatMs);
      heartbeat(); // first: the cloud relays no request before it has answered a sync
      setState('connected');
      // Hold the pending state until the snapshot the flow is about to send.
      if (!outbox.empty) {
        awaitingSnap = true;
        clearTimeout(snapTimer);
        snapTimer = setTimeout(() => { awaitingSnap = false; flush(); }, o.snapWaitMs);
      }
      ee.emit('connect');
    });
    sock.on('pong', () => { heardAt = Date.now(); });
    sock.on('message', (data, isBinary) => onFrame(data, isBinary));
    sock.on('error', (err) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.tooLarge += 1;
      counters.errors += 1;
      if (sock === ws) ee.emit('failure', err);
    });
    sock.on('close', (code, reason) => {
      if (sock !== ws) return;
      ws = null;
      // The instance went, or would not take this edge: the next attempt goes to the next one.
      const before = urls.index;
      urls.next();
      if (urls.index !== before) counters.failovers += 1;
      clearInterval(heartbeatTimer); heartbeatTimer = null;
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
    const wait = backoff.next();
    retryTimer = setTimeout(connect, taken ? Math.min(wait, o.takenRetryMs) : wait);
    taken = false;
  }

  function heartbeat() {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - heardAt > o.linkTimeoutMs) {
      counters.timeouts += 1;
      ws.terminate(); // 'close' follows and reconnects
      return;
    }
    // Straight to the socket, past the outbox: a sync that waited in a queue would measure the
    // queue, and a congested link is one whose silence should count.
    const t = envelope.stringify(sender.make('sync'));
    try { ws.send(t); } catch { return; }
    counters.framesOut += 1;
    counters.bytesOut += t.length;
  }

  function onSync(env, arrived) {
    const s = offset.add(env.d.t1, env.d.t2, env.ts, arrived);
    if (!s) return;
    counters.syncs += 1;
    counters.syncRttMs = Math.round(s.delay * 100) / 100;
    const est = offset.estimate(arrived);
    counters.offsetMs = Math.round(est.offset * 100) / 100;
    counters.offsetUncertaintyMs = Math.round(est.uncertainty * 100) / 100;
  }

  function onFrame(data, isBinary) {
    const arrived = clock.now();
    heardAt = Date.now(); // any traffic proves the peer is alive
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
    if (env.k === 'sync-res') { onSync(env, arrived); return; }
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
    /** The cloud URL dialled now (or next), token redacted. */
    get url() { return redact(urls.url); },
    /**
     * A deadline on the cloud's clock (a request's `dl`) as a time on this edge's clock
     * (lib/core/clock.js now()) before which it has surely not passed, judged with the offset estimate
     * and its bound; null while there is no estimate (nothing may be written on it then).
     * @param {number} dl
     * @returns {number|null}
     */
    localDeadline(dl) { return offset.localDeadline(dl); },
    /** The clock-offset estimate (cloud − edge) now, or null. */
    clockOffset() { return offset.estimate(); },
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
      clearInterval(heartbeatTimer); heartbeatTimer = null;
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
