'use strict';
/**
 * bench/lib/load.js's think times and start offsets: simulated users probing with the bench's
 * think times (no network) send at their steady rate from the start, with no start-up burst.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { think, startOffset } = require('../../bench/lib/load');

/** Probe send times of `users` simulated users over `untilMs`, each starting at first(). */
function sendTimes(users, mean, width, first, untilMs) {
  const out = [];
  for (let u = 0; u < users; u++) {
    for (let t = first(); t < untilMs; t += think(mean, width)) out.push(t);
  }
  return out;
}
const countIn = (times, a, b) => times.filter((t) => t >= a && t < b).length;

test('users start as if they had been probing all along: no start-up burst', () => {
  // The bench's load levels: 500 ms mean think, uniform 250-750 ms. Steady rate: users / 500 ms.
  const users = 20000;
  const times = sendTimes(users, 500, 500, () => startOffset(500, 500), 3000);
  const steady = users / 2; // per 250 ms window
  for (let a = 0; a < 3000; a += 250) {
    const n = countIn(times, a, a + 250);
    assert.ok(Math.abs(n / steady - 1) < 0.04, `${n} probes in ${a}-${a + 250} ms, steady ${steady}`);
  }
  // What the users' start uniform over one mean think time did: 25 % over the steady rate.
  const old = sendTimes(users, 500, 500, () => Math.random() * 500, 3000);
  assert.ok(countIn(old, 250, 500) / steady > 1.2);
});

test('start offsets lie within the longest think time; fixed think times start uniformly', () => {
  for (let i = 0; i < 2000; i++) {
    const t = startOffset(500, 500);
    assert.ok(t >= 0 && t <= 750, `${t}`);
  }
  const fixed = Array.from({ length: 20000 }, () => startOffset(100, 0));
  assert.ok(fixed.every((t) => t >= 0 && t <= 100));
  const mean = fixed.reduce((a, b) => a + b, 0) / fixed.length;
  assert.ok(Math.abs(mean - 50) < 2, `mean ${mean}`);
  assert.equal(startOffset(0, 0), 0, 'no think time: start at once');
});
