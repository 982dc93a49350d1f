'use strict';
/**
 * The REST twin endpoint: the HTTP polling path that the related study compares with MQTT over
 * TCP and over WebSocket (shared/reference/http-mqtt-mqttws-digital-twin-study.txt), beside the
 * WebSocket–S7 path and on the same edge link. No Node-RED here: the s7twin-rest node wires it to
 * RED.httpNode and to the edge's link endpoint.
 *
 *   POST <path>/cmd           body: a `cmd` envelope, as a WebSocket twin sends it
 *                             → the edge's answer: 200 with the `ack`, or the `err` envelope with
 *                               an HTTP status for its code (errorStatus below)
 *   GET  <path>/state         → 200 [snap]: the latest plant state; its seq is the state version
 *   GET  <path>/state?since=N → 200 [state, state, …]: every state frame after version N, as
 *                               the edge sent them (so no change is lost between two polls),
 *                               204 when nothing is new, or [snap] when N is too old or unknown
 *                               (a restarted cloud)
 *
 * Tokens as the twin endpoint takes them (`Authorization: Bearer`, or `?token=`): a twin token
 * may do both, a viewer token only GET (a POST is answered 403 E_READ_ONLY and goes nowhere).
 * Every command gets exactly one answer: the edge's, E_EDGE_DOWN when no edge is connected,
 * E_DUPLICATE for a (src, seq) already taken by a command without a key, or E_OUTCOME_UNKNOWN
 * (504) when no answer came by its deadline plus the time an answer may still be on its way (the
 * edge link answers that itself first; this only bounds the wait). Bad input gets a 4xx with an
 * `err` envelope and a counter, never a relay: a command is checked against the plant's I/O table
 * first (its tags, writability, types, ranges).
 *
 * An `Idempotency-Key` request header (the HTTP convention for a request that may be sent again)
 * is the command's `key`: the edge writes a key at most once and answers a command sent again
 * with it with the first outcome (`repeat: true`). A client that got E_OUTCOME_UNKNOWN (or no
 * answer at all) sends the very same request again, body and key: with a key, the (src, seq) of
 * the body are not judged, the key is the command's identity.
 *
 * Each POST is relayed under the endpoint's own sender id (`<src>:c`) and a number of its own, and
 * its answer goes back with the client's `ref`: two POSTs of one body (a resend while the first is
 * still on its way) are two requests downstream, and the edge's key store answers the second with
 * the first's outcome instead of writing it again.
 *
 * With `audit` (the command log's recorder, lib/history/command-audit.js), every POST cmd is
 * recorded as it arrives (who: the token's fingerprint and role; from: the client's address) and
 * its one answer as its outcome (with the client's ref).
 */
const envelope = require('../core/envelope');
const clock = require('../core/clock');
const LINK = require('../link/endpoint').DEFAULTS;
const { createRoleChecker, requestToken, tokenId } = require('../access/auth');
const { sendJson, readBody } = require('./http');
const { createStateHistory } = require('./rest-history');
const { createPendingCommands } = require('./rest-pending');

const DEFAULTS = {
  // Past a command's deadline, how long its answer may still be on its way: the edge link's
  // grace (the edge endpoint answers E_OUTCOME_UNKNOWN itself by then), a fleet's hop to the
  // instance holding the edge and back, and the flow between them.
  answerSlackMs: LINK.graceMs + 250 + 1000,
  maxBodyBytes: 64 * 1024, // as the WebSocket endpoints' frame limit
  historySize: 512, // state frames kept for `since` (at 100 frames/s, 5 s of polls missed)
  maxPending: 1000, // commands waiting for the edge's answer; more get 503 E_BUSY
  // A command's deadline as the twin endpoint sets it: its arrival plus the `ttl` it asks for
  // (at most maxLifetimeMs, else E_RANGE) or lifetimeMs; a `dl` the client sent means nothing.
  lifetimeMs: LINK.lifetimeMs,
  maxLifetimeMs: LINK.maxLifetimeMs,
};

/** HTTP status for an err envelope's code. */
const STATUS = {
  E_UNAUTHORIZED: 401, E_READ_ONLY: 403, E_TOO_LARGE: 413, E_DUPLICATE: 409, E_METHOD: 405, E_NOT_FOUND: 404,
  E_EDGE_DOWN: 503, E_PLC_DOWN: 503, E_BUSY: 503, E_NO_STATE: 503, E_CLOSED: 503, E_TIMEOUT: 504,
  E_EXPIRED: 504, E_OUTCOME_UNKNOWN: 504, E_RATE_LIMIT: 429, E_KEY_REUSED: 422, E_KEY_STORE: 503,
};
const CLIENT_ERRORS = new Set(['E_JSON', 'E_SCHEMA', 'E_VERSION', 'E_KIND', 'E_UNKNOWN_TAG', 'E_NOT_WRITABLE', 'E_TYPE', 'E_RANGE', 'E_EMPTY']);

/**
 * The command's key from the Idempotency-Key header (set on the envelope), or why it is refused.
 * @param {object} env a valid cmd envelope
 * @param {string|string[]|undefined} header
 * @returns {null|[string, string]} [code, message] of a refusal
 */
function keyOf(env, header) {
  if (header === undefined) return null;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!envelope.KEY_RE.test(key)) return ['E_SCHEMA', 'Idempotency-Key must be 1..64 visible ASCII characters'];
  if (env.key !== undefined && env.key !== key) return ['E_SCHEMA', 'the body\'s key and the Idempotency-Key header differ'];
  env.key = key;
  return null;
}

/**
 * @param {string} code
 * @returns {number}
 */
function errorStatus(code) {
  if (STATUS[code]) return STATUS[code];
  return CLIENT_ERRORS.has(code) ? 400 : 502;
}

/**
 * @param {object} opts
 * @param {string[]} opts.tokens twin tokens (may command)
 * @param {string[]} [opts.viewerTokens] viewer tokens (may only read the state)
 * @param {string} opts.src sender id of the frames the endpoint makes (errors, state versions)
 * @param {(env: object) => number} opts.relay hands a command to the edge link; returns the
 *   peers it reached (0: no edge connected)
 * @param {object} [opts.state] the latest plant state known when it starts
 * @param {() => number} [opts.now] wall clock (ts of the frames it makes)
 * @param {() => object} [opts.table] the plant's I/O table now (default: the demo plant's): a
 *   command's values are checked against it
 * @param {object} [opts.audit] the command log's recorder (lib/history/command-audit.js)
 * @param {string} [opts.plant] the plant its commands are for (the command log's `plant`)
 */
function createRestEndpoint(opts) {
  const o = { ...DEFAULTS, ...opts };
  const roleOf = createRoleChecker({ tokens: o.tokens || [], viewerTokens: o.viewerTokens || [] });
  const sender = envelope.createSender(o.src, { now: o.now });
  const tracker = envelope.createTracker();
  const relaySrc = `${o.src.slice(0, 62)}:c`; // the sender id of the commands it relays
  let relaySeq = 0;
  let closed = false;
  const counters = {
    requests: 0, polls: 0, notModified: 0, snapshots: 0, stateFrames: 0, cmds: 0, acks: 0, errs: 0,
    timeouts: 0, unauthorized: 0, readOnly: 0, badRequests: 0, duplicates: 0, edgeDown: 0, tooLarge: 0,
    pending: 0, bytesIn: 0, bytesOut: 0, keyed: 0, repeats: 0,
  };
  const states = createStateHistory({ sender, historySize: o.historySize, state: o.state, now: o.now, counters });

  function answer(res, status, body) {
    counters.bytesOut += sendJson(res, status, body);
  }

  function refuse(res, code, msg, ref) {
    counters.errs += 1;
    const env = sender.error(code, msg, ref);
    if (o.audit && ref) o.audit.answered(o.plant, env);
    answer(res, errorStatus(code), env);
  }

  const pending = createPendingCommands({
    counters,
    refuse,
    answer(res, env) {
      if (env.repeat) counters.repeats += 1;
      if (o.audit) o.audit.answered(o.plant, env);
      if (env.k === 'ack') { counters.acks += 1; answer(res, 200, env); return; }
      counters.errs += 1;
      // No edge for the plant anywhere: the answer came from the edge endpoint (or, in a fleet, the
      // instance the command was forwarded to) rather than from relay() returning 0.
      if (env.e && env.e.code === 'E_EDGE_DOWN') counters.edgeDown += 1;
      answer(res, errorStatus(env.e && env.e.code), env);
    },
  });

  function getState(res, query) {
    counters.polls += 1;
    const raw = query.get('since');
    const got = states.poll(raw === null ? NaN : Number(raw));
    if (!got) { refuse(res, 'E_NO_STATE', 'no plant state yet: no edge has reported since this endpoint started'); return; }
    if (got.status === 204) { res.writeHead(204, { 'Cache-Control': 'no-store' }); res.end(); return; }
    answer(res, 200, got.body);
  }

  /** Why a command is refused before it is relayed (counted), or null. Stamps its deadline and key. */
  function cmdRefusal(env, arrived, headerKey) {
    if (env.k !== 'cmd') { counters.badRequests += 1; return ['E_KIND', `POST cmd takes a "cmd" envelope, got "${env.k}"`]; }
    const no = keyOf(env, headerKey);
    if (no) { counters.badRequests += 1; return no; }
    // A command without a key is one (src, seq); one with a key may come again (the key decides),
    // and still takes its (src, seq) from commands without one.
    if (tracker.check(env) === 'duplicate' && env.key === undefined) {
      counters.duplicates += 1;
      return ['E_DUPLICATE', `command ${env.src}#${env.seq} was already received (send it again with an Idempotency-Key to learn its outcome)`];
    }
    if (env.ttl !== undefined && env.ttl > o.maxLifetimeMs) {
      counters.badRequests += 1;
      return ['E_RANGE', `ttl ${env.ttl} ms is more than the ${o.maxLifetimeMs} ms this endpoint allows`];
    }
    if (o.table) {
      try {
        for (const [k, v] of Object.entries(env.d)) o.table().checkWrite(k, v);
      } catch (err) {
        counters.badRequests += 1;
        return [err.code, err.message];
      }
    }
    env.dl = arrived + (env.ttl || o.lifetimeMs);
    if (closed) return ['E_CLOSED', 'the endpoint is closing'];
    if (pending.size >= o.maxPending) return ['E_BUSY', `${pending.size} commands are waiting for the edge`];
    return null;
  }

  const whoOf = (req, role) => ({ token: tokenId(requestToken(req)), role });
  const fromOf = (req) => `${req.socket.remoteAddress}:${req.socket.remotePort}`;

  async function postCmd(req, res) {
    let env;
    let arrived;
    try {
      const text = await readBody(req, o.maxBodyBytes);
      arrived = clock.now(); // the whole command is here (the twin endpoint stamps a frame's arrival)
      counters.bytesIn += Buffer.byteLength(text);
      env = envelope.parse(text, { maxBytes: o.maxBodyBytes });
    } catch (err) {
      if (err.code === 'E_TOO_LARGE') counters.tooLarge += 1; else counters.badRequests += 1;
      refuse(res, err.code || 'E_JSON', err.message, err.ref);
      return;
    }
    const client = { src: env.src, seq: env.seq };
    const no = cmdRefusal(env, arrived, req.headers['idempotency-key']);
    if (o.audit) o.audit.arrived({ via: 'rest', plant: o.plant, who: whoOf(req, 'twin'), from: fromOf(req), at: arrived, env });
    if (no) { refuse(res, no[0], no[1], client); return; }
    counters.cmds += 1;
    if (env.key !== undefined) counters.keyed += 1;
    relaySeq += 1;
    const out = { ...env, src: relaySrc, seq: relaySeq };
    const ref = { src: relaySrc, seq: relaySeq };
    pending.hold(ref, res, env.dl - clock.now() + o.answerSlackMs, client);
    let reached;
    try { reached = o.relay(out); } catch { reached = 0; }
    if (reached > 0 || !pending.has(ref)) return; // answered already (a synchronous answer) or on its way
    pending.drop(ref);
    counters.edgeDown += 1;
    refuse(res, 'E_EDGE_DOWN', 'no edge is connected to the cloud: the command was not delivered', client);
  }

  /**
   * Handle one request (req.url relative to the endpoint's path).
   * @param {import('http').IncomingMessage} req
   * @param {import('http').ServerResponse} res
   */
  function handle(req, res) {
    counters.requests += 1;
    let url;
    try { url = new URL(req.url, 'http://localhost'); } catch { refuse(res, 'E_NOT_FOUND', 'bad URL'); return; }
    const route = url.pathname.replace(/\/+$/, '');
    if (route !== '/state' && route !== '/cmd') { refuse(res, 'E_NOT_FOUND', `no ${url.pathname} here: GET state, POST cmd`); return; }
    const role = roleOf(req);
    if (!role) { counters.unauthorized += 1; refuse(res, 'E_UNAUTHORIZED', 'missing or wrong token (Authorization: Bearer, or ?token=)'); return; }
    if (route === '/state') {
      if (req.method !== 'GET') { refuse(res, 'E_METHOD', 'state takes GET'); return; }
      getState(res, url.searchParams);
      return;
    }
    if (req.method !== 'POST') { refuse(res, 'E_METHOD', 'cmd takes POST'); return; }
    if (role !== 'twin') {
      counters.readOnly += 1;
      // What a viewer asked for is not read: the log says who tried, from where and when.
      if (o.audit) {
        const env = { k: 'cmd', src: 'rest-viewer', seq: 0 };
        o.audit.arrived({ via: 'rest', plant: o.plant, who: whoOf(req, role), from: fromOf(req), at: clock.now(), env });
        o.audit.refused(o.plant, { src: env.src, seq: env.seq }, 'E_READ_ONLY', 'a viewer token may watch, not command');
      }
      req.resume();
      refuse(res, 'E_READ_ONLY', 'this token may watch, not command: the command was not relayed');
      return;
    }
    postCmd(req, res);
  }

  /**
   * An envelope from the edge: states and snaps update the plant state and its history,
   * answers complete the command they answer (answers for WebSocket twins are not ours).
   * @param {object} env
   */
  function fromEdge(env) {
    if (!env || typeof env !== 'object') return;
    if ((env.k === 'state' || env.k === 'snap') && env.d) { states.add(env); return; }
    if ((env.k === 'ack' || env.k === 'err') && env.ref) pending.answer(env);
  }

  /** Stop: every command still waiting is answered 503 E_CLOSED. */
  function close() {
    closed = true;
    pending.close();
  }

  return { handle, fromEdge, close, counters, latestState: states.latest, get version() { return states.version; } };
}

module.exports = { DEFAULTS, createRestEndpoint, errorStatus };
