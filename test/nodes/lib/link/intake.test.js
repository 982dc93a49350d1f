'use strict';
/**
 * lib/link/intake.js: every frame a peer sends, through the rate limit, the size limit, parsing,
 * the error budget and duplicate tracking, before the role's check and the flow.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createIntake } = require('../../../../nodes/lib/link/intake');
const { createPeer } = require('../../../../nodes/lib/link/peer');
const { createSenders } = require('../../../../nodes/lib/link/senders');
const { fakeConnection } = require('../../../helpers/cloud');

function setup({ limits = { ratePerS: 0, errors: 0 }, check = () => true, maxPayload = 200 } = {}) {
  const counters = {
    framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0, framesIn: 0, bytesIn: 0, errors: 0, tooLarge: 0,
    rateLimited: 0, errorBudget: 0, duplicates: 0, gaps: 0,
  };
  const conn = fakeConnection();
  const peer = createPeer({
    id: 'twin-1', conn, plant: 'p1', limits, counters, maxFrames: 10, maxTags: 10, highWaterBytes: 1e6, drainPollMs: 5, closeGraceMs: 1000,
  });
  const passed = [];
  const invalid = [];
  const intake = createIntake({
    maxPayload, counters, sender: envelope.createSender('cloud-t'), senders: createSenders({ counters }),
    onInvalid: (err, id, extra) => invalid.push({ err, id, extra }), check, pass: (c, env) => passed.push(env),
  });
  const bytes = (x) => (Buffer.isBuffer(x) ? x : Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)));
  return { counters, conn, peer, passed, invalid, send: (x, bin) => intake.receive(peer, bytes(x), bin) };
}
const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw', seq, ts: 1, d: { st: 1 }, ...more });

test('a valid frame passes once; a duplicate is dropped; the role may hold one back', () => {
  const s = setup({ check: (c, env) => env.seq !== 3 });
  s.send(cmd(1));
  s.send(cmd(1));
  s.send(cmd(3));
  assert.deepEqual(s.passed.map((e) => e.seq), [1]);
  assert.equal(s.counters.framesIn, 3);
  assert.equal(s.counters.duplicates, 1);
  assert.equal(s.peer.heard, true);
});

test('a malformed frame is answered with an err envelope and reported, never passed on', () => {
  const s = setup();
  s.send('{oops');
  s.send(cmd(1), true);
  assert.deepEqual(s.conn.frames().map((f) => f.e.code), ['E_JSON', 'E_SCHEMA']);
  assert.equal(s.invalid.length, 2);
  assert.equal(s.invalid[0].id, 'twin-1');
  assert.equal(s.invalid[0].extra.raw, '{oops');
  assert.equal(s.passed.length, 0);
  assert.equal(s.counters.errors, 2);
});

test('a frame over the size limit is answered E_TOO_LARGE and the connection closed with 1009', () => {
  const s = setup({ maxPayload: 50 });
  s.send(cmd(1, { d: { st: 1, pad: 'x'.repeat(100) } }));
  assert.equal(s.conn.frames()[0].e.code, 'E_TOO_LARGE');
  assert.equal(s.conn.closes[0].code, 1009);
  assert.equal(s.counters.tooLarge, 1);
  assert.equal(s.passed.length, 0);
});

test('past the rate, or past the error budget, the peer is told why and closed with 1008; then nothing more is read', () => {
  const flood = setup({ limits: { ratePerS: 1, burst: 2, errors: 0 } });
  for (let i = 1; i <= 5; i += 1) flood.send(cmd(i));
  assert.deepEqual(flood.passed.map((e) => e.seq), [1, 2]);
  assert.equal(flood.conn.frames().at(-1).e.code, 'E_RATE_LIMIT');
  assert.equal(flood.conn.closes[0].code, 1008);
  assert.equal(flood.counters.rateLimited, 1);
  const bad = setup({ limits: { ratePerS: 0, errors: 2, errorWindowMs: 60000 } });
  for (let i = 0; i < 5; i += 1) bad.send('nope');
  assert.equal(bad.counters.errorBudget, 1);
  assert.equal(bad.conn.closes[0].code, 1008);
  assert.equal(bad.conn.frames().at(-1).e.code, 'E_ERROR_BUDGET');
  assert.equal(bad.invalid.length, 3, 'frames after the expulsion are not read');
});

test('on a compact connection a malformed binary frame is answered E_DECODE in that encoding, and well-formed ones pass', () => {
  const { createCodec, COMPACT_PROTOCOL } = require('../../../../nodes/lib/core/codec');
  const s = setup();
  s.conn.codec = createCodec(COMPACT_PROTOCOL);
  const twin = createCodec(COMPACT_PROTOCOL); // the twin's encoder, and its decoder of the answers
  const fromCloud = createCodec(COMPACT_PROTOCOL);
  s.send(Buffer.from(twin.encode(cmd(1))), true);
  s.send(Buffer.from([0x95, 0xc1, 0x00, 0x00, 0x00]), true);
  s.send(Buffer.from([0xff]), true);
  s.send(Buffer.from(twin.encode(cmd(2, { d: { st: 0 } }))), true);
  s.send(cmd(3)); // a JSON text frame is read too
  assert.deepEqual(s.passed.map((e) => [e.seq, e.d.st]), [[1, 1], [2, 0], [3, 1]]);
  const answers = s.conn.sent.map((b) => fromCloud.decode(Buffer.from(b), true));
  assert.deepEqual(answers.map((f) => f.e.code), ['E_DECODE', 'E_DECODE']);
  assert.equal(s.counters.errors, 2);
  assert.match(s.invalid[0].extra.raw, /^<5 bytes: 95c1000000…>$/);
});
