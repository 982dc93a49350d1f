'use strict';
/** The echo twin endpoint's rule (bench/k6/echo.js): a generator's floor is measured against it. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { probeAnswer } = require('../../../bench/k6/echo');

test('a probe is answered at once with a probe-res of the same slots and values', () => {
  let seq = 0;
  const next = () => { seq += 1; return seq; };
  const out = JSON.parse(probeAnswer(JSON.stringify({ v: 1, k: 'probe', src: 'twin-k6-1', seq: 7, ts: 1, d: { 12: 4000001 } }), next));
  assert.equal(out.k, 'probe-res');
  assert.equal(out.v, 1);
  assert.deepEqual(out.d, { 12: 4000001 });
  assert.equal(out.seq, 1);
  assert.deepEqual(out.ref, { src: 'twin-k6-1', seq: 7 }, 'the answer names the probe it answers, as the twin endpoint does');
  assert.equal(JSON.parse(probeAnswer(Buffer.from(JSON.stringify({ k: 'probe', d: { 1: 2 } })), next)).seq, 2, 'a Buffer too');
});

test('anything else, or anything malformed, gets no answer', () => {
  const next = () => 1;
  for (const m of ['nope', 'null', '[]', JSON.stringify({ k: 'cmd', d: { st: 1 } }), JSON.stringify({ k: 'probe' }),
    JSON.stringify({ k: 'probe', d: [1] }), JSON.stringify({ k: 'probe', d: 5 })]) {
    assert.equal(probeAnswer(m, next), null, m);
  }
});
