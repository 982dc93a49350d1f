'use strict';
/**
 * nodes/lib/stream/signal.js: the synthetic vibration. Sample k's value is a function of k alone
 * (so a receiver can check every sample), a DINT, its tones repeat every PERIOD samples, its noise
 * does not, and options out of range are refused.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSignal, hash32, PERIOD, SCALE } = require('../../../../nodes/lib/stream/signal');

test('a sample is a function of its index: the same in every signal made with the same options, and fill gives the same', () => {
  const a = createSignal();
  const b = createSignal();
  for (const k of [0, 1, 4095, 4096, 123456789, 2 ** 32 + 5, 2 ** 52]) assert.equal(a.value(k), b.value(k), `sample ${k}`);
  const block = a.fill(new Int32Array(1000), 777777);
  for (let j = 0; j < block.length; j++) assert.equal(block[j], a.value(777777 + j));
  assert.notEqual(createSignal({ seed: 2 }).value(5), a.value(5), 'another seed, other noise');
});

test('a DINT within the tones\' and the noise\'s amplitude; the tones repeat every PERIOD samples, the noise does not', () => {
  const s = createSignal();
  const noiseless = createSignal({ noise: 0 });
  let max = 0;
  let sameNoisy = 0;
  for (let k = 0; k < 3 * PERIOD; k++) {
    const v = s.value(k);
    assert.ok(Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31);
    max = Math.max(max, Math.abs(v));
    assert.equal(noiseless.value(k), noiseless.value(k + PERIOD), `tone sample ${k}`);
    if (s.value(k) === s.value(k + PERIOD)) sameNoisy += 1;
  }
  assert.ok(max <= 0.85 * SCALE + 1, `peak ${max} within 0.5 + 0.2 + 0.1 + 0.05 of full scale`);
  assert.ok(max > 0.5 * SCALE, 'and it swings');
  assert.ok(sameNoisy < 10, `the noise makes repeats rare (${sameNoisy})`);
});

test('the noise hash is 32 bits and spreads neighbouring indices', () => {
  const seen = new Set();
  for (let k = 0; k < 1000; k++) {
    const h = hash32(k);
    assert.ok(h >= 0 && h < 2 ** 32);
    seen.add(h);
  }
  assert.equal(seen.size, 1000);
});

test('options out of range are refused with E_SIGNAL', () => {
  const bad = [{ tones: [[0, 0.5]] }, { tones: [[PERIOD / 2, 0.5]] }, { tones: [[10, 'x']] }, { tones: [[10, 8]] }, { noise: 7.5 }, { seed: 1.5 },
    { tones: 'x' }];
  for (const o of bad) {
    assert.throws(() => createSignal(o), { code: 'E_SIGNAL' }, JSON.stringify(o));
  }
  assert.doesNotThrow(() => createSignal({ tones: undefined, noise: undefined }), 'undefined options take the defaults');
});
