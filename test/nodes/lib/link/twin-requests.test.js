'use strict';
/** lib/link/twin-requests.js: each answer to the connection its request came on; duplicates in flight refused; bounded. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createTwinRequests } = require('../../../../nodes/lib/link/twin-requests');

test('an answer goes to the peer that asked, once; a (plant, src, seq) still in flight is a duplicate', () => {
  let t = 0;
  const r = createTwinRequests({ holdMs: 100, now: () => t });
  assert.equal(r.hold('a', { src: 'tw', seq: 1, dl: 50 }, 'twin-1'), 'held');
  assert.equal(r.hold('b', { src: 'tw', seq: 1, dl: 50 }, 'twin-2'), 'held', 'another plant');
  assert.equal(r.hold('a', { src: 'tw', seq: 1, dl: 60 }, 'twin-3'), 'duplicate');
  assert.equal(r.take('a', { src: 'tw', seq: 1 }), 'twin-1');
  assert.equal(r.take('a', { src: 'tw', seq: 1 }), undefined, 'answered once');
  assert.equal(r.hold('a', { src: 'tw', seq: 1, dl: 60 }, 'twin-3'), 'held', 'answered: the number is free again');
  t = 200;
  assert.equal(r.hold('a', { src: 'tw', seq: 2, dl: 250 }, 'twin-3'), 'held');
  assert.equal(r.size, 1, 'past their deadline plus holdMs the others are forgotten');
  assert.equal(r.take('b', { src: 'tw', seq: 1 }), undefined);
});

test('at most maxEntries wait', () => {
  const r = createTwinRequests({ maxEntries: 2, now: () => 0 });
  assert.equal(r.hold('a', { src: 'x', seq: 1, dl: 10 }, 'p'), 'held');
  assert.equal(r.hold('a', { src: 'x', seq: 2, dl: 10 }, 'p'), 'held');
  assert.equal(r.hold('a', { src: 'x', seq: 3, dl: 10 }, 'p'), 'full');
});
