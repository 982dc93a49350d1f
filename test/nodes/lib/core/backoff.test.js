'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createBackoff } = require('../../../../nodes/lib/core/backoff');

test('starts at initialMs, doubles, caps at maxMs (no jitter)', () => {
  const b = createBackoff({ initialMs: 200, maxMs: 5000, jitter: 0 });
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(() => b.next()), [200, 400, 800, 1600, 3200, 5000, 5000]);
  b.reset();
  assert.equal(b.next(), 200);
});

test('jitter keeps each delay between (1 - jitter) * step and step', () => {
  const lo = createBackoff({ initialMs: 200, jitter: 0.5, random: () => 0.999999 });
  const hi = createBackoff({ initialMs: 200, jitter: 0.5, random: () => 0 });
  assert.equal(hi.next(), 200);
  assert.equal(lo.next(), 100);
  const r = createBackoff({ initialMs: 200, maxMs: 5000 });
  for (let i = 0; i < 50; i += 1) {
    const step = Math.min(5000, 200 * 2 ** i);
    const d = r.next();
    assert.ok(d >= step / 2 && d <= step, `${d} in ${step / 2}..${step}`);
  }
});

test('a connection that stayed up stableMs resets the sequence; a short one does not', () => {
  let now = 0;
  const b = createBackoff({ initialMs: 100, jitter: 0, stableMs: 5000, now: () => now });
  b.next(); b.next();
  b.connected(); now += 1000; b.disconnected();
  assert.equal(b.next(), 400, 'short-lived connection: keeps backing off');
  b.connected(); now += 5000; b.disconnected();
  assert.equal(b.next(), 100, 'stable connection: starts over');
});

test('refuses nonsense settings with E_CONFIG', () => {
  assert.throws(() => createBackoff({ initialMs: 0 }), { code: 'E_CONFIG' });
  assert.throws(() => createBackoff({ initialMs: 500, maxMs: 100 }), { code: 'E_CONFIG' });
  assert.throws(() => createBackoff({ jitter: 2 }), { code: 'E_CONFIG' });
});
