'use strict';
/**
 * Twin transport over the WebSocket–S7 path (the twin transport interface of docs/twin.md,
 * "Transports"): one persistent connection to the cloud twin endpoint
 * `ws://host:port/s7twin/twin`, token as `Authorization: Bearer`, no per-message deflate,
 * TCP_NODELAY. Sends `cmd` envelopes (every input that changed in one twin tick = one frame),
 * receives `snap`/`state` (onValues), `ack`/`err` (counted, err codes kept), and `probe-res`
 * (onProbe) for the load generator.
 *
 * Failover: `url` may list several cloud instances of a fleet (comma-separated, or an array); when
 * the connection drops or an attempt fails, the next attempt goes to the next one. `plant` names
 * the plant (`?plant=`) where the token is valid for several.
 *
 * Encoding: the compact one (`s7twin.v1+msgpack`: MessagePack with the I/O table's tag ids) by
 * default, JSON with `encoding: 'json'` (nodes/lib/core/codec); the endpoint's choice in the
 * opening handshake decides. Bytes are counted on the TCP socket (the upgrade and WebSocket
 * framing included, as the other transports count theirs), and where they go by kind in
 * stats().where (./ws/bytes.js).
 *
 * Reconnects with exponential back-off and jitter (./reconnect.js). Inputs that change while the
 * link is down are not queued frame by frame (a late "button pressed" is worse than none): the
 * twin's input image is kept, and after a reconnect what this twin changed and has no ack for goes
 * out as one `cmd` (never its whole image: an input another twin set since is not this one's to
 * set back). A refused token (HTTP 401, or 403 for this plant) is not retried.
 *
 * Every command gets exactly one answer here (onAnswer): the cloud's ack or err, or, for a
 * command in flight when this connection drops, E_OUTCOME_UNKNOWN made here (nobody can answer it
 * any more). Commands carry idempotency keys: one whose outcome is in doubt goes again with the
 * same key (after a reconnect, if need be) until the edge says what happened (./retries.js). After
 * a doubtful answer the twin resyncs from the next state (./answers.js).
 *
 * The parts: ./envelopes.js (commands, answers, what the cloud sends) and ./ws/connection.js
 * (the socket, its heartbeat, failover and reconnects).
 */
const envelope = require('../../nodes/lib/core/envelope');
const { createBackoff } = require('../../nodes/lib/core/backoff');
const { parseCloudUrls, createRotation } = require('../../nodes/lib/link/cloud-urls');
const { TransportError, createErrorCounter, createConnectWaiter, connectTimeoutMessage } = require('./common');
const { createEnvelopes } = require('./envelopes');
const { createConnection } = require('./ws/connection');
const { createCodec, offerFor, TIME_UNIT_US } = require('../../nodes/lib/core/codec');
const { tableOf } = require('../../nodes/lib/core/io-table');
const { createWireCounter } = require('./wire');
const { createByteBook } = require('./ws/bytes');
const { sparseObject } = require('../../nodes/lib/core/sparse');

const DEFAULTS = {
  connectTimeoutMs: 10000, // connect() gives up after 10 s of failed attempts
  handshakeTimeoutMs: 5000, // one opening handshake
  pingMs: 15000, // client ping; no pong within one period → terminate and reconnect
  maxPayload: envelope.MAX_FRAME_BYTES, // larger frames from the cloud are refused
  maxErrorCodes: 50, // distinct err codes remembered
  ttl: undefined, // lifetime asked for each command, ms (default 1 s, the endpoint's default)
  keys: true, // idempotency keys, and commands in doubt tried again (./retries.js)
  encoding: 'compact', // 'compact' (MessagePack, tag ids) or 'json' (nodes/lib/core/codec)
};

/**
 * The options checked: the endpoints to rotate through, the command lifetime, the twin id.
 * @param {object} opts as createTransport's
 * @returns {{o: object, urls: {url: string, index: number, next(): void}, ttl: number|undefined, id: string}}
 */
function configure(opts) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.url) throw new TransportError('E_TRANSPORT_CONFIG', 'the ws transport needs a url (ws://host:port/s7twin/twin)');
  let urls;
  try {
    urls = createRotation(parseCloudUrls(o.url, o.plant ? { plant: o.plant } : {}));
  } catch (err) {
    throw new TransportError('E_TRANSPORT_CONFIG', err.message);
  }
  const ttl = o.ttl === undefined ? undefined : Number(o.ttl);
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl > 0)) {
    throw new TransportError('E_TRANSPORT_CONFIG', `ttl must be a positive whole number of ms, got ${JSON.stringify(o.ttl)}`);
  }
  const id = String(o.id || `${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  let protocols;
  try {
    protocols = offerFor(o.encoding);
  } catch (err) {
    throw new TransportError('E_TRANSPORT_CONFIG', err.message);
  }
  return { o: { ...o, protocols }, urls, ttl, id };
}

/**
 * @param {object} opts
 * @param {string|string[]} opts.url ws:// or wss:// URL of the twin endpoint, or several (a fleet's
 *   instances, comma-separated or an array: tried in turn)
 * @param {string} [opts.plant] the plant (`?plant=`), where the token is valid for several
 * @param {string} [opts.token]
 * @param {Buffer} [opts.ca] CA certificate(s) for a wss:// endpoint
 * @param {string} [opts.id] twin id; the envelope sender is `twin-<id>`
 * @param {number} [opts.ttl] lifetime asked for each command, ms
 * @param {string} [opts.encoding] 'compact' (default) or 'json'
 * @param {object} [opts.table] the plant's I/O table (the compact encoding's tag ids; default the demo plant's)
 * @param {boolean} [opts.keys] idempotency keys and retries (default true)
 * @param {object} [opts.retry] ./retries.js options (askForMs …)
 * @param {object} [opts.backoff] see nodes/lib/core/backoff.js
 * @param {(line: string) => void} [opts.log] where err codes from the cloud are reported
 */
function createTransport(opts = {}) {
  const { o, urls, ttl, id } = configure(opts);
  const stats = {
    connected: false, connects: 0, reconnects: 0, sent: 0, received: 0, acks: 0, errors: 0,
    errorCodes: {}, badFrames: 0, coalesced: 0, probesDropped: 0, authFailures: 0, bytesOut: 0, bytesIn: 0,
    lostWithConnection: 0, resyncs: 0, unexpectedAnswers: 0, failovers: 0, encoding: null, payloadOut: 0, payloadIn: 0,
  };
  const table = tableOf(o.table);
  const wire = createWireCounter();
  const book = createByteBook();
  let codec = createCodec();
  let mine = {}; // the values of the twin's last command: what a state echoes back of them
  const countError = createErrorCounter(stats, { max: o.maxErrorCodes, log: o.log, label: 'ws transport' });
  const link = createEnvelopes({
    src: `twin-${id}`, stats, countError, ttl, keys: o.keys, retry: o.retry, resend: (d) => sendCmd(d), canSend: () => conn.isOpen, write,
  });
  const firstConnect = createConnectWaiter((code, msg) => new TransportError(code, msg));
  const conn = createConnection({
    urls, options: o, stats, backoff: createBackoff(o.backoff || {}),
    onOpen(again, protocol, sock) {
      codec = createCodec(protocol, { table, timeUnitUs: TIME_UNIT_US.twin }); // fresh per connection: the compact one's state starts anew
      stats.encoding = codec.name;
      wire.use(sock);
      // Back after a drop: commands in doubt ask first, then what changed meanwhile goes out.
      link.answers.connected();
      const owed = link.answers.unsent();
      if (again && Object.keys(owed).length) sendCmd(owed);
      firstConnect.resolve();
    },
    onMessage,
    // Commands in flight on this connection: nobody will answer them any more.
    onClose: () => link.answers.connectionLost(),
    onRefused(r) {
      if (r.status === 401) stats.authFailures += 1;
      if (!r.fatal) countError(r.code, r.msg);
      else if (!firstConnect.reject(new TransportError(r.code, r.msg))) countError(r.code, r.msg);
    },
  });

  function write(env) {
    const frame = codec.encode(env);
    conn.send(frame);
    const size = typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
    stats.sent += 1;
    stats.payloadOut += size;
    book.add('up', env, size);
  }

  function sendCmd(d) {
    const env = link.command(d);
    mine = d;
    write(env);
    return env.seq;
  }

  function onMessage(raw, isBinary) {
    stats.payloadIn += raw.length;
    let env;
    try {
      env = codec.decode(raw, isBinary, o.maxPayload);
      book.add('down', env, raw.length, mine);
    } catch (err) {
      stats.badFrames += 1;
      countError(err.code || 'E_FRAME', err.message);
      return;
    }
    stats.received += 1;
    link.receive(env);
  }

  return {
    /** Open the connection; resolves once connected, rejects (E_CONNECT_TIMEOUT, E_UNAUTHORIZED). */
    connect() {
      if (conn.closed) return Promise.reject(new TransportError('E_CLOSED', 'transport closed'));
      if (stats.connected) return Promise.resolve();
      const p = firstConnect.wait(o.connectTimeoutMs, () => connectTimeoutMessage(`no connection to ${urls.url}`, o.connectTimeoutMs, stats));
      conn.dial();
      return p;
    },
    /**
     * Send one frame with every input that changed in one tick.
     * @returns {number|null} the command's seq, or null when it waits for the connection (it goes
     *   out with the other changes made meanwhile after the reconnect)
     */
    send(values) {
      if (!values || Object.keys(values).length === 0) return null;
      Object.assign(link.image, values);
      if (conn.isOpen) return sendCmd(values);
      link.answers.changedWhileDown(values);
      stats.coalesced += 1;
      return null;
    },
    onValues: link.onValues,
    /**
     * cb({seq, ok, code, msg, dl, repeat, attempts}) once per command sent: its ack, err, or
     * E_OUTCOME_UNKNOWN (dl: the deadline the cloud gave it, when an answer said; repeat: the edge
     * answered a later attempt with the outcome of an earlier one).
     */
    onAnswer: link.answers.onAnswer,
    /** cb({seq, d, image}) for every command, the twin's own resyncs included, just before it goes out. */
    onSent: link.onSent,
    /** Commands sent and not answered yet. */
    get inFlight() { return link.answers.inFlight; },
    /** Probe slot `slot` with `value` (load generator). Dropped and counted while down. */
    probe(slot, value) {
      if (!conn.isOpen) { stats.probesDropped += 1; return; }
      const d = sparseObject(); // a slot key on {} costs V8 room for that many elements (lib/core/sparse.js)
      d[slot] = value;
      write(link.sender.make('probe', { d }));
    },
    onProbe: link.onProbe,
    /** Close for good: no reconnect, every timer cleared. */
    close() {
      firstConnect.reject(new TransportError('E_CLOSED', 'transport closed'));
      return conn.close('twin done').then(() => link.answers.close());
    },
    stats() {
      const b = wire.bytes();
      return {
        ...stats, bytesIn: b.in, bytesOut: b.out, errorCodes: { ...stats.errorCodes }, seq: link.sender.seq,
        inFlight: link.answers.inFlight, url: urls.url, where: book.rows(),
      };
    },
    get src() { return link.sender.src; },
  };
}

module.exports = { DEFAULTS, TransportError, createTransport };
