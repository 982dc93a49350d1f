'use strict';
/**
 * The edge side of the link: dials the cloud's edge endpoint and keeps that one connection up.
 * No Node-RED here: the `s7twin-link-client` config node wraps it.
 *
 * - over WebSocket (the default): token as `Authorization: Bearer`, noDelay, no per-message
 *   deflate (lib/link/ws-transport.js); over a message bus (`transport`: amqp, kafka, mqtt, zmq)
 *   a session per dial on the broker (lib/link/transports/), with the broker's login and the same
 *   token in the session's hello;
 * - a heartbeat and the cloud's clock-offset estimate (lib/link/heartbeat.js): a silent cloud is
 *   cut off within `linkTimeoutMs` and redialled;
 * - reconnect with exponential back-off and jitter (lib/core/backoff.js), reset after a stable link;
 * - failover: `url` may list several cloud instances (comma-separated); after a link that dropped
 *   or an attempt that failed (refused, 409 while the plant's lease is still held elsewhere, a
 *   timeout) the next attempt goes to the next URL. Every instance of a fleet serves the plant, so
 *   whichever takes the edge relays for it; `?plant=` names the plant to each;
 * - the plant's I/O table goes first on every connection (a `table` frame: its fingerprint and
 *   definition), so the cloud checks the plant's frames against it, or refuses the edge when the
 *   plant is configured there with another table;
 * - what comes from the cloud: lib/link/downlink.js; what is sent while the link is down, and
 *   after it is back: lib/link/uplink.js;
 * - store and forward (with a `journal`, lib/link/journal.js): the states of an outage are
 *   journalled on disk by the uplink and forwarded after the reconnect as backfill
 *   (lib/link/forwarder.js), beside the live stream.
 */
const { EventEmitter } = require('node:events');
const envelope = require('../core/envelope');
const { createBackoff } = require('../core/backoff');
const clock = require('../core/clock');
const { createCodec, offerFor } = require('../core/codec');
const { checkPlant } = require('../core/plants');
const { parseCloudUrls, createRotation, redact, UrlError } = require('./cloud-urls');
const { transportId, brokerUrl, dial } = require('./transports');
const { loadClient } = require('./transports/clients');
const { createHeartbeat } = require('./heartbeat');
const { createUplink } = require('./uplink');
const { createDownlink } = require('./downlink');
const { createForwarder } = require('./forwarder');
const { tableOf } = require('../core/io-table');

const DEFAULTS = {
  heartbeatMs: 500, // a sync frame this often: heartbeat and clock-offset sample
  linkTimeoutMs: 3000, // nothing heard from the cloud this long → terminate and reconnect
  handshakeTimeoutMs: 3000, // opening handshake limit (a black-holed link hangs here otherwise)
  maxPayload: 64 * 1024, // bytes; larger frames from the cloud are refused with an err envelope
  hardMaxPayload: 1024 * 1024, // bytes; the transport closes with 1009 past this
  highWaterBytes: 256 * 1024, // connection buffer above which frames wait in the outbox
  drainPollMs: 10,
  snapWaitMs: 2000, // after a reconnect, how long the pending state waits for a snapshot
  maxFrames: 1000,
  maxTags: 4096,
  backoff: {}, // see lib/core/backoff.js (200 ms doubling to 5 s, jitter, reset after 5 s up)
  // After an HTTP 409 (another edge holds the plant: in a fleet, often the lease of an instance
  // that just died, which expires within linkTimeoutMs), try again at most this much later
  // instead of backing off further: the edge is back as soon as the lease is free.
  takenRetryMs: 500,
  // The frames' encoding offered to the cloud (lib/core/codec): 'compact' (MessagePack with the
  // I/O table's tag ids, JSON if the cloud speaks only that) or 'json'.
  encoding: 'compact',
};

/** The failure for an HTTP refusal of the upgrade. */
function refusalError(status) {
  const err = new Error(status === 409
    ? 'cloud refused the link: HTTP 409, another edge is connected for this plant'
    : `cloud refused the link: HTTP ${status}`);
  err.code = { 401: 'E_AUTH', 409: 'E_EDGE_TAKEN' }[status] || 'E_HTTP';
  return err;
}

/**
 * Where the dialer may dial: WebSocket URLs with the plant in their query, or broker addresses
 * with their login taken out (lib/link/transports/index.js brokerUrl).
 * @returns {Array<{url: string, username?: string, password?: string}>}
 * @throws {UrlError|LinkTransportError} E_URL, E_LINK_URL
 */
function dialTargets(transport, list, plant) {
  if (transport === 'ws') return parseCloudUrls(list, { plant }).map((url) => ({ url }));
  const parts = (Array.isArray(list) ? list : String(list || '').split(',')).map((u) => String(u).trim()).filter(Boolean);
  if (!parts.length) throw new UrlError('E_URL', 'no broker URL given');
  if (plant !== undefined) checkPlant(plant);
  return parts.map((u) => brokerUrl(transport, u));
}

/**
 * A dialer's counters; with a journal, store and forward's too (the journal's own, and the
 * forwarding's under `backfill`).
 * @param {object|null} journal lib/link/journal.js
 * @returns {object}
 */
function dialerCounters(journal) {
  const counters = {
    connects: 0, reconnects: 0, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, errors: 0,
    tooLarge: 0, duplicates: 0, gaps: 0, coalesced: 0, dropped: 0, timeouts: 0, authFailures: 0,
    queueDepth: 0, refusedBusy: 0, failovers: 0, encoding: null,
    // clock: the latest exchange's round trip, and the offset estimate (cloud − edge) with its bound
    syncs: 0, syncRttMs: null, offsetMs: null, offsetUncertaintyMs: null,
  };
  if (journal) {
    counters.journal = journal.counters;
    counters.backfill = {
      sent: 0, bytes: 0, answered: 0, inflight: 0, refused: 0, paused: 0, retries: 0, unconfirmed: 0, unconfirmedJournalled: 0, unconfirmedDropped: 0,
    };
  }
  return counters;
}

/**
 * Store and forward's sending side for a dialer with a journal (lib/link/forwarder.js): the
 * journal's records go out as backfill once the uplink is idle, written like the dialer's frames and
 * counted in its counters; a cloud that takes no backfill now is a `failure` of the dialer.
 * @param {{o: object, journal: object, counters: object, uplink: object, offsetNow: () => (number|null), ee: EventEmitter}} d
 * @returns {object} the forwarder
 */
function createJournalForwarder({ o, journal, counters, uplink, offsetNow, ee }) {
  return createForwarder({
    ...(o.forward || {}),
    journal,
    counters: counters.backfill,
    ready: () => uplink.idle,
    offset: offsetNow,
    write(c, env) {
      const t = c.codec ? c.codec.encode(env) : envelope.stringify(env);
      c.send(t);
      counters.framesOut += 1;
      counters.bytesOut += t.length;
      return t.length;
    },
    onPause: (code, msg) => {
      const err = new Error(`the cloud takes no backfill now (${msg}); the journal keeps it for the next connection`);
      ee.emit('failure', Object.assign(err, { code }));
    },
  });
}

/**
 * @param {object} opts
 * @param {string} [opts.transport] ws (default), amqp, kafka, mqtt or zmq (lib/link/transports/)
 * @param {string|string[]} opts.url ws:// or wss:// URL of the cloud edge endpoint, or several
 *   (comma-separated or an array: the instances of a fleet, tried in turn); for a message bus the
 *   broker's URL (the ZeroMQ cloud's address), or several
 * @param {string} [opts.username] the broker's login (else the one in the URL)
 * @param {string} [opts.password]
 * @param {string} [opts.plant] the plant this edge serves (`?plant=` on each URL that names none)
 * @param {string} [opts.token]
 * @param {string} opts.src sender id for the frames the dialer makes itself (err answers, sync)
 * @param {object} [opts.ca] CA certificate(s) to verify a wss:// cloud with (PEM), passed to ws
 * @param {string} [opts.encoding] 'compact' (default) or 'json' (lib/core/codec)
 * @param {object} [opts.table] the plant's I/O table (lib/core/io-table.js; default: the demo plant's)
 * @param {object} [opts.journal] lib/link/journal.js: store and forward (its owner opens and closes it)
 * @param {object} [opts.forward] lib/link/forwarder.js options (window, burst, pollMs, highWaterBytes)
 * @returns {EventEmitter & object} events: status('connecting'|'connected'|'disconnected', detail),
 *   connect(), disconnect(code, reason), envelope(env), invalid(err), failure(err)
 */
function createDialer(opts) {
  const o = { ...DEFAULTS, ...opts };
  const ee = new EventEmitter();
  const transport = transportId(o.transport);
  if (transport !== 'ws') loadClient(transport); // a missing client is said now, not on every dial
  const targets = dialTargets(transport, o.url, o.plant);
  const urls = createRotation(targets.map((t) => t.url));
  const offer = offerFor(o.encoding);
  const sender = envelope.createSender(o.src, { now: clock.now });
  const table = tableOf(o.table);
  const backoff = createBackoff(o.backoff);
  const journal = o.journal || null;
  const counters = dialerCounters(journal);
  const heartbeat = createHeartbeat({ sender, heartbeatMs: o.heartbeatMs, linkTimeoutMs: o.linkTimeoutMs, counters, clock: o.clock });
  const downlink = createDownlink({
    maxPayload: o.maxPayload,
    counters,
    sender,
    answer: (env) => uplink.send(env),
    onHeard: () => heartbeat.heard(),
    onSyncRes: (env, arrived) => {
      heartbeat.onSyncRes(env, arrived);
      uplink.confirm(env.ref.seq);
    },
    onControl: (env) => Boolean(forwarder && forwarder.take(env)),
    onEnvelope: (env) => ee.emit('envelope', env),
    onInvalid: (err) => ee.emit('invalid', err),
  });
  /** The clock-offset estimate (cloud − edge, ms) now, or null. */
  const offsetNow = () => { const e = heartbeat.estimate(); return e ? e.offset : null; };
  const uplink = createUplink({
    maxFrames: o.maxFrames, maxTags: o.maxTags, highWaterBytes: o.highWaterBytes, drainPollMs: o.drainPollMs, snapWaitMs: o.snapWaitMs, counters,
    journal,
    // An edge timestamp on the cloud's clock, with the estimate of the link that is up or was up last.
    cloudTime: (ts) => { const off = offsetNow(); return off === null ? null : Math.round(ts + off); },
    mark: () => sender.seq,
  });
  const forwarder = journal ? createJournalForwarder({ o, journal, counters, uplink, offsetNow, ee }) : null;
  let conn = null;
  let state = 'disconnected';
  let stopped = true;
  let retryTimer = null;
  let taken = false; // the last attempt was refused with 409 (see takenRetryMs)
  let everConnected = false;

  function setState(s, detail) {
    if (s === state) return;
    state = s;
    ee.emit('status', s, detail);
  }

  function onOpen(c) {
    // A WebSocket's codec comes from its subprotocol, fresh per connection (its state starts anew);
    // a message bus's session agreed on its own in its hello.
    if (transport === 'ws') c.codec = createCodec(c.protocol, { table });
    counters.encoding = c.codec ? c.codec.name : null;
    counters.connects += 1;
    if (everConnected) counters.reconnects += 1;
    everConnected = true;
    backoff.connected();
    downlink.reset();
    // The plant's table before anything else: the cloud checks every state against it (JSON text on
    // either encoding: the compact frame has no field for it, and the cloud learns its tag ids from it).
    try { c.send(envelope.stringify(sender.make('table', { t: { fingerprint: table.fingerprint, definition: table.definition } }))); } catch { /* closing */ }
    heartbeat.start(c);
    setState('connected');
    uplink.attach(c);
    if (forwarder) forwarder.attach(c);
    ee.emit('connect');
  }

  function onClose(code, reason) {
    conn = null;
    // The instance went, or would not take this edge: the next attempt goes to the next one.
    const before = urls.index;
    urls.next();
    if (urls.index !== before) counters.failovers += 1;
    heartbeat.stop();
    if (forwarder) forwarder.detach();
    uplink.detach();
    backoff.disconnected();
    setState('disconnected', String(reason || code));
    ee.emit('disconnect', code, String(reason || ''));
    scheduleRetry();
  }

  function connect() {
    if (stopped) return;
    retryTimer = null;
    setState('connecting');
    const t = targets[urls.index];
    const c = dial(transport, t.url, {
      token: o.token,
      plant: o.plant,
      username: o.username || t.username,
      password: o.password || t.password,
      ca: o.ca,
      protocols: offer,
      maxPayload: Math.max(o.hardMaxPayload, o.maxPayload),
      handshakeTimeoutMs: o.handshakeTimeoutMs,
    });
    conn = c;
    c.on('refused', (status) => {
      if (status === 401) counters.authFailures += 1;
      if (status === 409) counters.refusedBusy += 1;
      taken = status === 409;
      counters.errors += 1;
      ee.emit('failure', refusalError(status));
    });
    c.on('open', () => { if (c === conn) onOpen(c); });
    c.on('alive', () => heartbeat.heard());
    c.on('frame', (data, isBinary) => downlink.receive(data, isBinary, c.codec));
    c.on('error', (err) => {
      if (err.code === 'E_TOO_LARGE') counters.tooLarge += 1;
      counters.errors += 1;
      if (c === conn) ee.emit('failure', err);
    });
    c.on('close', (code, reason) => { if (c === conn) onClose(code, reason); });
  }

  function scheduleRetry() {
    if (stopped || retryTimer) return;
    const wait = backoff.next();
    retryTimer = setTimeout(connect, taken ? Math.min(wait, o.takenRetryMs) : wait);
    taken = false;
  }

  // defineProperties, not Object.assign: Object.assign would copy the getters' values once.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    tracker: downlink.tracker,
    transport,
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
    localDeadline(dl) { return heartbeat.localDeadline(dl); },
    /** The clock-offset estimate (cloud − edge) now, or null. */
    clockOffset() { return heartbeat.estimate(); },
    /** Start dialing (idempotent). */
    start() {
      if (!stopped) return;
      stopped = false;
      connect();
    },
    /**
     * Send one envelope to the cloud (or coalesce/drop it while the link is down: lib/link/uplink.js).
     * @param {object} env a valid envelope
     * @returns {'sent'|'queued'|'dropped'}
     */
    send: (env) => uplink.send(env),
    /** Stop dialing and close the link (1000); resolves once the connection is gone. */
    close() {
      stopped = true;
      clearTimeout(retryTimer); retryTimer = null;
      heartbeat.stop();
      if (forwarder) forwarder.close();
      uplink.close();
      const c = conn;
      conn = null;
      setState('disconnected', 'closed');
      if (!c || c.closed) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(() => { c.terminate(); }, 1000);
        c.once('close', () => { clearTimeout(t); resolve(); });
        c.close(1000, 'closing');
      });
    },
  }));
}

module.exports = { DEFAULTS, createDialer };
