'use strict';
/** A plant's configuration: profile, overrides, boxes, damage plan (twin/plant/config.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { configure, PROFILES, rng, PlantError } = require('../../../twin/plant/config');

test('the profile with its overrides as numbers; the boxes and which are damaged', () => {
  const { cfg, total, plan } = configure({ profile: 'study', c1SpeedMmS: '500', boxes: 4, damaged: '01' });
  assert.equal(cfg.c1SpeedMmS, 500, 'an override from a command line is a number');
  assert.equal(cfg.boxMm, PROFILES.study.boxMm);
  assert.notEqual(cfg, PROFILES.study, 'a copy: the profile itself is not changed');
  assert.equal(PROFILES.study.c1SpeedMmS, 250);
  assert.equal(total, 4);
  assert.deepEqual(plan, [false, true, false, true]);
  const d = configure({});
  assert.equal(d.cfg.boxMm, PROFILES.fast.boxMm, 'fast by default');
  assert.equal(d.total, 20);
  assert.deepEqual(d.plan, configure({ seed: 1 }).plan, 'seed 1 and 30 % damaged by default');
});

test('bad options are refused with E_PLANT_CONFIG', () => {
  for (const bad of [{ profile: 'warp' }, { boxes: 2.5 }, { boxes: -1 }, { damaged: 2 }, { damaged: [] }]) {
    assert.throws(() => configure(bad), (e) => e instanceof PlantError && e.code === 'E_PLANT_CONFIG', JSON.stringify(bad));
  }
});

test('the random generator is seeded and stays in [0, 1)', () => {
  const a = rng(42);
  const b = rng(42);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(xs.slice(0, 5), Array.from({ length: 5 }, () => b()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(new Set(xs).size > 990, 'no short cycle');
});
