'use strict';
/**
 * lib/link/senders.js: duplicates per connection and sender, bounded per connection, gone with it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSenders } = require('../../../../nodes/lib/link/senders');

const peer = (id) => ({ id });

test('duplicates are judged per connection and sender: two twins with one id number independently', () => {
  const counters = { duplicates: 0, gaps: 0 };
  const s = createSenders({ counters });
  const a = peer('twin-1');
  const b = peer('twin-2');
  assert.equal(s.accept(a, { src: 'tw', seq: 4 }), 'accept');
  assert.equal(s.accept(b, { src: 'tw', seq: 1 }), 'accept', 'the same id on another connection is another sender');
  assert.equal(s.accept(a, { src: 'tw', seq: 4 }), 'duplicate');
  assert.equal(s.accept(b, { src: 'tw', seq: 2 }), 'accept');
  assert.equal(s.accept(a, { src: 'tw', seq: 7 }), 'accept');
  assert.deepEqual(counters, { duplicates: 1, gaps: 1 });
});

test('a connection remembers at most maxSenders ids, and nothing once it is gone; a restart from 1 is counted', () => {
  const s = createSenders({ maxSenders: 3 });
  const a = peer('twin-1');
  for (let i = 0; i < 10; i += 1) s.accept(a, { src: `tw-${i}`, seq: 1 });
  assert.equal(s.heard(a), 3);
  s.accept(a, { src: 'tw-9', seq: 5 });
  s.accept(a, { src: 'tw-9', seq: 1 });
  assert.equal(s.stats.restarts, 1);
  s.forget(a);
  assert.equal(s.heard(a), 0);
  assert.equal(s.accept(a, { src: 'tw-9', seq: 1 }), 'accept', 'numbers start afresh on a new connection');
});
