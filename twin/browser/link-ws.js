'use strict';
/**
 * The browser twin's transport over the WebSocket–S7 path (the twin transport interface of
 * docs/twin.md, as twin/transports/ws.js for the headless twin): the page's own WebSocket to the
 * cloud twin endpoint, the token as `?token=` (a browser cannot set an Authorization header on a
 * WebSocket), `cmd` envelopes out, `snap`/`state` in (onValues), `ack`/`err` counted and reported.
 *
 * A browser WebSocket has no ping and does not say why an opening handshake failed (a refused
 * token and a server that is down look the same: a close before open), so the page checks its
 * token over HTTP first (twin/browser/session.js) and this transport simply retries with
 * exponential back-off and jitter (../transports/reconnect.js). As in the headless transport,
 * inputs that change while the link is down are kept in the input image, and after a reconnect
 * what this twin changed and has no ack for goes out as one `cmd` (never a late button press, and
 * never an input another twin set since). Every command carries an idempotency key and gets
 * exactly one answer: one whose outcome is in doubt goes again with the same key until the edge
 * says what happened (../transports/retries.js), and a doubtful answer brings a resync at once,
 * as in the HTTP transport (../transports/answers.js).
 *
 * Encoding: the compact one (MessagePack with the I/O table's tag ids) unless `encoding: 'json'`
 * (?encoding=json on the page); the endpoint's choice in the opening handshake decides
 * (nodes/lib/core/codec). Bytes counted are frame payloads (a page sees no sockets).
 *
 * Browser-safe (no Node APIs); Node 22's global WebSocket is the same API, so tests run it
 * against the real twin endpoint.
 */
const envelope = require('../../nodes/lib/core/envelope');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { createEnvelopes } = require('../transports/envelopes');
const { createReconnect } = require('../transports/reconnect');
const { TransportError, createErrorCounter, createConnectWaiter } = require('../transports/common');
const { createCodec, offerFor, TIME_UNIT_US } = require('../../nodes/lib/core/codec');
const { tableOf } = require('../../nodes/lib/core/io-table');

const DEFAULTS = {
  connectTimeoutMs: 10000, // connect() gives up after 10 s of failed attempts (retries go on)
  maxErrorCodes: 50, // distinct err codes remembered
};

const OPEN = 1; // WebSocket.OPEN, CLOSED: the values of the browser's API
const CLOSED = 3;
const utf8 = new TextEncoder();

/**
 * The endpoint's URL with what a browser WebSocket can carry of the credentials.
 * @param {{url: string, token?: string, plant?: string}} o
 * @returns {URL}
 */
function endpointUrl(o) {
  if (!o.url || !/^wss?:\/\//.test(o.url)) throw new TransportError('E_TRANSPORT_CONFIG', 'the WebSocket transport needs a ws:// or wss:// url');
  const url = new URL(o.url);
  if (o.token) url.searchParams.set('token', o.token);
  if (o.plant) url.searchParams.set('plant', o.plant);
  return url;
}

/**
 * @param {object} opts
 * @param {string} opts.url ws:// or wss:// URL of the twin endpoint
 * @param {string} [opts.token] sent as ?token=
 * @param {string} [opts.plant] sent as ?plant= (a token may be valid for several plants)
 * @param {string} [opts.id] twin id; the envelope sender is `twin-<id>`
 * @param {string} [opts.encoding] 'compact' (default) or 'json'
 * @param {object} [opts.table] the plant's I/O table (the compact encoding's tag ids; default the demo plant's)
 * @param {number} [opts.ttl] lifetime asked for each command, ms (default 1 s)
 * @param {boolean} [opts.keys] idempotency keys and retries (default true)
 * @param {object} [opts.retry] ../transports/retries.js options
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log]
 * @param {typeof WebSocket} [opts.WebSocket] default the global one
 */
function createTransport(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const url = endpointUrl(o);
  let protocols;
  try { protocols = offerFor(o.encoding); } catch (err) { throw new TransportError('E_TRANSPORT_CONFIG', err.message); }
  const table = tableOf(o.table);
  let codec = createCodec();
  const WS = o.WebSocket || globalThis.WebSocket;
  const stats = {
    state: 'idle', connected: false, connects: 0, reconnects: 0, failedAttempts: 0, sent: 0, received: 0,
    acks: 0, errors: 0, errorCodes: {}, badFrames: 0, coalesced: 0, bytesOut: 0, bytesIn: 0, lastError: '', retryAt: 0, encoding: null,
  };
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'ws' });
  let ws = null;
  const isOpen = () => Boolean(ws && ws.readyState === OPEN);
  const src = `twin-${o.id || Math.random().toString(36).slice(2, 10)}`;
  const link = createEnvelopes({
    src, stats, countError, atOnce: true, ttl: o.ttl, keys: o.keys, retry: o.retry, resend: (d) => sendCmd(d), canSend: isOpen, write,
  });
  const rc = createReconnect({
    stats,
    backoff: createBackoff(o.backoff || {}),
    open,
    onWait: (ms) => { stats.state = 'waiting'; stats.retryAt = Date.now() + ms; },
  });
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));

  function write(env) {
    const frame = codec.encode(env);
    ws.send(frame);
    stats.sent += 1;
    stats.bytesOut += typeof frame === 'string' ? utf8.encode(frame).length : frame.length;
  }

  function sendCmd(d) {
    write(link.command(d));
  }

  function onMessage(ev) {
    const binary = typeof ev.data !== 'string';
    const data = binary ? new Uint8Array(ev.data) : ev.data;
    stats.bytesIn += binary ? data.length : utf8.encode(data).length;
    let env;
    try {
      env = codec.decode(data, binary, envelope.MAX_FRAME_BYTES);
    } catch (err) {
      stats.badFrames += 1;
      countError(err.code || 'E_JSON', err.message);
      return;
    }
    stats.received += 1;
    link.receive(env);
  }

  function open() {
    if (rc.closed) return;
    stats.state = stats.connects ? 'reconnecting' : 'connecting';
    let sock;
    try {
      sock = new WS(url.href, protocols);
      sock.binaryType = 'arraybuffer';
    } catch (err) {
      stats.lastError = err.message;
      rc.schedule();
      return;
    }
    ws = sock;
    let opened = false;
    sock.onopen = () => {
      opened = true;
      codec = createCodec(sock.protocol, { table, timeUnitUs: TIME_UNIT_US.twin }); // fresh per connection: the compact one's state starts anew
      stats.encoding = codec.name;
      stats.state = 'connected';
      stats.failedAttempts = 0;
      // Back after a drop: commands in doubt ask first, then what changed meanwhile goes out.
      const again = rc.up();
      link.answers.connected();
      const owed = link.answers.unsent();
      if (again && Object.keys(owed).length) sendCmd(owed);
      firstConnect.resolve();
    };
    sock.onmessage = onMessage;
    sock.onerror = () => { /* onclose follows with the code */ };
    sock.onclose = (ev) => {
      if (ws === sock) ws = null;
      link.answers.connectionLost();
      if (opened) {
        rc.down();
        stats.lastError = `connection closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})`;
      } else {
        stats.failedAttempts += 1;
        stats.lastError = 'could not connect (the endpoint is down, or refused the token)';
      }
      rc.schedule();
    };
  }

  return {
    /** Open the connection; resolves once connected, rejects with E_CONNECT_TIMEOUT (retries go on). */
    connect() {
      if (rc.closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      const p = firstConnect.wait(o.connectTimeoutMs, () => `no connection to ${o.url} within ${o.connectTimeoutMs} ms (${stats.lastError})`);
      if (!ws && !rc.pending) open();
      return p;
    },
    /** Send one frame with every input that changed in one tick. */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      Object.assign(link.image, values);
      if (isOpen()) { sendCmd(values); return; }
      link.answers.changedWhileDown(values);
      stats.coalesced += 1;
    },
    onValues: link.onValues,
    /** cb({seq, ok, code, msg, dl, repeat, attempts}) once per command sent. */
    onAnswer: link.answers.onAnswer,
    get inFlight() { return link.answers.inFlight; },
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      rc.close();
      stats.state = 'closed';
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      const sock = ws;
      if (!sock || sock.readyState === CLOSED) { link.answers.close(); return Promise.resolve(); }
      return new Promise((resolve) => {
        const t = setTimeout(resolve, 1000);
        sock.addEventListener('close', () => { clearTimeout(t); resolve(); });
        sock.close(1000, 'page closed');
      }).then(() => link.answers.close());
    },
    stats() { return { ...stats, errorCodes: { ...stats.errorCodes }, seq: link.sender.seq, inFlight: link.answers.inFlight }; },
    get src() { return link.sender.src; },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
