'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOutbox } = require('../../../../nodes/lib/link/outbox');

const env = (k, seq, d, more = {}) => ({ v: 1, k, src: 'edge-1', seq, ts: seq, d, ...more });

test('state frames coalesce into one entry with the latest value of every tag and the newest header', () => {
  const o = createOutbox();
  for (let i = 1; i <= 10000; i += 1) o.push(env('state', i, { c1: i % 2, [`t${i % 5}`]: i }));
  assert.equal(o.depth, 1);
  assert.equal(o.pendingTags, 6);
  const out = [];
  o.flush((e) => out.push(e), () => true);
  assert.equal(out.length, 1);
  assert.equal(out[0].seq, 10000);
  assert.equal(out[0].k, 'state');
  assert.deepEqual(out[0].d, { c1: 0, t1: 9996, t2: 9997, t3: 9998, t4: 9999, t0: 10000 });
  assert.equal(o.stats.coalesced, 9999);
  assert.ok(o.empty);
});

test('a snap merged in makes the entry a snap, which moves behind older answers (seq order kept)', () => {
  const o = createOutbox();
  o.push(env('ack', 1, undefined, { ref: { src: 't', seq: 1 } }));
  o.push(env('state', 2, { c1: 1 }));
  o.push(env('err', 3, undefined, { e: { code: 'E_X' } }));
  o.push(env('snap', 4, { c1: 0, red: 1 }));
  const out = [];
  o.flush((e) => out.push(e), () => true);
  assert.deepEqual(out.map((e) => e.k), ['ack', 'err', 'snap']);
  assert.deepEqual(out.map((e) => e.seq), [1, 3, 4]);
  assert.deepEqual(out[2].d, { c1: 0, red: 1 });
});

test('bounded: non-state frames past maxFrames drop the oldest; tags past maxTags are dropped and counted', () => {
  const o = createOutbox({ maxFrames: 3, maxTags: 2 });
  for (let i = 1; i <= 5; i += 1) o.push(env('ack', i));
  o.push(env('state', 6, { a: 1, b: 1 }));
  o.push(env('state', 7, { c: 1, a: 2 }));
  assert.equal(o.depth, 4);
  assert.equal(o.stats.dropped, 2);
  assert.equal(o.stats.droppedTags, 1);
  const out = [];
  o.flush((e) => out.push(e), () => true);
  assert.deepEqual(out.map((e) => e.seq), [3, 4, 5, 7]);
  assert.deepEqual(out[3].d, { a: 2, b: 1 });
});

test('flush stops when the peer cannot take more; takeState removes the pending state', () => {
  const o = createOutbox();
  o.push(env('ack', 1));
  o.push(env('state', 2, { c1: 1 }));
  o.push(env('ack', 3));
  let budget = 1;
  const out = [];
  assert.equal(o.flush((e) => out.push(e), () => budget-- > 0), 1);
  assert.equal(o.depth, 2);
  const s = o.takeState();
  assert.deepEqual(s.d, { c1: 1 });
  assert.equal(o.depth, 1);
  assert.equal(o.takeState(), null);
  assert.equal(o.clear(), 1);
});
