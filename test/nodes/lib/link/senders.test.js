'use strict';
/**
 * lib/link/senders.js: duplicates per plant and sender, the peer that speaks for a sender (where
 * its answers go), and a gone peer's senders starting afresh.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSenders } = require('../../../../nodes/lib/link/senders');

const peer = (id, plant) => ({ id, plant, srcs: new Set() });

test('duplicates are judged per plant and sender: twins of two plants may use the same sender id', () => {
  const counters = { duplicates: 0, gaps: 0 };
  const s = createSenders({ counters });
  const a = peer('twin-1', 'a');
  const b = peer('twin-2', 'b');
  assert.equal(s.accept(a, { src: 'tw', seq: 4 }), 'accept');
  assert.equal(s.accept(b, { src: 'tw', seq: 1 }), 'accept', 'the same id in another plant is another sender');
  assert.equal(s.accept(a, { src: 'tw', seq: 4 }), 'duplicate');
  assert.equal(s.accept(a, { src: 'tw', seq: 7 }), 'accept');
  assert.deepEqual(counters, { duplicates: 1, gaps: 1 });
});

test('a sender is owned by the peer it was last heard on; a gone peer forgets its senders', () => {
  const s = createSenders();
  const first = peer('twin-1', 'a');
  const second = peer('twin-2', 'a');
  s.accept(first, { src: 'tw', seq: 10 });
  assert.equal(s.ownerOf('a', 'tw'), 'twin-1');
  assert.equal(s.ownerOf('b', 'tw'), undefined);
  s.accept(second, { src: 'tw', seq: 11 });
  assert.equal(s.ownerOf('a', 'tw'), 'twin-2');
  s.forget(first); // no longer the owner: nothing changes
  assert.equal(s.ownerOf('a', 'tw'), 'twin-2');
  assert.equal(s.accept(second, { src: 'tw', seq: 5 }), 'duplicate');
  s.forget(second);
  assert.equal(s.ownerOf('a', 'tw'), undefined);
  assert.equal(s.accept(peer('twin-3', 'a'), { src: 'tw', seq: 5 }), 'accept', 'numbers start afresh on a new connection');
});
