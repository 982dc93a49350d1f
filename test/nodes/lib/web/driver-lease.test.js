'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLease } = require('../../../../nodes/lib/web/driver-lease');

test('one holder at a time: renewed by it, refused to others, free after the ttl', () => {
  let t = 0;
  const lease = createLease({ ttlMs: 6000, now: () => t });
  assert.equal(lease.holder(), null);
  assert.equal(lease.claim('a', { label: 'page a' }).granted, true);
  t = 3000;
  const b = lease.claim('b');
  assert.equal(b.granted, false);
  assert.equal(b.holder.id, 'a');
  assert.equal(b.holder.label, 'page a');
  assert.equal(lease.claim('a').granted, true, 'the holder renews');
  t = 8999;
  assert.equal(lease.claim('b').granted, false, 'renewed at 3000: held until 9000');
  t = 9000;
  assert.equal(lease.claim('b').granted, true, 'not renewed for ttl: free');
  assert.equal(lease.counters.expired, 1);
  assert.equal(lease.holder().id, 'b');
});

test('force takes it over; release frees it, and only its holder can', () => {
  const lease = createLease({ now: () => 0 });
  lease.claim('a');
  assert.equal(lease.claim('b', { force: true }).granted, true);
  assert.equal(lease.counters.takeovers, 1);
  assert.equal(lease.release('a'), false, 'a no longer holds it');
  assert.equal(lease.holder().id, 'b');
  assert.equal(lease.release('b'), true);
  assert.equal(lease.holder(), null);
});

test('a bad id is refused with E_LEASE_ID', () => {
  const lease = createLease();
  for (const id of [undefined, '', 'a b', 'x'.repeat(65), 7]) assert.throws(() => lease.claim(id), { code: 'E_LEASE_ID' });
});
