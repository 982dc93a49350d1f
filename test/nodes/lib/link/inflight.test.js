'use strict';
/**
 * lib/link/inflight.js: every request held until one answer; given up at its deadline or when its
 * peer goes; an answer to nothing held is refused.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createInflight, outcomeUnknown } = require('../../../../nodes/lib/link/inflight');
const envelope = require('../../../../nodes/lib/core/envelope');

function book(opts = {}) {
  const expired = [];
  let t = 1000;
  const b = createInflight({ now: () => t, graceMs: 20, probeAnswerMs: 50, onExpire: (e, why) => expired.push({ ...e, why }), ...opts });
  return { b, expired, set: (v) => { t = v; } };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('an answer takes its request out once; a second answer or one to nothing held is refused', () => {
  const { b, expired } = book();
  assert.equal(b.add({ k: 'cmd', src: 'tw', seq: 1, dl: 2000, cid: 'x' }, 'edge-1'), true);
  assert.equal(b.add({ k: 'cmd', src: 'tw', seq: 1, dl: 2000 }, 'edge-1'), false, 'the same request twice is held once');
  assert.equal(b.size, 1);
  const e = b.answer({ src: 'tw', seq: 1 });
  assert.equal(e.cid, 'x');
  assert.equal(b.answer({ src: 'tw', seq: 1 }), null);
  assert.equal(b.answer({ src: 'other', seq: 9 }), null);
  assert.equal(b.counters.lateAnswers, 2);
  assert.equal(b.size, 0);
  assert.equal(expired.length, 0);
});

test('a request not answered by its deadline plus grace is given up once; its late answer is refused', async () => {
  const { b, expired } = book();
  b.add({ k: 'cmd', src: 'tw', seq: 2, dl: 1010 }, 'edge-1'); // 10 ms + 20 ms grace
  b.add({ k: 'probe', src: 'tw', seq: 3, dl: 1010 }, 'edge-1'); // + 50 ms for the probe's slot
  await sleep(45);
  assert.deepEqual(expired.map((e) => e.seq), [2]);
  assert.match(expired[0].why, /deadline/);
  await sleep(60);
  assert.deepEqual(expired.map((e) => e.seq), [2, 3]);
  assert.equal(b.answer({ src: 'tw', seq: 2 }), null);
  assert.equal(b.counters.expired, 2);
});

test("a peer's requests are given up at once when it goes; others' stay", () => {
  const { b, expired } = book();
  b.add({ k: 'cmd', src: 'a', seq: 1, dl: 5000 }, 'edge-1');
  b.add({ k: 'cmd', src: 'a', seq: 2, dl: 5000 }, 'edge-2');
  b.dropPeer('edge-1', 'link lost');
  assert.deepEqual(expired.map((e) => [e.seq, e.why]), [[1, 'link lost']]);
  assert.equal(b.size, 1);
  b.clear('closing');
  assert.equal(expired.length, 2);
  assert.equal(b.counters.dropped, 2);
});

test('reports full at maxEntries', () => {
  const { b } = book({ maxEntries: 2 });
  b.add({ k: 'cmd', src: 'a', seq: 1, dl: 5000 }, 'e');
  assert.equal(b.full, false);
  b.add({ k: 'cmd', src: 'a', seq: 2, dl: 5000 }, 'e');
  assert.equal(b.full, true);
  b.clear('done');
});

test('outcomeUnknown: the answer to a request given up echoes its ref, cid and deadline and says to resync', () => {
  const e = outcomeUnknown(envelope.createSender('cloud-e'), { k: 'cmd', src: 'tw', seq: 4, cid: 'c4', dl: 1234 }, 'the edge link was lost');
  assert.deepEqual([e.k, e.e.code, e.ref, e.cid, e.dl], ['err', 'E_OUTCOME_UNKNOWN', { src: 'tw', seq: 4 }, 'c4', 1234]);
  assert.equal(e.e.msg, 'cmd tw#4: the edge link was lost; whether it was written is unknown (resync from the next state)');
});
