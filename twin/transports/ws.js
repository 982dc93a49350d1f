'use strict';
/**
 * Twin transport over the WebSocket–S7 path (contract 5): one persistent connection to the cloud
 * twin endpoint `ws://host:port/s7twin/twin`, token as `Authorization: Bearer`, no per-message
 * deflate, TCP_NODELAY. Sends `cmd` envelopes (every input that changed in one twin tick = one
 * frame), receives `snap`/`state` (onValues), `ack`/`err` (counted, err codes kept), and
 * `probe-res` (onProbe) for the load generator.
 *
 * Failover (issue 17): `url` may list several cloud instances (comma-separated, or an array); when
 * the connection drops or an attempt fails, the next attempt goes to the next one. `plant` names
 * the plant (`?plant=`) where the token is valid for several.
 *
 * Reconnects with exponential back-off and jitter (nodes/lib/core/backoff.js). Inputs that change
 * while the link is down are not queued frame by frame (a late "button pressed" is worse than
 * none): the twin's input image is kept, and after a reconnect the whole image goes out as one
 * `cmd`, so the PLC sees the plant as it is now. A refused token (HTTP 401) is not retried.
 *
 * Every command gets exactly one answer here (onAnswer): the cloud's ack or err, or, for a
 * command in flight when this connection drops, E_OUTCOME_UNKNOWN made here (nobody can answer it
 * any more). When a command was not written or may not have been (E_EXPIRED, E_OUTCOME_UNKNOWN,
 * E_EDGE_DOWN, E_PLC_DOWN, E_BUSY), the twin resyncs: once no command of its own is in flight, the
 * next state or snap that shows an input differing from the twin's image brings a fresh command
 * with the difference (fresh values, a fresh deadline), never a replay of the old frame.
 */
const { TransportError, createErrorCounter } = require('./common');
const WebSocket = require('ws');
const envelope = require('../../nodes/lib/core/envelope');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { parseCloudUrls, createRotation } = require('../../nodes/lib/link/cloud-urls');
const { createAnswers } = require('./answers');

const DEFAULTS = {
  connectTimeoutMs: 10000, // connect() gives up after 10 s of failed attempts
  handshakeTimeoutMs: 5000, // one opening handshake
  pingMs: 15000, // client ping; no pong within one period → terminate and reconnect
  maxPayload: envelope.MAX_FRAME_BYTES, // larger frames from the cloud are refused
  maxErrorCodes: 50, // distinct err codes remembered
  ttl: undefined, // lifetime asked for each command, ms (default: the endpoint's, 1 s)
};



/**
 * @param {object} opts
 * @param {string|string[]} opts.url ws:// or wss:// URL of the twin endpoint, or several (a fleet's
 *   instances, comma-separated or an array: tried in turn)
 * @param {string} [opts.plant] the plant (`?plant=`), where the token is valid for several
 * @param {string} [opts.token]
 * @param {Buffer} [opts.ca] CA certificate(s) for a wss:// endpoint
 * @param {string} [opts.id] twin id; the envelope sender is `twin-<id>`
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log] where err codes from the cloud are reported
 */
function createTransport(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.url) throw new TransportError('E_TRANSPORT_CONFIG', 'the ws transport needs a url (ws://host:port/s7twin/twin)');
  let urls;
  try {
    urls = createRotation(parseCloudUrls(o.url, o.plant ? { plant: o.plant } : {}));
  } catch (err) {
    throw new TransportError('E_TRANSPORT_CONFIG', err.message);
  }
  const ttl = o.ttl === undefined ? undefined : Number(o.ttl);
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl > 0)) throw new TransportError('E_TRANSPORT_CONFIG', `ttl must be a positive whole number of ms, got ${JSON.stringify(o.ttl)}`);
  const id = String(o.id || `${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const sender = envelope.createSender(`twin-${id}`);
  const backoff = createBackoff(o.backoff || {});
  const log = o.log || (() => {});
  const valueCbs = [];
  const probeCbs = [];
  const sentCbs = [];
  const image = {}; // every input value sent so far (resent whole after a reconnect)
  const stats = {
    connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, acks: 0, errors: 0,
    errorCodes: {}, badFrames: 0, coalesced: 0, probesDropped: 0, authFailures: 0, bytesOut: 0, bytesIn: 0,
    lostWithConnection: 0, resyncs: 0, unexpectedAnswers: 0, failovers: 0,
  };
  const answers = createAnswers({ image, stats, resend: (d) => sendCmd(d), canSend: () => Boolean(ws && ws.readyState === WebSocket.OPEN) });
  let ws = null;
  let closed = false;
  let dirty = false; // inputs changed while down
  let retryTimer = null;
  let pingTimer = null;
  let awaitingPong = false;
  let firstConnect = null; // {resolve, reject, timer} while connect() waits

  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log, label: 'ws transport' });

  function write(env) {
    const text = envelope.stringify(env);
    ws.send(text);
    stats.sent += 1;
    stats.bytesOut += Buffer.byteLength(text);
  }

  function sendCmd(d) {
    const env = sender.make('cmd', { d, ttl });
    answers.sent(env.seq, d);
    for (const cb of sentCbs) cb({ seq: env.seq, d, image: { ...image } }); // before it can land anywhere
    write(env);
    return env.seq;
  }

  function open() {
    retryTimer = null;
    if (closed) return;
    const sock = new WebSocket(urls.url, {
      headers: o.token ? { Authorization: `Bearer ${o.token}` } : {},
      perMessageDeflate: false,
      handshakeTimeout: o.handshakeTimeoutMs,
      maxPayload: o.maxPayload,
      ...(o.ca ? { ca: o.ca } : {}), // wss:// with a private CA (--ca, S7T_CA_FILE)
    });
    ws = sock;
    sock.on('unexpected-response', (req, res) => {
      // The endpoint answers a bad token with 401 before the upgrade; retrying will not help.
      if (res.statusCode === 401) {
        stats.authFailures += 1;
        fail(new TransportError('E_UNAUTHORIZED', `the twin endpoint refused the token (HTTP 401) at ${urls.url.replace(/([?&]token=)[^&]*/, '$1***')}`), true);
      } else if (res.statusCode === 403) {
        fail(new TransportError('E_FORBIDDEN', `the twin endpoint refused the token for this plant (HTTP 403)`), true);
      } else {
        countError('E_HTTP', `HTTP ${res.statusCode}`);
      }
      res.resume();
      sock.terminate();
    });
    // TCP_NODELAY: ws sets it on the socket it takes over (websocket.js setSocket).
    sock.on('open', () => {
      stats.connected = true;
      stats.connects += 1;
      if (stats.connects > 1) stats.reconnects += 1;
      backoff.connected();
      // Back after a drop: bring the PLC up to date with the plant as it is now.
      if (stats.connects > 1 && (dirty || Object.keys(image).length)) sendCmd({ ...image });
      dirty = false;
      startPing(sock);
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.resolve(); firstConnect = null; }
    });
    sock.on('pong', () => { awaitingPong = false; });
    sock.on('message', (raw) => {
      stats.bytesIn += raw.length;
      let env;
      try {
        env = envelope.parse(raw, { maxBytes: o.maxPayload });
      } catch (err) {
        stats.badFrames += 1;
        countError(err.code || 'E_FRAME', err.message);
        return;
      }
      stats.received += 1;
      switch (env.k) {
        case 'state':
        case 'snap':
          for (const cb of valueCbs) cb(env.d, env.k);
          answers.resyncFrom(env.d);
          break;
        case 'ack':
          stats.acks += 1;
          if (env.ref && env.ref.src === sender.src) answers.answered(env.ref.seq, undefined, undefined, env.dl);
          break;
        case 'err':
          countError(env.e.code, env.e.msg);
          if (env.ref && env.ref.src === sender.src) answers.answered(env.ref.seq, env.e.code, env.e.msg, env.dl);
          break;
        case 'probe-res':
          for (const [slot, v] of Object.entries(env.d)) for (const cb of probeCbs) cb(Number(slot), v);
          break;
        default:
          break; // cmd/probe are not for a twin
      }
    });
    sock.on('error', (err) => {
      // 'close' follows; keep the reason for connect() and the stats.
      stats.lastError = err.message;
    });
    sock.on('close', () => {
      stopPing();
      if (ws === sock) ws = null;
      // The instance went (or refused): the next attempt goes to the next one.
      const before = urls.index;
      urls.next();
      if (urls.index !== before) stats.failovers += 1;
      // Commands in flight on this connection: nobody will answer them any more.
      answers.connectionLost();
      const was = stats.connected;
      stats.connected = false;
      if (was) backoff.disconnected();
      if (!closed) scheduleRetry();
    });
  }

  function scheduleRetry() {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(open, backoff.next());
  }

  function startPing(sock) {
    stopPing();
    awaitingPong = false;
    pingTimer = setInterval(() => {
      if (awaitingPong) { sock.terminate(); return; } // half-open: no pong for a whole period
      awaitingPong = true;
      try { sock.ping(); } catch { /* closing: the close handler reconnects */ }
    }, o.pingMs);
    pingTimer.unref();
  }

  function stopPing() {
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = null;
  }

  function fail(err, fatal) {
    if (fatal) {
      closed = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    }
    if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.reject(err); firstConnect = null; }
    else countError(err.code, err.message);
  }

  return {
    /** Open the connection; resolves once connected, rejects (E_CONNECT_TIMEOUT, E_UNAUTHORIZED). */
    connect() {
      if (closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          firstConnect = null;
          reject(new TransportError('E_CONNECT_TIMEOUT', `no connection to ${urls.url} within ${o.connectTimeoutMs} ms${stats.lastError ? ` (${stats.lastError})` : ''}`));
        }, o.connectTimeoutMs);
        firstConnect = { resolve, reject, timer };
        if (!ws && !retryTimer) open();
      });
    },
    /**
     * Send one frame with every input that changed in one tick.
     * @returns {number|null} the command's seq, or null when it waits for the connection (the
     *   image goes out whole after the reconnect)
     */
    send(values) {
      if (!values || Object.keys(values).length === 0) return null;
      Object.assign(image, values);
      if (ws && ws.readyState === WebSocket.OPEN) return sendCmd(values);
      dirty = true;
      stats.coalesced += 1;
      return null;
    },
    onValues(cb) { valueCbs.push(cb); },
    /** cb({seq, ok, code, msg, dl}) once per command sent: its ack, err, or E_OUTCOME_UNKNOWN (dl: the deadline the cloud gave it, when the answer says). */
    onAnswer: answers.onAnswer,
    /** cb({seq, d, image}) for every command, the twin's own resyncs included, just before it goes out. */
    onSent(cb) { sentCbs.push(cb); },
    /** Commands sent and not answered yet. */
    get inFlight() { return answers.inFlight; },
    /** Probe slot `slot` with `value` (load generator). Dropped and counted while down. */
    probe(slot, value) {
      if (ws && ws.readyState === WebSocket.OPEN) write(sender.make('probe', { d: { [slot]: value } }));
      else stats.probesDropped += 1;
    },
    onProbe(cb) { probeCbs.push(cb); },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      closed = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      stopPing();
      if (firstConnect) { clearTimeout(firstConnect.timer); firstConnect.reject(new TransportError('E_CLOSED', 'transport closed')); firstConnect = null; }
      const sock = ws;
      if (!sock || sock.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(() => { sock.terminate(); }, 1000);
        sock.once('close', () => { clearTimeout(t); resolve(); });
        if (sock.readyState === WebSocket.CONNECTING) sock.terminate(); else sock.close(1000, 'twin done');
      });
    },
    stats() { return { ...stats, errorCodes: { ...stats.errorCodes }, seq: sender.seq, inFlight: answers.inFlight, url: urls.url }; },
    get src() { return sender.src; },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
