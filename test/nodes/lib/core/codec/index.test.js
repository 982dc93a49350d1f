'use strict';
/**
 * The envelope codecs (nodes/lib/core/codec): the subprotocol a server picks, the JSON codec,
 * and the compact one: every envelope kind and value type there and back, the per-connection
 * state (senders, timestamps) in step at both ends, and bad binary frames refused with E_DECODE
 * without moving the decoder's state.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const msgpack = require('@msgpack/msgpack');
const codec = require('../../../../../nodes/lib/core/codec');
const compact = require('../../../../../nodes/lib/core/codec/compact');
const envelope = require('../../../../../nodes/lib/core/envelope');
const { demoTable, createTable } = require('../../../../../nodes/lib/core/io-table');

const tags = demoTable();
/** A plant's table of these short names, in this order (one INT each: types do not change ids). */
const tableOf = (...shorts) => createTable({ tags: shorts.map((s, i) => ({ name: s, short: s, type: 'INT', s7: `DB1,INT${2 * i}` })) });
const { tagIds } = require('../../../../../nodes/lib/core/tag-ids');

const { JSON_PROTOCOL, COMPACT_PROTOCOL } = codec;

/** A connection's two ends (a encodes, b decodes), each having heard the other's numbering. */
function pair(table) {
  const a = codec.createCodec(COMPACT_PROTOCOL, { table });
  const b = codec.createCodec(COMPACT_PROTOCOL, { table });
  // A frame each way first, as on a real connection: each end hears the other's numbering.
  const hello = envelope.createSender('hello').make('sync');
  a.decode(b.encode(hello), true);
  b.decode(a.encode(hello), true);
  return { a, b };
}
/** Equal, with times equal to the microsecond (the compact encoding's resolution). */
function sameEnvelope(got, want) {
  const { ts, dl, ...rest } = want;
  const { ts: gts, dl: gdl, ...grest } = got;
  assert.deepEqual(grest, rest);
  assert.ok(Math.abs(gts - ts) <= 0.0005, `ts ${gts} vs ${ts}`);
  if (dl === undefined) assert.equal(gdl, undefined);
  else assert.ok(dl - gdl >= 0 && dl - gdl <= 0.001, `dl ${gdl} vs ${dl} (never later)`);
}

test('the server picks the first subprotocol it speaks in the client\'s order; none offered is JSON; only others is refused', () => {
  assert.equal(codec.pickProtocol(undefined), undefined);
  assert.equal(codec.pickProtocol(''), undefined);
  assert.equal(codec.pickProtocol(new Set()), undefined);
  assert.equal(codec.pickProtocol(`${COMPACT_PROTOCOL}, ${JSON_PROTOCOL}`), COMPACT_PROTOCOL);
  assert.equal(codec.pickProtocol([JSON_PROTOCOL, COMPACT_PROTOCOL]), JSON_PROTOCOL);
  assert.equal(codec.pickProtocol(new Set(['mqtt', JSON_PROTOCOL])), JSON_PROTOCOL);
  assert.equal(codec.pickProtocol('mqtt, s7twin.v2+cbor'), null);
  assert.deepEqual(codec.offerFor(), [COMPACT_PROTOCOL, JSON_PROTOCOL]);
  assert.deepEqual(codec.offerFor('json'), [JSON_PROTOCOL]);
  assert.throws(() => codec.offerFor('xml'), { code: 'E_ENCODING' });
  assert.throws(() => codec.createCodec('s7twin.v9+xml'), { code: 'E_ENCODING' });
});

test('the JSON codec writes text frames and refuses binary ones (E_SCHEMA), oversized ones (E_TOO_LARGE) and bad JSON (E_JSON)', () => {
  const c = codec.createCodec();
  assert.equal(c.name, JSON_PROTOCOL);
  assert.equal(codec.createCodec('').name, JSON_PROTOCOL);
  const env = envelope.createSender('twin-1').make('cmd', { d: { se: 1 } });
  const text = c.encode(env);
  assert.equal(typeof text, 'string');
  assert.deepEqual(c.decode(Buffer.from(text), false), env);
  assert.throws(() => c.decode(Buffer.from(text), true), { code: 'E_SCHEMA' });
  assert.throws(() => c.decode('{"v":1', false), { code: 'E_JSON' });
  assert.throws(() => c.decode(Buffer.alloc(100, 32), false, 50), { code: 'E_TOO_LARGE' });
});

test('every envelope kind there and back in the compact encoding, in far fewer bytes than JSON', () => {
  const { a, b } = pair(tags);
  const edge = envelope.createSender('edge-0123456789abcdef');
  const twin = 'twin-4242-abcdef';
  const now = Date.now() + 0.123456;
  const frames = [
    envelope.createSender(twin).make('cmd', { d: { se: 1, dmg: 0, st: true }, ttl: 900 }),
    edge.make('ack', { ref: { src: twin, seq: 1 }, dl: now + 1000.25, cid: 'c-1' }),
    edge.make('state', { d: { c1: 1, se: 1, ng: -300, nb: 2147483647 } }),
    edge.make('state', { d: { c1: 0 } }),
    edge.make('snap', { d: Object.fromEntries(tags.tags.filter((t) => !t.noStream).map((t, i) => [t.short, i % 2])) }),
    edge.error('E_RANGE', 'value out of range', { src: twin, seq: 2 }, 'c-2', now + 999),
    edge.error('E_SCHEMA', 'no ref'),
    envelope.createSender(twin, { seq: 2 }).make('probe', { d: { 17: 4294967295, 900: 0 }, ttl: 5000 }),
    edge.make('probe-res', { d: { 17: 4294967295, 900: 0 }, ref: { src: twin, seq: 3 }, dl: now }),
    envelope.createSender('edge-link-1').make('sync'),
    edge.make('sync-res', { ref: { src: 'edge-link-1', seq: 1 }, d: { t1: now - 3.5, t2: now - 1.25 } }),
  ];
  let compactBytes = 0;
  let jsonBytes = 0;
  for (const env of frames) {
    const bytes = a.encode(env);
    assert.ok(bytes instanceof Uint8Array);
    compactBytes += bytes.length;
    jsonBytes += JSON.stringify(env).length;
    const expect = env.d && env.k === 'cmd' ? { ...env, d: { ...env.d } } : env;
    sameEnvelope(b.decode(Buffer.from(bytes), true), expect);
  }
  assert.ok(compactBytes * 3 < jsonBytes, `compact ${compactBytes} bytes against JSON ${jsonBytes}`);
  // The second state of one sender: kind, sender number, seq step, ts step and one tag.
  assert.ok(a.encode(edge.make('state', { d: { red: 1 } })).length <= 12);
});

test('every value type of a tag crosses unchanged: whole numbers of any size and sign, fractions, booleans, text', () => {
  const table = tableOf('b', 'i', 'n', 'u', 'r', 'lr', 'z', 'f');
  const { a, b } = pair(table);
  const d = { b: true, i: -32768, n: -2147483648, u: 4294967295, r: 21.5, lr: Math.PI, z: 0, f: false };
  const env = envelope.createSender('edge-x').make('state', { d });
  assert.deepEqual(b.decode(a.encode(env), true).d, d);
  // A key the table lacks goes as text, for the receiver's checks to answer as in JSON.
  const odd = envelope.createSender('twin-y').make('cmd', { d: { nope: 1, b: 0 } });
  assert.deepEqual(b.decode(a.encode(odd), true).d, { nope: 1, b: 0 });
});

test('tag numbers are trusted only between equal numberings: another table\'s are refused (E_TABLE_MISMATCH), in step', () => {
  const table = tableOf('a', 'b', 'c');
  const shifted = tableOf('x', 'a', 'b', 'c'); // a tag put in front: every number moves
  const twin = envelope.createSender('twin-1');
  // An encoder sure the other end numbers as it does: a peer that got its tables wrong.
  const w = compact.createEncoder(shifted, 1, () => tagIds(shifted).key);
  const r = codec.createCodec(COMPACT_PROTOCOL, { table });
  for (let i = 0; i < 2; i++) {
    assert.throws(() => r.decode(w.encode(twin.make('cmd', { d: { b: 1 } })), true), (err) => {
      assert.equal(err.code, 'E_TABLE_MISMATCH');
      assert.deepEqual(err.ref, { src: 'twin-1', seq: i + 1 });
      return true;
    });
  }
  // Frames that name no tag by number still cross, and their steps were kept.
  const plain = twin.make('cmd', { d: { nope: 1 } });
  sameEnvelope(r.decode(w.encode(plain), true), plain);
  // Our own ends with different tables hear each other's key and name tags as text both ways.
  const x = codec.createCodec(COMPACT_PROTOCOL, { table: shifted });
  const y = codec.createCodec(COMPACT_PROTOCOL, { table });
  const edge = envelope.createSender('edge');
  assert.deepEqual(y.decode(x.encode(edge.make('state', { d: { a: 1 } })), true).d, { a: 1 });
  assert.deepEqual(x.decode(y.encode(twin.make('cmd', { d: { b: 1 } })), true).d, { b: 1 });
  const later = x.encode(edge.make('state', { d: { b: 0 } }));
  assert.equal(msgpack.decode(later)[4][0], 'b', 'by name: the numberings differ');
  assert.deepEqual(y.decode(later, true).d, { b: 0 });
  // Equal numberings: each key said once, in the first frame, then tags by number.
  const { a, b } = pair(table);
  const byNumber = a.encode(twin.make('cmd', { d: { a: 0 } }));
  assert.equal(msgpack.decode(byNumber)[4][0], 0);
  assert.equal(msgpack.decode(byNumber).length, 5, 'no key, nor anything after d');
  assert.deepEqual(b.decode(byNumber, true).d, { a: 0 });
  // A tag number before any key is not a compact envelope.
  assert.throws(() => codec.createCodec(COMPACT_PROTOCOL, { table }).decode(msgpack.encode([1, 'twin-2', 1, 1, [0, 1]]), true), { code: 'E_DECODE' });
});

test('a table not known yet (a function giving null): tags go as text; by number once it is known and agreed', () => {
  const table = tableOf('a', 'b');
  let known = null;
  const cloud = codec.createCodec(COMPACT_PROTOCOL, { table: () => known });
  const edge = codec.createCodec(COMPACT_PROTOCOL, { table });
  cloud.decode(edge.encode(envelope.createSender('edge').make('sync')), true); // the edge's key
  const s = envelope.createSender('cloud');
  const before = cloud.encode(s.make('cmd', { d: { b: 1 } }));
  assert.equal(msgpack.decode(before)[4][0], 'b');
  assert.deepEqual(edge.decode(before, true).d, { b: 1 });
  known = table; // the edge taught the cloud its table
  const after = cloud.encode(s.make('cmd', { d: { b: 0 } }));
  assert.equal(msgpack.decode(after)[4][0], 1, 'by its number once the table is known');
  assert.deepEqual(edge.decode(after, true).d, { b: 0 });
  // A decoder whose table is not known yet refuses numbers (it cannot tell what they name).
  const unknown = codec.createCodec(COMPACT_PROTOCOL, { table: () => null });
  const sure = compact.createEncoder(table, 1, () => tagIds(table).key);
  assert.throws(() => unknown.decode(sure.encode(envelope.createSender('edge').make('state', { d: { a: 1 } })), true), { code: 'E_TABLE_MISMATCH' });
});

test('senders past the numbered ones go as text, and sequence steps, restarts and gaps come out exact', () => {
  const { a, b } = pair(tags);
  const senders = Array.from({ length: 70 }, (_, i) => envelope.createSender(`twin-${i}`));
  for (let round = 0; round < 3; round++) {
    for (const s of senders) {
      if (round === 2 && s.src === 'twin-3') s.make('cmd'); // a gap: seq skips one
      const env = s.make('cmd', { d: { se: round % 2 } });
      assert.equal(b.decode(a.encode(env), true).seq, env.seq);
    }
  }
  const restarted = envelope.createSender('twin-0'); // a restart numbers from 1 again
  assert.equal(b.decode(a.encode(restarted.make('cmd', { d: { se: 1 } })), true).seq, 1);
});

test('text frames on a compact connection are JSON envelopes; they leave the binary state alone', () => {
  const { a, b } = pair(tags);
  const s = envelope.createSender('edge-1');
  b.decode(a.encode(s.make('state', { d: { c1: 1 } })), true);
  const typed = s.make('state', { d: { c1: 0 } });
  assert.deepEqual(b.decode(Buffer.from(JSON.stringify(typed)), false), typed);
  const next = s.make('state', { d: { c1: 1 } });
  assert.equal(b.decode(a.encode(next), true).seq, next.seq);
});

test('bad binary frames are refused with E_DECODE (never a crash), and the decoder stays in step with its encoder', () => {
  const { a, b } = pair(tags);
  const s = envelope.createSender('edge-1');
  b.decode(a.encode(s.make('state', { d: { c1: 1 } })), true);
  const bad = [
    Buffer.from([0xc1]), // never used in MessagePack
    Buffer.from([0x92, 0x01]), // truncated
    msgpack.encode({ k: 0 }), // not an array
    msgpack.encode([0, 'x', 1]), // too short
    msgpack.encode([99, 'edge-1', 1, 1, null]), // unknown kind
    msgpack.encode([0, 7, 1, 1, [0, 1]]), // sender number never sent
    msgpack.encode([0, 'bad src!', 1, 1, [0, 1]]),
    msgpack.encode([0, 0, 1.5, 1, [0, 1]]), // seq step not whole
    msgpack.encode([0, 0, 1, 1, [0]]), // d not pairs
    msgpack.encode([0, 0, 1, 1, [-1, 1]]), // bad key
    msgpack.encode([0, 0, 1, 1, ['__proto__', 1]]),
    msgpack.encode([3, 0, 1, 1, null, ['twin', 1, 2]]), // ref not [src, seq]
    msgpack.encode([4, 0, 1, 1, null, null, null, 'E_X']), // e not [code, msg]
    msgpack.encode([0, 0, 1, 1, [0, 1], null, 0.5]), // dl not whole
    msgpack.encode(new Array(12).fill(0)),
    msgpack.encode([0, 0, 1, 1, null, null, null, null, null, null, 5]), // tb not text
    Buffer.from(msgpack.encode([0, 0, 1, 1, [0, 1]])).subarray(0, 3),
  ];
  for (const frame of bad) assert.throws(() => b.decode(frame, true), { code: 'E_DECODE' }, `frame ${Buffer.from(frame).toString('hex')}`);
  assert.throws(() => b.decode(Buffer.alloc(70 * 1024), true), { code: 'E_TOO_LARGE' });
  // The refused frames moved nothing: the encoder's next frame still decodes exactly.
  const next = s.make('state', { d: { c1: 0 } });
  sameEnvelope(b.decode(a.encode(next), true), next);
  // Well-formed frames that are not valid envelopes: the envelope's own checks (E_SCHEMA). Their
  // sender and time steps count (their encoder took them), as a frame of a peer's own would.
  const c = codec.createCodec(COMPACT_PROTOCOL);
  const key = tagIds(tags).key;
  assert.throws(() => c.decode(msgpack.encode([0, 'edge-1', 1, 1, [0, 'x'.repeat(300)], null, null, null, null, null, key]), true), { code: 'E_SCHEMA' });
  assert.throws(() => c.decode(msgpack.encode([0, 0, 1, 1, [0, { o: 1 }]]), true), { code: 'E_SCHEMA' });
  assert.throws(() => c.decode(msgpack.encode([4, 0, 1, 1, null, null, null, [5, 'm']]), true), { code: 'E_SCHEMA' });
  assert.equal(c.decode(msgpack.encode([0, 0, 1, 1, [0, 1]]), true).seq, 4);
});

test('random bytes never crash the decoder: each is an envelope or a coded error', () => {
  const b = codec.createCodec(COMPACT_PROTOCOL);
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
  for (let i = 0; i < 3000; i++) {
    const len = 1 + (rnd() % 40);
    const buf = Buffer.alloc(len);
    for (let j = 0; j < len; j++) buf[j] = rnd() & 0xff;
    if (i % 3 === 0) buf[0] = 0x95 + (rnd() % 5); // mostly arrays of the right length
    try {
      const env = b.decode(buf, true);
      assert.equal(env.v, 1);
    } catch (err) {
      assert.ok(/^E_(DECODE|SCHEMA|VERSION)$/.test(err.code), `${err.code}: ${err.message}`);
    }
  }
});

test('a twin connection\'s times go in units of 100 µs: shorter frames, deadlines rounded down, never later', () => {
  const opts = { timeUnitUs: codec.TIME_UNIT_US.twin };
  const a = codec.createCodec(COMPACT_PROTOCOL, opts);
  const b = codec.createCodec(COMPACT_PROTOCOL, opts);
  const fine = pair(tags);
  const s = envelope.createSender('edge-1');
  const t0 = Date.now() + 0.987654;
  const first = { ...s.make('state', { d: { c1: 1 } }), ts: t0 };
  b.decode(a.encode(first), true);
  fine.b.decode(fine.a.encode(first), true);
  const ack = { ...s.make('ack', { ref: { src: 'twin-1', seq: 1 } }), ts: t0 + 120.4567, dl: t0 + 1000.05678 };
  const coarse = a.encode(ack);
  const precise = fine.a.encode(ack);
  assert.ok(coarse.length + 4 <= precise.length, `${coarse.length} against ${precise.length} bytes`);
  const got = b.decode(coarse, true);
  assert.ok(Math.abs(got.ts - ack.ts) <= 0.05);
  assert.ok(got.dl <= ack.dl && ack.dl - got.dl <= 0.1, `dl ${got.dl} vs ${ack.dl}`);
  sameEnvelope(fine.b.decode(precise, true), ack);
});

test('a kind the compact frame has no field for (the edge\'s table) goes as JSON text on a compact connection, and reads back', () => {
  const { a, b } = pair(tags);
  const env = envelope.createSender('edge-1').make('table', { t: { fingerprint: tags.fingerprint, definition: tags.definition } });
  const frame = a.encode(env);
  assert.equal(typeof frame, 'string');
  assert.deepEqual(b.decode(Buffer.from(frame), false), env);
  // The binary state is untouched: the next state of the same sender still decodes.
  const next = envelope.createSender('edge-1', { seq: 1 }).make('state', { d: { c1: 1 } });
  assert.deepEqual(b.decode(a.encode(next), true).d, { c1: 1 });
});

test('a command\'s idempotency key and ask cross the compact encoding; an envelope with a field it has no place for goes as JSON text', () => {
  const { a, b } = pair(tags);
  const s = envelope.createSender('twin-k');
  const keyed = { ...s.make('cmd', { d: { st: 1 } }), key: 'k-1' };
  sameEnvelope(b.decode(a.encode(keyed), true), keyed);
  const asked = { ...s.make('cmd', { d: { st: 1 } }), key: 'k-1', ask: true };
  sameEnvelope(b.decode(a.encode(asked), true), asked);
  const odd = { ...s.make('state', { d: { c1: 1 } }), later: 1 };
  assert.equal(typeof a.encode(odd), 'string');
});
