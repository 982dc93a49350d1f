'use strict';
/**
 * Twin transport over HTTP polling (contract 5), against the cloud's REST twin endpoint
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
 * exponential back-off and jitter (nodes/lib/core/backoff.js); after that the whole input image goes
 * out as one command, as the other transports do. 401 is final (E_UNAUTHORIZED). Every command
 * gets one answer (onAnswer), and after a doubtful one (E_EXPIRED, E_OUTCOME_UNKNOWN, …) the
 * inputs the PLC shows differently from the twin's image go out again at once (./answers.js).
 *
 * The same file runs in the browser twin: pass `request` (the page passes one made on fetch). The
 * default request uses node:http with keep-alive and counts bytes on the sockets (headers
 * included), which a page cannot see: a page counts bodies only.
 */
const envelope = require('../../nodes/lib/core/envelope');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { createAnswers } = require('./answers');
const { TransportError, createErrorCounter, createConnectWaiter } = require('./common');

const DEFAULTS = {
  pollMs: 10, // a poll starts this long after the previous one started (as Modbus tuned polls)
  connectTimeoutMs: 10000,
  requestTimeoutMs: 10000, // a request without an answer by then counts as failed
  maxQueue: 200, // commands waiting to go out; beyond that they are merged into the input image
  maxErrorCodes: 50,
};


const utf8 = new TextEncoder();

/**
 * The default request function: node:http(s) with one keep-alive agent, and byte counts of every
 * socket it used (request and response headers included).
 * @param {object} wire {in, out} totals to add to
 * @returns {(r: {method, url, headers, body}) => Promise<{status:number, text:string}>}
 */
function nodeRequest(wire, timeoutMs) {
  const http = require('node:http');
  const https = require('node:https');
  const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 2 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 2 }) };
  const seen = new WeakSet();
  const live = new Set();
  const track = (s) => {
    if (seen.has(s)) return;
    seen.add(s);
    live.add(s);
    s.setNoDelay(true);
    s.once('close', () => { wire.in += s.bytesRead; wire.out += s.bytesWritten; live.delete(s); });
  };
  const fn = (r) => new Promise((resolve, reject) => {
    const u = new URL(r.url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(u, { method: r.method, headers: r.headers, agent: agents[u.protocol], timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('socket', track);
    req.on('timeout', () => req.destroy(new TransportError('E_HTTP_TIMEOUT', `no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(r.body);
  });
  fn.bytes = () => {
    let i = wire.in;
    let o = wire.out;
    for (const s of live) { i += s.bytesRead; o += s.bytesWritten; }
    return { in: i, out: o };
  };
  fn.close = () => { for (const a of Object.values(agents)) a.destroy(); };
  return fn;
}

/**
 * @param {object} opts
 * @param {string} opts.url http(s)://host:port/s7twin/rest
 * @param {string} [opts.token] sent as Authorization: Bearer
 * @param {string} [opts.id] twin id; the envelope sender is `twin-<id>`
 * @param {number} [opts.pollMs]
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
  const sender = envelope.createSender(`twin-${id}`);
  const backoff = createBackoff(o.backoff || {});
  const log = o.log || (() => {});
  const request = o.request || nodeRequest({ in: 0, out: 0 }, o.requestTimeoutMs);
  const headers = { Accept: 'application/json', ...(o.token ? { Authorization: `Bearer ${o.token}` } : {}) };
  const valueCbs = [];
  const image = {};
  const queue = []; // cmd frames waiting, oldest first
  const stats = {
    state: 'idle', connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, acks: 0, errors: 0, errorCodes: {},
    polls: 0, notModified: 0, frames: 0, snapshots: 0, coalesced: 0, badFrames: 0, authFailures: 0, lastError: '',
    bodyBytesOut: 0, bodyBytesIn: 0, version: 0, inFlight: 0,
  };
  const answers = createAnswers({ image, stats, atOnce: true, resend: (d) => { queue.push(d); pump(); }, canSend: () => stats.connected });
  let closed = false;
  let sending = false;
  let dirty = false; // commands were merged into the image: send it whole when the queue is free
  let pollTimer = null;
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log, label: 'http' });

  async function call(method, path, body) {
    const r = await request({ method, url: base + path, headers: body ? { ...headers, 'Content-Type': 'application/json' } : headers, body });
    stats.bodyBytesIn += utf8.encode(r.text).length;
    if (body) stats.bodyBytesOut += utf8.encode(body).length;
    return r;
  }

  /** The link is up (again): count it, and after a drop bring the PLC up to date. */
  function up() {
    if (stats.connected) return;
    stats.connected = true;
    stats.state = 'connected';
    stats.connects += 1;
    backoff.connected();
    if (stats.connects > 1) {
      stats.reconnects += 1;
      if (Object.keys(image).length) { queue.length = 0; queue.push({ ...image }); dirty = false; pump(); }
    }
  }

  function down(err) {
    if (stats.connected) { stats.connected = false; backoff.disconnected(); }
    stats.state = 'waiting';
    countError(err.code || 'E_HTTP_NETWORK', err.message);
  }

  function take(list) {
    for (const env of list) {
      try { envelope.validate(env); } catch (err) { stats.badFrames += 1; countError(err.code, err.message); continue; }
      if (env.k !== 'state' && env.k !== 'snap') continue;
      stats.received += 1;
      stats.frames += 1;
      if (env.k === 'snap') stats.snapshots += 1;
      stats.version = env.seq;
      for (const cb of valueCbs) cb(env.d, env.k);
      answers.resyncFrom(env.d);
    }
  }

  /** One poll; resolves true when the endpoint answered (whatever the state). */
  async function poll() {
    stats.polls += 1;
    let r;
    try {
      r = await call('GET', `/state${stats.version ? `?since=${stats.version}` : ''}`);
    } catch (err) {
      down(err);
      return false;
    }
    if (r.status === 401) {
      stats.authFailures += 1;
      fail(new TransportError('E_UNAUTHORIZED', `the REST endpoint refused the token (HTTP 401) at ${base}`));
      return false;
    }
    if (r.status === 204) { stats.notModified += 1; up(); return true; }
    let body;
    try { body = JSON.parse(r.text); } catch { body = null; }
    if (r.status !== 200 || !Array.isArray(body)) {
      const code = body && body.e ? body.e.code : `E_HTTP_${r.status}`;
      down(new TransportError(code, body && body.e ? body.e.msg : `GET state answered HTTP ${r.status}`));
      return false;
    }
    up();
    take(body);
    return true;
  }

  function schedulePoll(ms) {
    if (closed) return;
    pollTimer = setTimeout(loop, ms);
  }

  async function loop() {
    pollTimer = null;
    const t0 = Date.now();
    const ok = await poll();
    if (closed) return;
    if (ok && stats.version) firstConnect.resolve();
    schedulePoll(ok ? Math.max(0, pollMs - (Date.now() - t0)) : backoff.next());
  }

  async function pump() {
    if (sending || closed) return;
    sending = true;
    while (!closed && stats.connected && (queue.length || dirty)) {
      const d = queue.length ? queue.shift() : { ...image };
      if (!queue.length) dirty = false;
      const env = sender.make('cmd', { d });
      stats.sent += 1;
      stats.inFlight = 1;
      answers.sent(env.seq, d);
      let r;
      try {
        r = await call('POST', '/cmd', envelope.stringify(env));
      } catch (err) {
        stats.inFlight = 0;
        // The outcome is unknown: the whole image goes out again once the endpoint answers.
        down(err);
        dirty = true;
        answers.answered(env.seq, 'E_OUTCOME_UNKNOWN', `the request failed before its answer (${err.message})`);
        break;
      }
      stats.inFlight = 0;
      let answer;
      try { answer = JSON.parse(r.text); } catch { answer = null; }
      if (r.status === 200 && answer && answer.k === 'ack') {
        stats.acks += 1;
        answers.answered(env.seq, undefined, undefined, answer.dl);
      } else if (r.status === 401) {
        stats.authFailures += 1;
        answers.answered(env.seq, 'E_UNAUTHORIZED', 'token refused');
        fail(new TransportError('E_UNAUTHORIZED', `the REST endpoint refused the token (HTTP 401) at ${base}`));
        break;
      } else {
        const code = answer && answer.e ? answer.e.code : `E_HTTP_${r.status}`;
        countError(code, answer && answer.e ? answer.e.msg : '');
        answers.answered(env.seq, code, answer && answer.e ? answer.e.msg : '', answer && answer.dl);
      }
    }
    sending = false;
  }

  function fail(err) {
    closed = true;
    stats.state = 'closed';
    if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
    if (!firstConnect.reject(err)) countError(err.code, err.message);
  }

  return {
    /** Start polling; resolves at the first state, rejects with E_CONNECT_TIMEOUT or E_UNAUTHORIZED. */
    connect() {
      if (closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected && stats.version) return Promise.resolve();
      const p = firstConnect.wait(o.connectTimeoutMs, () => `no plant state from ${base} within ${o.connectTimeoutMs} ms${stats.lastError ? ` (${stats.lastError})` : ''}`);
      stats.state = 'connecting';
      if (!pollTimer) loop();
      return p;
    },
    /** Send one command with every input that changed in one tick (in order, one POST at a time). */
    send(values) {
      if (!values || Object.keys(values).length === 0) return;
      Object.assign(image, values);
      if (!stats.connected) { dirty = true; stats.coalesced += 1; return; }
      if (queue.length >= o.maxQueue) { queue.length = 0; dirty = true; stats.coalesced += 1; } else queue.push(values);
      pump();
    },
    onValues(cb) { valueCbs.push(cb); },
    /** cb({seq, ok, code, msg, dl}) once per command sent. */
    onAnswer: answers.onAnswer,
    /** Commands sent and not answered yet. */
    get inFlight() { return answers.inFlight; },
    /** Stop polling and sending; the keep-alive sockets are closed. */
    close() {
      closed = true;
      stats.state = 'closed';
      if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (request.close) request.close();
      return Promise.resolve();
    },
    stats() {
      const b = request.bytes ? request.bytes() : { in: stats.bodyBytesIn, out: stats.bodyBytesOut };
      return { ...stats, errorCodes: { ...stats.errorCodes }, bytesIn: b.in, bytesOut: b.out, seq: sender.seq };
    },
    get src() { return sender.src; },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport, nodeRequest };
