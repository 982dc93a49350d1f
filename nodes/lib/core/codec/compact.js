'use strict';
/**
 * The compact encoding of envelopes (subprotocol `s7twin.v1+msgpack`): the same envelope as the
 * JSON one (lib/core/envelope.js), in one MessagePack array per binary WebSocket frame, with what
 * repeats on a connection said once:
 *
 *   [k, src, seq, ts, d, ref, dl, e, cid, ttl]     fields left out at the end; nil where absent
 *
 * k    the kind as a number (KINDS below)
 * src  the sender id as text the first time it crosses this connection in this direction, then
 *      its number (the order of first appearance, up to MAX_SRCS senders; later ones stay text)
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
 *
 * The state of a direction (senders met, the previous ts) lives in one encoder at the sender and
 * one decoder at the receiver; WebSocket keeps frames in order, so both follow the same steps. A
 * frame that does not decode is refused (E_DECODE) without touching the decoder's state.
 *
 * Browser-safe: the page gets MessagePack from @msgpack/msgpack's browser build.
 */
const msgpack = require('@msgpack/msgpack');
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
const FIELDS = 10;

const fail = (msg) => new envelope.EnvelopeError('E_DECODE', `binary frame is not a compact envelope: ${msg}`);

/**
 * The numbered senders of one direction (the same steps at both ends). `stage()` gives a view
 * whose additions and changes take effect only on its commit(): a decoder checks a whole frame
 * before its state moves.
 */
function createSenderTable() {
  const list = []; // {i, src, seq, refSeq}
  const bySrc = new Map();
  return {
    stage() {
      const added = [];
      const sets = [];
      const view = {
        find: (src) => bySrc.get(src) || added.find((e) => e.src === src),
        at: (i) => list[i] || added[i - list.length],
        add(src) {
          if (list.length + added.length >= MAX_SRCS) return undefined;
          const e = { i: list.length + added.length, src, seq: 0, refSeq: 0 };
          added.push(e);
          return e;
        },
        /** Set e[field] = value (at once for an entry this frame adds). */
        set(e, field, value) { if (added.includes(e)) e[field] = value; else sets.push([e, field, value]); },
        commit() {
          for (const e of added) { list.push(e); bySrc.set(e.src, e); }
          for (const [e, f, v] of sets) e[f] = v;
        },
      };
      return view;
    },
  };
}

/** d as a flat [key, value, …] array. */
function encodeD(d, k, ids) {
  const out = [];
  for (const key of Object.keys(d)) {
    let wire = key;
    if (TAG_KINDS.has(k)) {
      const id = ids.idOf(key);
      if (id !== undefined) wire = id;
    } else if (SLOT_KINDS.has(k) && SLOT_RE.test(key)) {
      wire = Number(key);
    }
    out.push(wire, d[key]);
  }
  return out;
}

/** A flat [key, value, …] array as d (keys checked; values left to the envelope's checks). */
function decodeD(arr, k, ids) {
  if (!Array.isArray(arr) || arr.length % 2) throw fail('d must be an array of key, value pairs');
  const d = {};
  for (let i = 0; i < arr.length; i += 2) {
    const key = arr[i];
    let name;
    if (typeof key === 'string') name = key;
    else if (Number.isInteger(key) && key >= 0) name = TAG_KINDS.has(k) ? (ids.shortOf(key) ?? `#${key}`) : String(key);
    else throw fail('a key of d must be a whole number or text');
    if (name === '__proto__') throw fail('a key of d must not be __proto__');
    d[name] = arr[i + 1];
  }
  return d;
}

/**
 * A sender field (src, or ref's src) and its seq, both ways. `table` is a staged view; `field` is
 * the entry's seq to step from ('seq' for src, 'refSeq' for ref).
 */
function encodeSender(table, src, seq, field) {
  const e = table.find(src);
  if (e) {
    const step = seq - e[field];
    table.set(e, field, seq);
    return [e.i, step];
  }
  const added = table.add(src);
  if (added) table.set(added, field, seq);
  return [src, seq];
}

function decodeSender(table, wire, step, field, what) {
  let e;
  if (typeof wire === 'string') {
    if (!envelope.SRC_RE.test(wire)) throw fail(`${what} is not a sender id`);
    e = table.find(wire);
    if (!e) {
      const added = table.add(wire);
      if (added) table.set(added, field, step);
      return { src: wire, seq: step };
    }
    // Text for a sender already numbered happens only when the table was full at its first frame.
  } else if (Number.isInteger(wire) && wire >= 0) {
    e = table.at(wire);
    if (!e) throw fail(`${what} number ${wire} was never sent`);
  } else {
    throw fail(`${what} must be text or a sender number`);
  }
  const seq = typeof wire === 'string' ? step : e[field] + step;
  table.set(e, field, seq);
  return { src: e.src, seq };
}

/**
 * The encoder of one direction of a connection.
 * @param {{tags: Array<{short: string}>}} table the I/O table the tag ids come from
 * @param {number} [unitUs] the time unit in µs (1 or 100)
 * @returns {{encode(env: object): Uint8Array}}
 */
function createEncoder(table, unitUs = 1) {
  const ids = tagIds(table);
  const per = 1000 / unitUs; // units per ms
  const senders = createSenderTable();
  const packer = new msgpack.Encoder();
  let tsUs = 0;

  return {
    encode(env) {
      const view = senders.stage();
      const a = new Array(FIELDS);
      a[0] = KIND_CODE.get(env.k);
      [a[1], a[2]] = encodeSender(view, env.src, env.seq, 'seq');
      const us = Math.round(env.ts * per);
      a[3] = us - tsUs;
      a[4] = env.d === undefined ? null : encodeD(env.d, env.k, ids);
      if (env.ref !== undefined) a[5] = encodeSender(view, env.ref.src, env.ref.seq, 'refSeq');
      if (env.dl !== undefined) a[6] = Math.floor(env.dl * per) - us;
      if (env.e !== undefined) a[7] = [env.e.code, env.e.msg];
      if (env.cid !== undefined) a[8] = env.cid;
      if (env.ttl !== undefined) a[9] = env.ttl;
      let n = FIELDS;
      while (n > 5 && a[n - 1] === undefined) n -= 1;
      a.length = n;
      for (let i = 5; i < n; i++) if (a[i] === undefined) a[i] = null;
      const bytes = packer.encode(a);
      view.commit();
      tsUs = us;
      return bytes;
    },
  };
}

/**
 * The decoder of one direction of a connection.
 * @param {{tags: Array<{short: string}>}} table the I/O table the tag ids come from
 * @param {number} [unitUs] the time unit in µs (1 or 100)
 * @returns {{decode(bytes: Uint8Array): object}} the envelope (not yet validated)
 * @throws {EnvelopeError} E_DECODE
 */
function createDecoder(table, unitUs = 1) {
  const ids = tagIds(table);
  const per = 1000 / unitUs;
  const senders = createSenderTable();
  const unpacker = new msgpack.Decoder({ maxStrLength: 64 * 1024, maxArrayLength: 64 * 1024, maxMapLength: 4096, maxExtLength: 0 });
  let tsUs = 0;
  const has = (x) => x !== null && x !== undefined;

  return {
    decode(bytes) {
      let a;
      try {
        a = unpacker.decode(bytes);
      } catch (err) {
        throw fail(err.message);
      }
      if (!Array.isArray(a) || a.length < 5 || a.length > FIELDS) throw fail('not an array of 5 to 10 fields');
      const k = KINDS[a[0]];
      if (!Number.isInteger(a[0]) || !k) throw fail(`unknown kind number ${JSON.stringify(a[0])}`);
      if (!Number.isSafeInteger(a[2]) || !Number.isSafeInteger(a[3])) throw fail('seq and ts must be whole numbers');
      const view = senders.stage();
      const s = decodeSender(view, a[1], a[2], 'seq', 'src');
      const us = tsUs + a[3];
      const env = { v: envelope.VERSION, k, src: s.src, seq: s.seq, ts: us / per };
      if (has(a[4])) env.d = decodeD(a[4], k, ids);
      if (has(a[5])) {
        if (!Array.isArray(a[5]) || a[5].length !== 2 || !Number.isSafeInteger(a[5][1])) throw fail('ref must be [src, seq]');
        env.ref = decodeSender(view, a[5][0], a[5][1], 'refSeq', 'ref src');
      }
      if (has(a[6])) {
        if (!Number.isSafeInteger(a[6])) throw fail('dl must be a whole number of µs');
        env.dl = (us + a[6]) / per;
      }
      if (has(a[7])) {
        if (!Array.isArray(a[7]) || a[7].length !== 2) throw fail('e must be [code, msg]');
        env.e = { code: a[7][0], msg: a[7][1] };
      }
      if (has(a[8])) env.cid = a[8];
      if (has(a[9])) env.ttl = a[9];
      view.commit();
      tsUs = us;
      return env;
    },
  };
}

module.exports = { KINDS, MAX_SRCS, createEncoder, createDecoder };
