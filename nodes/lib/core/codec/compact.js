'use strict';
/**
 * The compact encoding of envelopes (subprotocol `s7twin.v1+msgpack`): the same envelope as the
 * JSON one (lib/core/envelope.js), in one MessagePack array per binary WebSocket frame, with what
 * repeats on a connection said once:
 *
 *   [k, src, seq, ts, d, ref, dl, e, cid, ttl, tb, key, ask]     fields left out at the end; nil where absent
 *
 * k    the kind as a number (KINDS below)
 * src  the sender id as text in the first frame it sends or is answered in on this connection in
 *      this direction, then its number (the order of first appearance, up to MAX_SRCS senders;
 *      later ones stay text)
 * seq  for a sender seen before: the step from its previous seq (1 for the next frame); else whole
 * ts   time units since the previous frame's ts in this direction (the first frame: since the
 *      epoch). The unit is the connection's: 1 µs on the edge link, whose clock exchange needs it,
 *      100 µs on a twin's (the twin endpoint's times are only reported there: 2 bytes fewer a
 *      time field)
 * d    a flat array [key, value, key, value, …]: a tag's key is its numeric id from the I/O
 *      table (lib/core/tag-ids.js), a probe slot its number; a key the table lacks goes as text,
 *      so the receiver's checks answer for it as in JSON
 * ref  [src, seq]: src as above, seq as the step from the previous ref of that sender
 * dl   time units from ts (rounded down: a deadline never moves later)
 * e    [code, msg]
 * tb   the key of the sender's table numbering (lib/core/tag-ids.js): in the first frame of a
 *      direction, and again should the sender's table change. A sender names tags by number only
 *      once the other end has said the same key (until then, and for good when the two tables
 *      differ, as text): a twin given no table, or another one, still works, in more bytes. A
 *      receiver refuses a frame naming tags by the numbers of another numbering than its own
 *      (E_TABLE_MISMATCH): a command must never set another tag than the twin meant
 * key, ask  a command's idempotency key and its ask flag, as in the JSON envelope
 *
 * The state of a direction (senders met, the previous ts) lives in one encoder at the sender and
 * one decoder at the receiver; WebSocket keeps frames in order, so both follow the same steps. A
 * frame that does not decode is refused (E_DECODE) without touching the decoder's state; a frame
 * that decodes but names tags of another numbering is refused (E_TABLE_MISMATCH) after its steps
 * are taken, as its encoder took them.
 *
 * Browser-safe: the page gets MessagePack from @msgpack/msgpack's browser build.
 */
const msgpack = require('@msgpack/msgpack');
const { sparseObject } = require('../sparse');
const envelope = require('../envelope');
const { tagIds } = require('../tag-ids');

const KINDS = ['state', 'cmd', 'snap', 'ack', 'err', 'probe', 'probe-res', 'sync', 'sync-res'];
const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));
/** Kinds whose d is keyed by tag; probe kinds are keyed by slot, sync-res by name. */
const TAG_KINDS = new Set(['state', 'cmd', 'snap']);
const SLOT_KINDS = new Set(['probe', 'probe-res']);
/** Senders numbered per direction of a connection; past this many a sender goes as text. */
const MAX_SRCS = 64;
const SLOT_RE = /^\d{1,9}$/;
const FIELDS = 13;
/** The envelope's fields the compact frame carries: an envelope with any other goes as JSON text. */
const CARRIED = new Set(['v', 'k', 'src', 'seq', 'ts', 'd', 'ref', 'dl', 'e', 'cid', 'ttl', 'key', 'ask']);
/** Where a table: a table, or a function giving the current one (null while unknown). */
const tableNow = (table) => (typeof table === 'function' ? table() : table);

const fail = (msg) => new envelope.EnvelopeError('E_DECODE', `binary frame is not a compact envelope: ${msg}`);

/**
 * The numbered senders of one direction (the same steps at both ends). Numbers name only senders
 * of earlier frames: a sender new in a frame goes as text in it (src and ref alike), and is
 * numbered once the frame is through (src first, then ref's), so a frame either decodes whole or
 * changes nothing.
 */
function createSenderTable() {
  const list = []; // {i, src, seq, refSeq}
  const bySrc = new Map();
  return {
    get: (src) => bySrc.get(src),
    at: (i) => list[i],
    /** After a frame: its sender's seq, and its ref's seq (ref may be undefined). */
    commit(src, seq, ref) {
      let e = bySrc.get(src);
      if (!e && list.length < MAX_SRCS) {
        e = { i: list.length, src, seq: 0, refSeq: 0 };
        list.push(e);
        bySrc.set(src, e);
      }
      if (e) e.seq = seq;
      if (!ref) return;
      let r = bySrc.get(ref.src);
      if (!r && list.length < MAX_SRCS) {
        r = { i: list.length, src: ref.src, seq: 0, refSeq: 0 };
        list.push(r);
        bySrc.set(ref.src, r);
      }
      if (r) r.refSeq = ref.seq;
    },
  };
}

/**
 * d as a flat [key, value, …] array.
 * @param {object|null} ids the table's tag ids (null: tags as text)
 * @returns {Array}
 */
function encodeD(d, k, ids) {
  const arr = [];
  for (const key of Object.keys(d)) {
    let wire = key;
    if (TAG_KINDS.has(k) && ids) {
      const id = ids.idOf(key);
      if (id !== undefined) wire = id;
    } else if (SLOT_KINDS.has(k) && SLOT_RE.test(key)) {
      wire = Number(key);
    }
    arr.push(wire, d[key]);
  }
  return arr;
}

/**
 * A flat [key, value, …] array as d (keys checked; values left to the envelope's checks).
 * @param {object|null} ids this end's tag ids (null: no table yet)
 * @param {string|undefined} peerKey the key of the sender's numbering
 * @returns {{d: object, mismatch: boolean}} mismatch: a tag id of a numbering not this end's
 */
function decodeD(arr, k, ids, peerKey) {
  if (!Array.isArray(arr) || arr.length % 2) throw fail('d must be an array of key, value pairs');
  const d = SLOT_KINDS.has(k) ? sparseObject() : {}; // probe slots are number keys (lib/core/sparse.js)
  let mismatch = false;
  for (let i = 0; i < arr.length; i += 2) {
    const key = arr[i];
    let name;
    if (typeof key === 'string') name = key;
    else if (Number.isInteger(key) && key >= 0 && !TAG_KINDS.has(k)) name = String(key);
    else if (Number.isInteger(key) && key >= 0) {
      if (peerKey === undefined) throw fail('a tag id before the key of the table that numbers it');
      if (!ids || ids.key !== peerKey) mismatch = true;
      name = (!mismatch && ids.shortOf(key)) || `#${key}`;
    } else throw fail('a key of d must be a whole number or text');
    if (name === '__proto__') throw fail('a key of d must not be __proto__');
    d[name] = arr[i + 1];
  }
  return { d, mismatch };
}

/**
 * The encoder of one direction of a connection.
 * @param {object|(() => object|null)} table the I/O table the tag ids come from (`{tags: [{short}]}`),
 *   or a function giving it (null while not known: tags go as text)
 * @param {number} [unitUs] the time unit in µs (1 or 100)
 * @param {() => string|undefined} [heard] the key the other end said (its decoder's peerKey, the
 *   other direction of the same connection): tags go by number only when it is this table's
 * @returns {{encode(env: object): Uint8Array}}
 */
function createEncoder(table, unitUs = 1, heard = () => undefined) {
  const per = 1000 / unitUs; // units per ms
  const senders = createSenderTable();
  const packer = new msgpack.Encoder();
  let last = 0; // the previous frame's ts, in units
  let keySaid; // the key of the numbering this direction's ids are in

  return {
    encode(env) {
      const tb = tableNow(table);
      const ids = tb ? tagIds(tb) : null;
      const se = senders.get(env.src);
      const t = Math.round(env.ts * per);
      const agreed = ids && heard() === ids.key ? ids : null;
      const dd = env.d === undefined ? null : encodeD(env.d, env.k, agreed);
      const key = ids && ids.key !== keySaid ? ids.key : undefined;
      const a = [KIND_CODE.get(env.k), se ? se.i : env.src, se ? env.seq - se.seq : env.seq, t - last, dd];
      const more = [env.ref, env.dl, env.e, env.cid, env.ttl, key, env.key, env.ask];
      let n = more.length;
      while (n > 0 && more[n - 1] === undefined) n -= 1;
      for (let i = 0; i < n; i++) {
        const x = more[i];
        if (x === undefined) { a.push(null); continue; }
        if (i === 0) {
          const re = senders.get(x.src);
          a.push([re ? re.i : x.src, re ? x.seq - re.refSeq : x.seq]);
        } else if (i === 1) a.push(Math.floor(x * per) - t);
        else if (i === 2) a.push([x.code, x.msg]);
        else a.push(x);
      }
      const bytes = packer.encode(a); // throws before anything changed
      senders.commit(env.src, env.seq, env.ref);
      last = t;
      if (key !== undefined) keySaid = key;
      return bytes;
    },
  };
}

const present = (x) => x !== null && x !== undefined;

/** A sender field as it came: its id and seq, against the senders of earlier frames. */
function readSender(senders, wire, step, field, what) {
  if (typeof wire === 'string') {
    if (!envelope.SRC_RE.test(wire)) throw fail(`${what} is not a sender id`);
    return { src: wire, seq: step };
  }
  if (!Number.isInteger(wire) || wire < 0) throw fail(`${what} must be text or a sender number`);
  const e = senders.at(wire);
  if (!e) throw fail(`${what} number ${wire} was never sent`);
  return { src: e.src, seq: e[field] + step };
}

/**
 * The decoder of one direction of a connection.
 * @param {object|(() => object|null)} table the I/O table the tag ids come from, or a function
 *   giving it (null while not known: a tag by its id is refused)
 * @param {number} [unitUs] the time unit in µs (1 or 100)
 * @returns {{decode(bytes: Uint8Array): object}} the envelope (not yet validated)
 * @throws {EnvelopeError} E_DECODE; E_TABLE_MISMATCH (a tag by the id of another numbering)
 */
function createDecoder(table, unitUs = 1) {
  const per = 1000 / unitUs;
  const senders = createSenderTable();
  const unpacker = new msgpack.Decoder({ maxStrLength: 64 * 1024, maxArrayLength: 64 * 1024, maxMapLength: 4096, maxExtLength: 0 });
  let last = 0;
  let peerKey; // the key of the numbering the sender's tag ids are in

  return {
    /** The key of the numbering the other end said it has (undefined until it said one). */
    get peerKey() { return peerKey; },
    decode(bytes) {
      let a;
      try {
        a = unpacker.decode(bytes);
      } catch (err) {
        throw fail(err.message);
      }
      if (!Array.isArray(a) || a.length < 5 || a.length > FIELDS) throw fail('not an array of 5 to 13 fields');
      const k = KINDS[a[0]];
      if (!Number.isInteger(a[0]) || !k) throw fail(`unknown kind number ${JSON.stringify(a[0])}`);
      if (!Number.isSafeInteger(a[2]) || !Number.isSafeInteger(a[3])) throw fail('seq and ts must be whole numbers');
      if (present(a[10]) && !(typeof a[10] === 'string' && a[10].length >= 1 && a[10].length <= 64)) throw fail('tb must be 1 to 64 characters');
      const key = present(a[10]) ? a[10] : peerKey;
      const s = readSender(senders, a[1], a[2], 'seq', 'src');
      const t = last + a[3];
      const env = { v: envelope.VERSION, k, src: s.src, seq: s.seq, ts: t / per };
      let mismatch = false;
      if (present(a[4])) {
        const tb = tableNow(table);
        ({ d: env.d, mismatch } = decodeD(a[4], k, tb ? tagIds(tb) : null, key));
      }
      if (present(a[5])) {
        if (!Array.isArray(a[5]) || a[5].length !== 2 || !Number.isSafeInteger(a[5][1])) throw fail('ref must be [src, seq]');
        env.ref = readSender(senders, a[5][0], a[5][1], 'refSeq', 'ref src');
      }
      if (present(a[6])) {
        if (!Number.isSafeInteger(a[6])) throw fail('dl must be a whole number of time units');
        env.dl = (t + a[6]) / per;
      }
      if (present(a[7])) {
        if (!Array.isArray(a[7]) || a[7].length !== 2) throw fail('e must be [code, msg]');
        env.e = { code: a[7][0], msg: a[7][1] };
      }
      if (present(a[8])) env.cid = a[8];
      if (present(a[9])) env.ttl = a[9];
      if (present(a[11])) env.key = a[11];
      if (present(a[12])) env.ask = a[12];
      senders.commit(env.src, env.seq, env.ref);
      last = t;
      peerKey = key;
      if (mismatch) {
        const tb = tableNow(table);
        throw new envelope.EnvelopeError('E_TABLE_MISMATCH', `the frame's tag ids number another I/O table (${key}) than this end's `
          + `(${tb ? tagIds(tb).key : 'none yet'}): give both ends the same table, or use the JSON encoding`, { src: env.src, seq: env.seq });
      }
      return env;
    },
  };
}

/**
 * Whether the compact frame carries an envelope: its kind and every field (the edge's `table`
 * frame has a field of its own, and goes as JSON text, as would an envelope of a later version).
 */
const carries = (env) => KIND_CODE.has(env.k) && Object.keys(env).every((f) => CARRIED.has(f));

module.exports = { KINDS, MAX_SRCS, carries, createEncoder, createDecoder };
