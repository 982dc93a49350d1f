'use strict';
/**
 * The envelope: what crosses every WebSocket of the bridge (twin ↔ cloud ↔ edge).
 *
 *   {"v":1,"k":"cmd","src":"twin-7","seq":42,"ts":1732240000123,"d":{"se":1,"dmg":0}}
 *
 * v    schema version (1)
 * k    kind: "state" (PLC values that changed in one scan), "cmd" (values a twin wants written),
 *      "snap" (every streamed PLC value, sent on connect and reconnect), "ack" (a command was
 *      written to the PLC), "err" (something was refused), "probe"/"probe-res" (load-test slots)
 * src  sender id (1..64 chars of [A-Za-z0-9_.:-])
 * seq  per-sender sequence number, a positive safe integer, +1 per frame
 * ts   sender's wall clock, ms since the epoch (informational; never subtracted across hosts)
 * d    batch of values keyed by the I/O table's short names (state, cmd, snap): numbers, booleans,
 *      and text for STRING tags; for probe kinds keyed by slot number as a string
 * ref  (ack, err) the {src, seq} of the frame being answered
 * e    (err) {code, msg}
 * cid  optional correlation id a sender may attach; answers echo it
 * ttl  (cmd, probe) optional lifetime in ms a twin asks for; the cloud bounds it (see dl)
 * dl   (cmd, probe, relayed by the cloud) deadline on the CLOUD's clock (ms since the epoch,
 *      lib/core/clock.js): the cloud sets it from the frame's arrival plus its lifetime; the edge
 *      never writes the frame after it, judged with the link's clock-offset estimate. A dl a
 *      twin sends is overwritten. Answers (ack, err, probe-res) echo the request's dl.
 * key  (cmd) optional idempotency key the twin chooses (1..64 visible ASCII characters), unique per
 *      plant for as long as it may send the command again: the edge writes a key at most once and
 *      answers every later command with that key with the first outcome. The edge's answers to
 *      a keyed command echo the key (an answer the cloud made itself does not).
 * ask  (cmd with a key) true: never write this; only answer with the outcome of the key (a key the
 *      edge has not seen is closed as E_EXPIRED, so a late copy of it is never written either)
 * repeat (ack, err) true: the answer of an earlier command with the same key; nothing was written now
 *
 * Link control between the cloud's edge endpoint and the edge (never passed to the flows):
 * sync     the edge's heartbeat; its ts is the send time t1 on the edge's clock
 * sync-res the cloud's answer: ref = the sync's {src, seq}, d = {t1, t2} (t2: arrival on the
 *          cloud's clock), ts = t3 (the answer's send time); lib/core/clock.js turns it into an offset
 * table    the edge's first frame on each connection: t = {fingerprint, definition} of the plant's
 *          I/O table (lib/core/io-table.js), so the cloud checks the plant's frames against it (or
 *          refuses an edge whose table is not the one configured for the plant)
 * backfill (edge → cloud only) a state the edge read while its link was down, kept in its journal
 *          (lib/link/journal.js) and forwarded after the reconnect (lib/link/forwarder.js): src the
 *          journal's own sender id (`journal-<id>`), seq the record's number in the journal (it
 *          continues across edge restarts), ts the edge's timestamp of the state (its clock), d its
 *          values as in a state, ct the same time on the CLOUD's clock (ts plus the link's
 *          clock-offset estimate; absent when the edge had none), of the {src, seq} of the state
 *          frame it was when the edge had already sent it live on a link that then died (the cloud
 *          may have it). The cloud files it into the plant history under ct and never passes it to
 *          flows or twins (lib/link/backfill-intake.js)
 * backfill-res the cloud's answer: ref = {src, seq} of the newest backfill frame of that journal it
 *          has dealt with; every earlier one of the same connection is dealt with too (filed, found
 *          filed already, or refused with an err naming it). The edge drops its records up to there
 *
 * A high-frequency signal (edge → cloud, passed to the flow like a state):
 * samples  b = a block of consecutive samples of one signal (lib/stream/block.js writes and
 *          reads it): {sig, i, t, hz, n, x}. sig the signal's name (as src); i the index of its
 *          first sample since the signal started; t that sample's time on the PLC's clock (ms
 *          since the epoch); hz samples a second (sample i+j was taken at t + j·1000/hz); n how
 *          many; x the n samples as DINTs (Int32, big-endian as the PLC holds them) in base64.
 *          The same JSON text on every encoding and transport (the compact codec carries it as
 *          text too), so a stream costs the same bytes whatever carries it.
 *
 * Pure functions: parse/validate, build, and a receiver-side duplicate/gap tracker.
 */
const { codedError } = require('./errors');

const VERSION = 1;
const KINDS = new Set(['state', 'cmd', 'snap', 'ack', 'err', 'probe', 'probe-res', 'sync', 'sync-res', 'table', 'backfill', 'backfill-res', 'samples']);
/** Kinds whose d holds the plant's values (text allowed for STRING tags). */
const VALUE_KINDS = new Set(['state', 'cmd', 'snap', 'backfill']);
/** Kinds that ask the PLC for a write and get exactly one answer (ack/probe-res or err). */
const REQUEST_KINDS = new Set(['cmd', 'probe']);
/** Kinds that answer a request (they carry its ref). */
const ANSWER_KINDS = new Set(['ack', 'err', 'probe-res']);
const MAX_FRAME_BYTES = 64 * 1024; // default size limit; a whole-plant snapshot is ~300 bytes
/** A request's lifetime when it asks for none (ttl), ms: the endpoints' default, the twins' too. */
const DEFAULT_LIFETIME_MS = 1000;
const SRC_RE = /^[A-Za-z0-9_.:-]{1,64}$/;
// Visible ASCII: a UUID, a ULID, base64 or a twin's own scheme fit; no space or control character
// reaches a log line or the edge's key file.
const KEY_RE = /^[\x21-\x7e]{1,64}$/;
/** The longest text a value may be: an S7 STRING holds at most 254 characters (the table checks each tag's own length). */
const MAX_TEXT = 254;
/** The most samples one `samples` frame carries (its frame must also fit the receiver's size limit). */
const MAX_SAMPLES = 1 << 20;
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Error with a stable `code` (and the offending frame's ref where it could be read). */
const Coded = codedError('EnvelopeError');
class EnvelopeError extends Coded {
  constructor(code, message, ref) {
    super(code, message, ref ? { ref } : undefined);
  }
}

/**
 * Parse and validate one frame.
 * @param {string|Buffer|object} raw text of a frame, or an already-parsed object
 * @param {{maxBytes?: number}} [opts]
 * @returns {object} the envelope
 * @throws {EnvelopeError} E_TOO_LARGE, E_JSON, E_SCHEMA, E_VERSION
 */
function parse(raw, opts = {}) {
  const maxBytes = opts.maxBytes || MAX_FRAME_BYTES;
  let env = raw;
  if (typeof raw === 'string' || Buffer.isBuffer(raw)) {
    const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
    if (size > maxBytes) throw new EnvelopeError('E_TOO_LARGE', `frame of ${size} bytes exceeds the ${maxBytes}-byte limit`);
    try {
      env = JSON.parse(raw);
    } catch (err) {
      throw new EnvelopeError('E_JSON', `frame is not valid JSON: ${err.message}`);
    }
  }
  validate(env);
  return env;
}

/**
 * Validate an envelope object in place.
 * @throws {EnvelopeError}
 */
function validate(env) {
  if (env === null || typeof env !== 'object' || Array.isArray(env)) {
    throw new EnvelopeError('E_SCHEMA', 'frame must be a JSON object');
  }
  const ref = typeof env.src === 'string' && Number.isSafeInteger(env.seq) ? { src: env.src, seq: env.seq } : undefined;
  if (env.v !== VERSION) throw new EnvelopeError('E_VERSION', `unsupported envelope version ${JSON.stringify(env.v)} (expected ${VERSION})`, ref);
  if (!KINDS.has(env.k)) throw new EnvelopeError('E_SCHEMA', `unknown kind ${JSON.stringify(env.k)}`, ref);
  if (typeof env.src !== 'string' || !SRC_RE.test(env.src)) throw new EnvelopeError('E_SCHEMA', 'src must be 1..64 characters of [A-Za-z0-9_.:-]', ref);
  if (!Number.isSafeInteger(env.seq) || env.seq < 1) throw new EnvelopeError('E_SCHEMA', 'seq must be a positive integer', ref);
  if (typeof env.ts !== 'number' || !Number.isFinite(env.ts)) throw new EnvelopeError('E_SCHEMA', 'ts must be a number (ms since the epoch)', ref);
  if (env.d !== undefined && (env.d === null || typeof env.d !== 'object' || Array.isArray(env.d))) {
    throw new EnvelopeError('E_SCHEMA', 'd must be an object of values keyed by tag short name', ref);
  }
  if (VALUE_KINDS.has(env.k) || env.k === 'probe' || env.k === 'probe-res' || env.k === 'sync-res') {
    if (!env.d) throw new EnvelopeError('E_SCHEMA', `a "${env.k}" frame needs d`, ref);
    const text = VALUE_KINDS.has(env.k); // probes carry numbers only
    for (const [key, val] of Object.entries(env.d)) {
      if (typeof val === 'string' && text && val.length <= MAX_TEXT) continue;
      if (typeof val !== 'number' && typeof val !== 'boolean') {
        throw new EnvelopeError('E_SCHEMA', `value of "${key}" must be a number, a boolean${text ? ` or text of at most ${MAX_TEXT} characters` : ''}`, ref);
      }
    }
  }
  if (env.ttl !== undefined && (!Number.isSafeInteger(env.ttl) || env.ttl < 1)) {
    throw new EnvelopeError('E_SCHEMA', 'ttl must be a positive integer (ms)', ref);
  }
  if (env.dl !== undefined && (typeof env.dl !== 'number' || !Number.isFinite(env.dl))) {
    throw new EnvelopeError('E_SCHEMA', 'dl must be a number (ms since the epoch)', ref);
  }
  validateKey(env, ref);
  if (env.k === 'sync-res' && (!env.ref || !env.d || !Number.isFinite(env.d.t1) || !Number.isFinite(env.d.t2))) {
    throw new EnvelopeError('E_SCHEMA', 'a "sync-res" frame needs ref and d {t1, t2}', ref);
  }
  validateBackfill(env, ref);
  if ((env.k === 'ack' || env.k === 'err' || env.k === 'sync-res' || env.k === 'backfill-res') && env.ref !== undefined) {
    if (typeof env.ref !== 'object' || env.ref === null || typeof env.ref.src !== 'string' || !Number.isSafeInteger(env.ref.seq)) {
      throw new EnvelopeError('E_SCHEMA', 'ref must be {src, seq}', ref);
    }
  }
  if (env.k === 'err' && (typeof env.e !== 'object' || env.e === null || typeof env.e.code !== 'string')) {
    throw new EnvelopeError('E_SCHEMA', 'an "err" frame needs e.code', ref);
  }
  if (env.k === 'samples') validateSamples(env.b, ref);
  if (env.k === 'table' && (!env.t || typeof env.t !== 'object' || typeof env.t.fingerprint !== 'string'
    || (env.t.definition !== undefined && (env.t.definition === null || typeof env.t.definition !== 'object')))) {
    throw new EnvelopeError('E_SCHEMA', 'a "table" frame needs t {fingerprint, definition?}', ref);
  }
  return env;
}

/** A backfill's own fields (ct, of) and its answer's ref. */
function validateBackfill(env, ref) {
  if (env.ct !== undefined && (env.k !== 'backfill' || typeof env.ct !== 'number' || !Number.isFinite(env.ct))) {
    throw new EnvelopeError('E_SCHEMA', 'ct is a number (ms since the epoch, the cloud\'s clock) on a backfill, or left out', ref);
  }
  if (env.of !== undefined && (env.k !== 'backfill' || !env.of || typeof env.of !== 'object' || typeof env.of.src !== 'string'
    || !SRC_RE.test(env.of.src) || !Number.isSafeInteger(env.of.seq) || env.of.seq < 1)) {
    throw new EnvelopeError('E_SCHEMA', 'of is the {src, seq} of a state frame, on a backfill, or left out', ref);
  }
  if (env.k === 'backfill-res' && !env.ref) throw new EnvelopeError('E_SCHEMA', 'a "backfill-res" frame needs ref', ref);
}

/**
 * A samples frame's block: its fields, and x the length n DINTs take in base64 (its characters
 * checked, not decoded: the receiver decodes it when it reads the samples).
 */
function validateSamples(b, ref) {
  const bad = (what) => new EnvelopeError('E_SCHEMA', `a "samples" frame needs b.${what}`, ref);
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw bad('{sig, i, t, hz, n, x}');
  if (typeof b.sig !== 'string' || !SRC_RE.test(b.sig)) throw bad('sig: 1..64 characters of [A-Za-z0-9_.:-]');
  if (!Number.isSafeInteger(b.i) || b.i < 0) throw bad('i: the index of its first sample, a whole number >= 0');
  if (typeof b.t !== 'number' || !Number.isFinite(b.t)) throw bad('t: the first sample\'s time (ms since the epoch)');
  if (typeof b.hz !== 'number' || !(b.hz > 0) || !Number.isFinite(b.hz)) throw bad('hz: samples a second, > 0');
  if (!Number.isInteger(b.n) || b.n < 1 || b.n > MAX_SAMPLES) throw bad(`n: 1..${MAX_SAMPLES} samples`);
  if (typeof b.x !== 'string' || b.x.length !== 4 * Math.ceil((4 * b.n) / 3) || !BASE64_RE.test(b.x)) throw bad('x: n DINTs in base64');
}

/** The idempotency fields: key (cmd and its answers), ask (cmd), repeat (answers). */
function validateKey(env, ref) {
  if (env.key !== undefined) {
    if (env.k !== 'cmd' && env.k !== 'ack' && env.k !== 'err') throw new EnvelopeError('E_SCHEMA', `a "${env.k}" frame carries no key`, ref);
    if (typeof env.key !== 'string' || !KEY_RE.test(env.key)) throw new EnvelopeError('E_SCHEMA', 'key must be 1..64 visible ASCII characters', ref);
  }
  if (env.ask !== undefined && (env.k !== 'cmd' || env.ask !== true || env.key === undefined)) {
    throw new EnvelopeError('E_SCHEMA', 'ask is true on a cmd with a key, or left out', ref);
  }
  if (env.repeat !== undefined && ((env.k !== 'ack' && env.k !== 'err') || env.repeat !== true)) {
    throw new EnvelopeError('E_SCHEMA', 'repeat is true on an ack or err, or left out', ref);
  }
}

/**
 * A command's values in one canonical text (keys sorted, a BOOL's true/false as 1/0), to tell
 * whether two commands with the same idempotency key ask for the same thing.
 * @param {object} d
 * @returns {string}
 */
function canonicalValues(d) {
  const keys = Object.keys(d || {}).sort();
  return JSON.stringify(keys.map((k) => [k, typeof d[k] === 'boolean' ? Number(d[k]) : d[k]]));
}

/**
 * A sender: stamps src, a sequence number and a timestamp on each frame it makes.
 * @param {string} src sender id
 * @param {{seq?: number, now?: () => number}} [opts] seq = last number used (continues after it)
 */
function createSender(src, opts = {}) {
  if (!SRC_RE.test(src)) throw new EnvelopeError('E_SCHEMA', `invalid sender id "${src}"`);
  let seq = opts.seq || 0;
  const now = opts.now || Date.now;
  return {
    src,
    get seq() { return seq; },
    /**
     * Build one envelope.
     * @param {string} k kind
     * @param {object} [fields] d, ref, e, cid, ttl, dl, key, ask, repeat, t (a table frame's table),
     *   b (a samples frame's block) (a backfill frame is made by lib/link/forwarder.js: its seq is the
     *   journal's, not a sender's)
     */
    make(k, fields = {}) {
      seq += 1;
      const env = { v: VERSION, k, src, seq, ts: now() };
      if (fields.d !== undefined) env.d = fields.d;
      if (fields.ref !== undefined) env.ref = fields.ref;
      if (fields.e !== undefined) env.e = fields.e;
      if (fields.cid !== undefined) env.cid = fields.cid;
      if (fields.ttl !== undefined) env.ttl = fields.ttl;
      if (fields.dl !== undefined) env.dl = fields.dl;
      if (fields.key !== undefined) env.key = fields.key;
      if (fields.ask !== undefined) env.ask = fields.ask;
      if (fields.repeat !== undefined) env.repeat = fields.repeat;
      if (fields.t !== undefined) env.t = fields.t;
      if (fields.b !== undefined) env.b = fields.b;
      return env;
    },
    /**
     * An error answer to `about` (an envelope or an EnvelopeError's ref).
     * @param {number} [dl] the answered request's deadline (answers echo it)
     */
    error(code, msg, ref, cid, dl) {
      const fields = { e: { code, msg } };
      if (ref) fields.ref = ref;
      if (cid !== undefined) fields.cid = cid;
      if (dl !== undefined) fields.dl = dl;
      return this.make('err', fields);
    },
  };
}

/**
 * Receiver-side bookkeeping per sender: drops duplicates, counts gaps.
 * A sender whose sequence restarts at 1 (a restarted process) is taken as a new session.
 * Keeps at most `maxSenders` senders (least recently seen forgotten first).
 */
function createTracker(opts = {}) {
  const maxSenders = opts.maxSenders || 10000;
  const last = new Map(); // src -> last seq accepted
  const stats = { accepted: 0, duplicates: 0, gaps: 0, missing: 0, restarts: 0 };
  return {
    stats,
    /**
     * @param {{src:string, seq:number}} env
     * @returns {'accept'|'duplicate'} and updates gap counters
     */
    check(env) {
      const prev = last.get(env.src);
      if (prev !== undefined) {
        if (env.seq === 1 && prev > 1) {
          stats.restarts += 1;
        } else if (env.seq <= prev) {
          stats.duplicates += 1;
          return 'duplicate';
        } else if (env.seq > prev + 1) {
          stats.gaps += 1;
          stats.missing += env.seq - prev - 1;
        }
        last.delete(env.src); // re-insert to keep Map order = recency
      } else if (last.size >= maxSenders) {
        last.delete(last.keys().next().value);
      }
      last.set(env.src, env.seq);
      stats.accepted += 1;
      return 'accept';
    },
    forget(src) { last.delete(src); },
    /** Senders remembered. */
    get size() { return last.size; },
    /** Forget every sender (a new connection: nothing of the old one is replayed on it). */
    reset() { last.clear(); },
    lastSeq(src) { return last.get(src); },
  };
}

/** Serialise an envelope (compact JSON). */
function stringify(env) {
  return JSON.stringify(env);
}

module.exports = {
  VERSION, SRC_RE, KINDS, VALUE_KINDS, REQUEST_KINDS, ANSWER_KINDS, MAX_FRAME_BYTES, DEFAULT_LIFETIME_MS, KEY_RE, MAX_SAMPLES,
  EnvelopeError, parse, validate, createSender, createTracker, stringify, canonicalValues,
};
