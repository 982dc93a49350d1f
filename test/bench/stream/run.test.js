'use strict';
/**
 * bench/stream/run.js: the S7 ceiling's one rule, which the run (its 'ceiling' PLC stream) and the
 * report both use: rising by rate, the last rate before the first one not read whole; a higher
 * rate that happened to read whole past a loss does not raise it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { ceilingOf, ceilingRule, readWhole } = require('../../../bench/stream/run');

const at = (rateHz, o = {}) => ({ rateHz, samplesPerS: 0.996 * rateHz, lost: 0, torn: 0, errors: [], ...o });

test('the ceiling is every rate up to the first loss, not the highest rate read whole anywhere', () => {
  // The kept run (bench/results/2026-11-28-stream): 400 kHz lost 6,129, 500 kHz read whole, 600 kHz lost 10,215.
  const run = [at(1000), at(100000), at(300000), at(400000, { lost: 6129, torn: 3 }), at(500000), at(600000, { lost: 10215, torn: 5 }),
    at(1000000, { lost: 2519019, samplesPerS: 491613 })];
  assert.equal(ceilingOf(run), 300000);
  const r = ceilingRule(run);
  assert.deepEqual(r.short.map((x) => x.rateHz), [400000, 600000, 1000000]);
  assert.deepEqual(r.wholeAbove.map((x) => x.rateHz), [500000], 'read whole past a loss: said, not the ceiling');
  assert.equal(ceilingOf([...run].reverse()), 300000, 'by rate, whatever order the rates ran in');
});

test('read whole: nothing lost or torn, no error, 98 % of the rate read', () => {
  assert.equal(readWhole(at(1000)), true);
  assert.equal(readWhole(at(1000, { torn: 1 })), false);
  assert.equal(readWhole(at(1000, { errors: ['E_S7'] })), false);
  assert.equal(readWhole(at(1000, { samplesPerS: 970 })), false, 'short of the rate with nothing counted lost');
  assert.equal(ceilingOf([at(1000), at(10000, { samplesPerS: 9000 }), at(50000)]), 1000);
  assert.equal(ceilingOf([at(1000), at(10000)]), 10000, 'every rate whole: the highest');
  assert.equal(ceilingOf([at(1000, { lost: 1 }), at(10000)]), null, 'not even the lowest');
  assert.equal(ceilingRule([at(1000, { lost: 1 })]), null);
  assert.equal(ceilingOf(null), null);
  assert.equal(ceilingOf([]), null);
});
