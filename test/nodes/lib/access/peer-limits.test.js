'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPeerLimits } = require('../../../../nodes/lib/access/peer-limits');

test('a steady peer under the rate is never limited; a sustained excess past the burst is', () => {
  let t = 0;
  const l = createPeerLimits({ ratePerS: 100, burst: 10, now: () => t });
  for (let i = 0; i < 1000; i += 1) { t += 10; assert.equal(l.frame(), null); } // exactly the rate
  for (let i = 0; i < 9; i += 1) assert.equal(l.frame(), null, 'a burst on top of the steady rate is absorbed');
  assert.equal(l.frame().code, 'E_RATE_LIMIT');
});

test('the error budget trips past `errors` refusals within the window and recovers with time', () => {
  let t = 0;
  const l = createPeerLimits({ errors: 3, errorWindowMs: 1000, now: () => t });
  for (let i = 0; i < 3; i += 1) assert.equal(l.error(), null);
  t += 1000; // the window has drained the bucket
  for (let i = 0; i < 3; i += 1) assert.equal(l.error(), null);
  assert.equal(l.error().code, 'E_ERROR_BUDGET');
});

test('0 turns a limit off', () => {
  const l = createPeerLimits({ ratePerS: 0, errors: 0 });
  for (let i = 0; i < 10000; i += 1) { assert.equal(l.frame(), null); assert.equal(l.error(), null); }
});
