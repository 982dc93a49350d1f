'use strict';
/**
 * Twin transport over HTTP polling (the twin transport interface of docs/twin.md), against the cloud's REST twin endpoint
 * (nodes/lib/web/rest.js, s7twin-rest): every input that changed in one twin tick is one
 * `POST <url>/cmd` with a `cmd` envelope (answered with the edge's `ack` or an `err`), and the
 * PLC's state is polled with `GET <url>/state?since=<version>`, which returns every state frame
 * the edge sent since the last poll (none lost between two polls) or 204. The related study
 * (shared/reference/http-mqtt-mqttws-digital-twin-study.txt) compares exactly this with MQTT over
 * TCP and over WebSocket.
 *
 *   npm run twin -- --protocol http --url http://127.0.0.1:1880/s7twin/rest --token T [--poll-ms 10]
 *
 * Commands go out one at a time, in order (two POSTs on two sockets could overtake each other).
 * Polls go on a second keep-alive connection: one poll in flight, the next `pollMs` after the
 * previous one started. When the endpoint cannot be reached the transport retries with
 * exponential back-off and jitter (nodes/lib/core/backoff.js); after that what the twin changed and has
 * no ack for goes out as one command, as the other transports do. Commands carry idempotency keys
 * (the `key` of the envelope); one whose outcome is in doubt goes again with the same key
 * (./retries.js). 401 is final (E_UNAUTHORIZED). Every command
 * gets one answer (onAnswer), and after a doubtful one (E_EXPIRED, E_OUTCOME_UNKNOWN, …) the
 * inputs the PLC shows differently from the twin's image go out again at once (./answers.js).
 *
 * The same file runs in the browser twin: pass `request` (the page passes one made on fetch). The
 * default request (./http/request.js) uses node:http with keep-alive and counts bytes on the
 * sockets (headers included), which a page cannot see: a page counts bodies only.
 *
 * The parts: ./http/commands.js (the POSTs), ./http/poll.js (the GETs), ./envelopes.js (commands
 * booked for their answers, state frames to the callbacks), ./reconnect.js (the link counted up
 * and down).
 */
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { TransportError, createErrorCounter, createConnectWaiter, connectTimeoutMessage } = require('./common');
const { createEnvelopes } = require('./envelopes');
const { createReconnect } = require('./reconnect');
const { createCommands } = require('./http/commands');
const { createPoller } = require('./http/poll');
const { nodeRequest } = require('./http/request');

const DEFAULTS = {
  pollMs: 10, // a poll starts this long after the previous one started (as Modbus tuned polls)
  connectTimeoutMs: 10000,
  requestTimeoutMs: 10000, // a request without an answer by then counts as failed
  maxQueue: 200, // commands waiting to go out; beyond that they are merged into the input image
  maxErrorCodes: 50,
};

const utf8 = new TextEncoder();

/**
 * @param {object} opts
 * @param {string} opts.url http(s)://host:port/s7twin/rest
 * @param {string} [opts.token] sent as Authorization: Bearer
 * @param {string} [opts.id] twin id; the envelope sender is `twin-<id>`
 * @param {number} [opts.pollMs]
 * @param {number} [opts.ttl] lifetime asked for each command, ms (default 1 s)
 * @param {boolean} [opts.keys] idempotency keys and retries (default true)
 * @param {object} [opts.retry] ./retries.js options
 * @param {(r: {method:string, url:string, headers:object, body?:string}) => Promise<{status:number, text:string}>} [opts.request]
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log]
 */
function createTransport(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.url || !/^https?:\/\//.test(o.url)) throw new TransportError('E_TRANSPORT_CONFIG', 'the http transport needs a url (http://host:1880/s7twin/rest)');
  const base = o.url.replace(/\/+$/, '');
  const pollMs = Number(o.pollMs);
  if (!(pollMs >= 0)) throw new TransportError('E_TRANSPORT_CONFIG', `pollMs must be a number >= 0, got ${o.pollMs}`);
  const id = String(o.id || Math.random().toString(36).slice(2, 10));
  const backoff = createBackoff(o.backoff || {});
  const request = o.request || nodeRequest({ in: 0, out: 0 }, o.requestTimeoutMs);
  const headers = { Accept: 'application/json', ...(o.token ? { Authorization: `Bearer ${o.token}` } : {}) };
  const stats = {
    state: 'idle', connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, acks: 0, errors: 0, errorCodes: {},
    polls: 0, notModified: 0, frames: 0, snapshots: 0, coalesced: 0, badFrames: 0, authFailures: 0, lastError: '',
    bodyBytesOut: 0, bodyBytesIn: 0, version: 0, inFlight: 0,
  };
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'http' });
  const link = createEnvelopes({
    src: `twin-${id}`, stats, countError, atOnce: true, ttl: o.ttl, keys: o.keys, retry: o.retry,
    resend: (d) => commands.resend(d), attempt: (make) => commands.attempt(make), canSend: () => stats.connected,
  });
  const rc = createReconnect({ stats, backoff });
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));
  const refused = () => fail(new TransportError('E_UNAUTHORIZED', `the REST endpoint refused the token (HTTP 401) at ${base}`));
  const closed = () => rc.closed;

  async function call(method, path, body) {
    const r = await request({ method, url: base + path, headers: body ? { ...headers, 'Content-Type': 'application/json' } : headers, body });
    stats.bodyBytesIn += utf8.encode(r.text).length;
    if (body) stats.bodyBytesOut += utf8.encode(body).length;
    return r;
  }

  /** The link is up (again): count it, and after a drop bring the PLC up to date. */
  function up() {
    if (stats.connected) return;
    stats.state = 'connected';
    const again = rc.up();
    link.answers.connected();
    if (again) commands.sendImage();
  }

  function down(err) {
    rc.down();
    stats.state = 'waiting';
    countError(err.code || 'E_HTTP_NETWORK', err.message);
  }

  const commands = createCommands({
    link, stats, countError, post: (body) => call('POST', '/cmd', body), closed, onLost: down, onRefused: refused, maxQueue: o.maxQueue,
  });
  const poller = createPoller({
    get: (path) => call('GET', path), stats, countError, link, pollMs, backoff, closed, up, down, onRefused: refused,
    onPolled: () => { if (stats.version) firstConnect.resolve(); },
  });

  function fail(err) {
    rc.close();
    stats.state = 'closed';
    poller.stop();
    if (!firstConnect.reject(err)) countError(err.code, err.message);
  }

  return {
    /** Start polling; resolves at the first state, rejects with E_CONNECT_TIMEOUT or E_UNAUTHORIZED. */
    connect() {
      if (rc.closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected && stats.version) return Promise.resolve();
      const p = firstConnect.wait(o.connectTimeoutMs, () => connectTimeoutMessage(`no plant state from ${base}`, o.connectTimeoutMs, stats));
      stats.state = 'connecting';
      poller.start();
      return p;
    },
    /** Send one command with every input that changed in one tick (in order, one POST at a time). */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      Object.assign(link.image, values);
      commands.send(values);
    },
    onValues: link.onValues,
    /** cb({seq, ok, code, msg, dl, repeat, attempts}) once per command sent. */
    onAnswer: link.answers.onAnswer,
    /** Commands sent and not answered yet. */
    get inFlight() { return link.answers.inFlight; },
    /** Stop polling and sending; the keep-alive sockets are closed. */
    close() {
      rc.close();
      stats.state = 'closed';
      poller.stop();
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (request.close) request.close();
      link.answers.close();
      return Promise.resolve();
    },
    stats() {
      const b = request.bytes ? request.bytes() : { in: stats.bodyBytesIn, out: stats.bodyBytesOut };
      return { ...stats, errorCodes: { ...stats.errorCodes }, bytesIn: b.in, bytesOut: b.out, seq: link.sender.seq };
    },
    get src() { return link.sender.src; },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport, nodeRequest };
