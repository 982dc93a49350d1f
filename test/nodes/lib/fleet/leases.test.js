'use strict';
/**
 * lib/fleet/leases.js on an in-process backplane: one holder per plant, its request channel
 * listened to while it holds the plant, a lease taken elsewhere noticed on renewal.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { createLeases } = require('../../../../nodes/lib/fleet/leases');
const { waitFor } = require('../../../../system/wait');

function leases(bp, id, more = {}) {
  const got = [];
  const lost = [];
  const counters = { leaseLost: 0 };
  const l = createLeases({
    bp, id, leaseMs: 3000, leaseDriftPpm: 1000, counters, fail: () => {}, closed: () => false,
    onRequest: (plant, text) => got.push([plant, text]), onLost: (p) => lost.push(p), ...more,
  });
  return { l, got, lost, counters };
}

test('one holder per plant; the holder takes the plant\'s requests; released, another may take it', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const a = leases(bp, 'a');
  const b = leases(bp, 'b');
  assert.equal(await a.l.claim('p'), true);
  assert.equal(await a.l.claim('p'), true, 'claimed again: renewed');
  assert.equal(await b.l.claim('p'), false);
  assert.equal(a.l.holds('p'), true);
  assert.equal(b.l.holds('p'), false);
  assert.deepEqual(a.l.plants(), ['p']);
  assert.equal(await bp.publish(KEYS.req('p'), 'hello'), 1, 'one listener on the request channel');
  await waitFor(() => a.got.length === 1);
  assert.deepEqual(a.got, [['p', 'hello']]);
  await a.l.release('p');
  assert.equal(a.l.holds('p'), false);
  assert.equal(await bp.publish(KEYS.req('p'), 'again'), 0, 'no longer listened to');
  assert.equal(await b.l.claim('p'), true);
});

test('renewal keeps the plant; a lease another member took is noticed: onLost, and the plant let go', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const a = leases(bp, 'a', { leaseMs: 50 });
  assert.equal(await a.l.renew('p'), false, 'not held: nothing to renew');
  await a.l.claim('p');
  assert.equal(await a.l.renew('p'), true);
  await waitFor(async () => bp.lease(KEYS.lease('p'), 'b', 60000), 5000, 'the lapsed lease taken by another');
  assert.equal(await a.l.renew('p'), false);
  assert.deepEqual(a.lost, ['p']);
  assert.equal(a.counters.leaseLost, 1);
  assert.equal(a.l.holds('p'), false);
});

test('a lease is trusted a little less long than its TTL, and not at all once the member closes', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  let closed = false;
  const a = leases(bp, 'a', { leaseMs: 40, closed: () => closed });
  await a.l.claim('p');
  await waitFor(() => !a.l.holds('p'), 5000, 'the unrenewed lease to lapse here');
  closed = true;
  assert.equal(await a.l.claim('q'), false);
});
