'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');

const good = () => ({ v: 1, k: 'cmd', src: 'twin-7', seq: 42, ts: 1732240000123, d: { se: 1, dmg: false } });

test('parses a valid frame from text, a Buffer or an object', () => {
  const text = JSON.stringify(good());
  assert.deepEqual(envelope.parse(text), good());
  assert.deepEqual(envelope.parse(Buffer.from(text)), good());
  assert.deepEqual(envelope.parse(good()), good());
});

test('values are numbers, booleans, or text (an S7 STRING: at most 254 characters); the plant\'s table checks each tag\'s type', () => {
  assert.deepEqual(envelope.parse(JSON.stringify({ ...good(), d: { rcp: 'Milk', sp: 42.5, vlv: true } })).d, { rcp: 'Milk', sp: 42.5, vlv: true });
  assert.equal(envelope.parse(JSON.stringify({ ...good(), d: { se: 'on' } })).d.se, 'on', 'a BOOL given text is the table\'s to refuse (E_TYPE)');
});

test('refuses with stable codes and keeps the ref where it could be read', () => {
  const cases = [
    ['{nope', 'E_JSON'],
    ['[1]', 'E_SCHEMA'],
    ['null', 'E_SCHEMA'],
    [{ ...good(), v: 2 }, 'E_VERSION'],
    [{ ...good(), k: 'bogus' }, 'E_SCHEMA'],
    [{ ...good(), src: 'bad src!' }, 'E_SCHEMA'],
    [{ ...good(), src: 'x'.repeat(65) }, 'E_SCHEMA'],
    [{ ...good(), seq: 0 }, 'E_SCHEMA'],
    [{ ...good(), seq: 1.5 }, 'E_SCHEMA'],
    [{ ...good(), ts: 'now' }, 'E_SCHEMA'],
    [{ ...good(), d: [1] }, 'E_SCHEMA'],
    [{ ...good(), d: { rcp: 'x'.repeat(255) } }, 'E_SCHEMA'],
    [{ v: 1, k: 'probe', src: 'e', seq: 1, ts: 1, d: { 3: '7' } }, 'E_SCHEMA'],
    [{ ...good(), d: { se: null } }, 'E_SCHEMA'],
    [{ v: 1, k: 'state', src: 'e', seq: 1, ts: 1 }, 'E_SCHEMA'],
    [{ v: 1, k: 'err', src: 'e', seq: 1, ts: 1 }, 'E_SCHEMA'],
    [{ v: 1, k: 'ack', src: 'e', seq: 1, ts: 1, ref: { src: 'x' } }, 'E_SCHEMA'],
  ];
  for (const [raw, code] of cases) {
    assert.throws(() => envelope.parse(typeof raw === 'string' ? raw : JSON.stringify(raw)), { code }, JSON.stringify(raw));
  }
  try {
    envelope.parse(JSON.stringify({ ...good(), v: 9 }));
  } catch (err) {
    assert.deepEqual(err.ref, { src: 'twin-7', seq: 42 });
  }
});

test('refuses a frame past the size limit before parsing it', () => {
  const big = JSON.stringify({ ...good(), pad: 'x'.repeat(100) });
  assert.throws(() => envelope.parse(big, { maxBytes: 64 }), { code: 'E_TOO_LARGE' });
  assert.throws(() => envelope.parse('x'.repeat(envelope.MAX_FRAME_BYTES + 1)), { code: 'E_TOO_LARGE' });
});

test('ack and err answers validate; an ack may omit ref', () => {
  assert.doesNotThrow(() => envelope.validate({ v: 1, k: 'ack', src: 'e', seq: 1, ts: 1, ref: { src: 'twin-7', seq: 42 } }));
  assert.doesNotThrow(() => envelope.validate({ v: 1, k: 'ack', src: 'e', seq: 1, ts: 1 }));
  assert.doesNotThrow(() => envelope.validate({ v: 1, k: 'err', src: 'e', seq: 2, ts: 1, e: { code: 'E_X', msg: 'm' } }));
});

test('a sender stamps src, +1 seq and time; continues after a given seq; makes err answers', () => {
  let now = 1000;
  const s = envelope.createSender('edge-1', { seq: 41, now: () => now });
  const a = s.make('state', { d: { c1: 1 } });
  now = 2000;
  const b = s.make('ack', { ref: { src: 't', seq: 3 }, cid: 'c' });
  assert.deepEqual(a, { v: 1, k: 'state', src: 'edge-1', seq: 42, ts: 1000, d: { c1: 1 } });
  assert.deepEqual(b, { v: 1, k: 'ack', src: 'edge-1', seq: 43, ts: 2000, ref: { src: 't', seq: 3 }, cid: 'c' });
  const e = s.error('E_PLC_DOWN', 'down', { src: 't', seq: 4 }, 'c2');
  assert.deepEqual(e.e, { code: 'E_PLC_DOWN', msg: 'down' });
  assert.equal(e.cid, 'c2');
  envelope.validate(e);
  assert.equal(s.seq, 44);
  assert.throws(() => envelope.createSender('bad id'), { code: 'E_SCHEMA' });
});

test('the tracker drops duplicates, counts gaps and missing frames, and takes seq 1 as a restart', () => {
  const t = envelope.createTracker();
  const f = (src, seq) => t.check({ src, seq });
  assert.equal(f('a', 1), 'accept');
  assert.equal(f('a', 2), 'accept');
  assert.equal(f('a', 2), 'duplicate');
  assert.equal(f('a', 1), 'accept', 'a restarted sender');
  assert.equal(t.stats.restarts, 1);
  assert.equal(f('a', 5), 'accept');
  assert.equal(f('a', 3), 'duplicate', 'late and out of order counts as duplicate');
  assert.equal(t.stats.gaps, 1);
  assert.equal(t.stats.missing, 3);
  assert.equal(f('b', 7), 'accept', 'a new sender may start anywhere');
  assert.equal(t.lastSeq('b'), 7);
  t.forget('b');
  assert.equal(t.lastSeq('b'), undefined);
});

test('the tracker forgets the least recently seen sender past maxSenders', () => {
  const t = envelope.createTracker({ maxSenders: 2 });
  t.check({ src: 'a', seq: 1 });
  t.check({ src: 'b', seq: 1 });
  t.check({ src: 'a', seq: 2 });
  t.check({ src: 'c', seq: 1 });
  assert.equal(t.lastSeq('b'), undefined);
  assert.equal(t.lastSeq('a'), 2);
});

test('idempotency fields: key on a cmd and its answers (1..64 visible ASCII), ask on a keyed cmd, repeat on an answer', () => {
  const ok = (extra) => envelope.validate({ ...good(), ...extra });
  const bad = (extra) => assert.throws(() => ok(extra), { code: 'E_SCHEMA' }, JSON.stringify(extra));
  ok({ key: 'a' });
  ok({ key: 'x'.repeat(64) });
  ok({ key: '0b1f8c2e-5a7d-4e1b-9c3f-2d6a8e4b7c01', ask: true });
  bad({ key: '' });
  bad({ key: 'x'.repeat(65) });
  bad({ key: 'has space' });
  bad({ key: 'tab\t' });
  bad({ key: 'é' });
  bad({ key: 7 });
  bad({ ask: true });
  bad({ key: 'k', ask: false });
  bad({ repeat: true });
  assert.throws(() => envelope.validate({ v: 1, k: 'probe', src: 's', seq: 1, ts: 1, d: { 1: 1 }, key: 'k' }), { code: 'E_SCHEMA' });
  envelope.validate({ v: 1, k: 'ack', src: 'e', seq: 1, ts: 1, ref: { src: 's', seq: 1 }, key: 'k', repeat: true });
  assert.throws(() => envelope.validate({ v: 1, k: 'ack', src: 'e', seq: 1, ts: 1, repeat: 1 }), { code: 'E_SCHEMA' });
  const s = envelope.createSender('twin-1', { now: () => 5 });
  assert.deepEqual(s.make('cmd', { d: { st: 1 }, key: 'k', ask: true }), { v: 1, k: 'cmd', src: 'twin-1', seq: 1, ts: 5, d: { st: 1 }, key: 'k', ask: true });
  assert.equal(s.make('ack', { ref: { src: 't', seq: 1 }, key: 'k', repeat: true }).repeat, true);
});

test('canonicalValues: the same command whatever the key order, a BOOL as 1/0', () => {
  assert.equal(envelope.canonicalValues({ st: true, se: 0 }), envelope.canonicalValues({ se: false, st: 1 }));
  assert.notEqual(envelope.canonicalValues({ st: 1 }), envelope.canonicalValues({ st: 0 }));
  assert.notEqual(envelope.canonicalValues({ st: 1 }), envelope.canonicalValues({ st: 1, se: 0 }));
});

test('backfill: values as a state, ct and of only on it; its answer needs ref', () => {
  const bf = { v: 1, k: 'backfill', src: 'journal-0a1b2c', seq: 12, ts: 1764000000000, ct: 1764000000420, d: { c1: 1, msg: 'box' } };
  assert.doesNotThrow(() => envelope.validate(bf));
  assert.doesNotThrow(() => envelope.validate({ ...bf, ct: undefined, of: { src: 'edge-s7', seq: 3 } }));
  assert.throws(() => envelope.validate({ ...bf, d: undefined }), { code: 'E_SCHEMA', message: /needs d/ });
  assert.throws(() => envelope.validate({ ...bf, ct: 'soon' }), { code: 'E_SCHEMA', message: /ct/ });
  assert.throws(() => envelope.validate({ ...bf, of: { src: 'edge s7', seq: 3 } }), { code: 'E_SCHEMA', message: /of is/ });
  assert.throws(() => envelope.validate({ ...bf, k: 'state' }), { code: 'E_SCHEMA', message: /ct/ }, 'ct on a live state');
  assert.throws(() => envelope.validate({ v: 1, k: 'state', src: 'a', seq: 1, ts: 1, d: {}, of: { src: 'a', seq: 1 } }), { code: 'E_SCHEMA' });
  assert.doesNotThrow(() => envelope.validate({ v: 1, k: 'backfill-res', src: 'cloud-e', seq: 1, ts: 1, ref: { src: bf.src, seq: 12 } }));
  assert.throws(() => envelope.validate({ v: 1, k: 'backfill-res', src: 'cloud-e', seq: 1, ts: 1 }), { code: 'E_SCHEMA', message: /needs ref/ });
});
