'use strict';
/** The plant's mechanics one tick at a time (twin/plant/mechanics.js), on hand-made states. */
const test = require('node:test');
const assert = require('node:assert/strict');
const m = require('../../../twin/plant/mechanics');
const { PROFILES } = require('../../../twin/plant/config');

const cfg = { ...PROFILES.fast };
const B = cfg.boxMm;
const box = (id, x, damaged = false) => ({ id, x, damaged, where: 'c1' });

function state(patch = {}) {
  const s = m.createState();
  s.dt = 10;
  return Object.assign(s, patch);
}

test('a piston moves with its outputs, a full stroke in strokeMs, and reports reaching the front once', () => {
  const s = state({ dt: 20 });
  assert.equal(m.movePiston(s, 'p2', 1, 0, 40), false);
  assert.equal(s.piston.p2, 0.5);
  assert.equal(m.movePiston(s, 'p2', 1, 0, 40), true, 'reached the front in this tick');
  assert.equal(m.movePiston(s, 'p2', 1, 0, 40), false, 'it was there already');
  assert.equal(m.movePiston(s, 'p2', 1, 1, 40), false, 'both valves: it stays');
  assert.equal(s.piston.p2, 1);
  m.movePiston(s, 'p2', 0, 1, 40);
  assert.equal(s.piston.p2, 0.5);
  const blocked = state({ dt: 100 });
  m.movePiston(blocked, 'p1', 1, 0, 40, 0.9);
  assert.equal(blocked.piston.p1, 0.9, 'held short of the front while blocked');
});

test('boxes on a belt move together, queue behind each other and stop at the end', () => {
  const belt = [box(1, 900), box(2, 700)];
  m.moveBelt(belt, 1000, 50, 1000, B); // 50 mm a tick, the end stop at 1000
  assert.deepEqual(belt.map((b) => b.x), [950, 750], 'together');
  for (let i = 0; i < 10; i += 1) m.moveBelt(belt, 1000, 50, 1000, B);
  assert.deepEqual(belt.map((b) => b.x), [1000, 1000 - B], 'the first at the end stop, the second right behind it');
  const pressed = [box(1, 1000), box(2, 1000 - B / 2)]; // closer than a box (pushed on): it waits, never moves back
  m.moveBelt(pressed, 1000, 50, 1000, B);
  assert.deepEqual(pressed.map((b) => b.x), [1000, 1000 - B / 2]);
});

test('piston 1 lands the entry box only where the belt is free; stalled otherwise', () => {
  const crowded = state({ entry: { id: 2, x: 0, damaged: false, where: 'entry' }, c1: [box(1, B / 2 + 10)] });
  crowded.out.p1fw = 1;
  crowded.dt = 1000;
  m.pushEntry(crowded, cfg);
  assert.equal(crowded.piston.p1, 0.9, 'stalled short of the front');
  assert.ok(crowded.entry, 'the box stays at the entry');
  const free = state({ entry: { id: 2, x: 0, damaged: false, where: 'entry' }, c1: [box(1, B / 2 + m.landingSpacing(cfg))] });
  free.out.p1fw = 1;
  free.dt = 1000;
  m.pushEntry(free, cfg);
  assert.equal(free.entry, null);
  assert.deepEqual(free.c1.map((b) => [b.id, b.x, b.where]), [[1, B / 2 + m.landingSpacing(cfg), 'c1'], [2, B / 2, 'c1']]);
  assert.ok(m.landingSpacing(cfg) >= B + cfg.detectorMm + m.MIN_CLEARANCE_MM, 'never two boxes in the detector');
});

test('piston 2 takes the box at the detection unit (or just past it); piston 3 the box at the end stop', () => {
  const s = state({ dt: 1000, c1: [box(1, cfg.detectorAtMm + cfg.detectorMm / 2 + B / 2 + cfg.rejectReachMm - 1), box(2, 10)] });
  s.out.p2fw = 1;
  assert.equal(m.rejectAtDetector(s, cfg).id, 1);
  assert.deepEqual(s.c1.map((b) => b.id), [2]);
  s.piston.p2 = 0;
  assert.equal(m.rejectAtDetector(s, cfg), null, 'no box in reach: the piston strikes air');
  const p = state({ dt: 1000, c2: [box(3, cfg.c2LengthMm - B)] });
  p.out.p3fw = 1;
  assert.equal(m.packAtEnd(p, cfg).id, 3);
  const early = state({ dt: 1000, c2: [box(4, cfg.c2LengthMm - B - 1)] });
  early.out.p3fw = 1;
  assert.equal(m.packAtEnd(early, cfg), null, 'not at the end stop yet');
});

test('conveyor 1 hands a box over once the start of conveyor 2 is free', () => {
  const s = state({ c1: [box(1, cfg.c1LengthMm - B / 2)], c2: [box(2, B)] });
  m.runBelts(s, cfg);
  assert.equal(s.c1.length, 1, 'conveyor 2 still has a box at its start');
  s.c2[0].x = 1.5 * B;
  m.runBelts(s, cfg);
  assert.deepEqual(s.c2.map((b) => [b.id, b.where]), [[2, 'c1'], [1, 'c2']]);
  assert.equal(s.c2[1].x, B / 2);
});

test('a box arrives when its time has come, the entry is free, piston 1 home and the line runs', () => {
  const s = state({ time: 1000 });
  const plan = [true, false];
  assert.equal(m.arrive(s, cfg, plan, 2, () => false), null, 'the line is stopped');
  const b = m.arrive(s, cfg, plan, 2, () => true);
  assert.deepEqual(b, { id: 1, damaged: true, arrivedAt: 1000, where: 'entry', x: 0 });
  assert.equal(s.entry, b);
  s.entry = null;
  assert.equal(m.arrive(s, cfg, plan, 2, () => true), null, 'not before arrivalMs');
  s.time += cfg.arrivalMs;
  s.piston.p1 = 0.1;
  assert.equal(m.arrive(s, cfg, plan, 2, () => true), null, 'piston 1 not home');
  s.piston.p1 = 0;
  assert.equal(m.arrive(s, cfg, plan, 2, () => true).id, 2);
  s.entry = null;
  s.time += cfg.arrivalMs;
  assert.equal(m.arrive(s, cfg, plan, 2, () => true), null, 'every planned box arrived');
  assert.equal(s.boxes.length, 2);
});

test('sensors: what the PLC reads, for every input of the I/O table', () => {
  const s = state({ c1: [box(1, cfg.detectorAtMm, true)], c2: [box(2, cfg.c2LengthMm - B)] });
  s.piston.p1 = 1;
  const v = m.sensors(s, cfg);
  assert.deepEqual(Object.keys(v).sort(), [...m.INPUTS].sort());
  assert.deepEqual(v, { st: 0, sp: 0, se: 0, p1f: 1, p1b: 0, sd: 1, dmg: 1, p2f: 0, sk: 1, p3f: 0 });
});

test('a watching model aligns to the real plant\'s sensors: PackSensor and Piston1Front move boxes up, never past another', () => {
  const end = cfg.c2LengthMm - B;
  // PackSensor came on: the front box of conveyor 2, short of the end stop, is the one there.
  let s = state({ c2: [box(1, end - 30), box(2, end - 400)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 1);
  assert.deepEqual(s.c2.map((b) => b.x), [end, end - 400], 'the front box moved, the one behind did not');
  assert.equal(m.sensors(s, cfg).sk, 1);
  s = state({ c2: [box(1, end - 3 * B)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 1, 'further behind: the front box all the same');
  assert.equal(s.c2[0].x, end);
  s = state({ c2: [box(1, end + 10)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 0, 'there already: never backwards');
  assert.equal(s.c2[0].x, end + 10);
  // No box on conveyor 2 yet: the front box of conveyor 1, past piston 2's reach, is handed over.
  const pastReach = cfg.detectorAtMm + cfg.detectorMm / 2 + B / 2 + cfg.rejectReachMm;
  s = state({ c1: [box(1, pastReach + 20), box(2, 200)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 1);
  assert.deepEqual([s.c1.map((b) => b.id), s.c2.map((b) => [b.id, b.x, b.where])], [[2], [[1, end, 'c2']]]);
  s = state({ c1: [box(1, pastReach - 20)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 0, 'a box piston 2 may still take stays on conveyor 1');
  // Piston1Front came on with a box still at the entry: it landed.
  s = state({ entry: { id: 3, x: 0, damaged: false, where: 'entry' }, c1: [box(1, 300)] });
  s.piston.p1 = 0.9;
  assert.equal(m.alignToSensors(s, cfg, { p1f: 1 }), 1);
  assert.deepEqual([s.entry, s.piston.p1, s.c1.map((b) => [b.id, b.x])], [null, 1, [[1, 300], [3, B / 2]]]);
  assert.equal(m.alignToSensors(state(), cfg, { p1f: 1, sd: 1, sk: 1 }), 0, 'nothing to move: nothing moves');
  // Piston1Back came on: the real piston 1 is home, and so is this model's (no box moves).
  s = state();
  s.piston.p1 = 0.22;
  assert.equal(m.alignToSensors(s, cfg, { p1b: 1 }), 0);
  assert.deepEqual([s.piston.p1, m.sensors(s, cfg).p1b], [0, 1]);
});

test('a watching model follows DetectSensor: the box the unit saw goes to its start, from behind or ahead; unseen boxes wait short of it', () => {
  const zone = cfg.detectorMm / 2 + B / 2;
  const zoneStart = cfg.detectorAtMm - zone;
  const at = zoneStart + 0.5;
  // The front box the unit has not seen: a little behind, moved up; the box in front stays.
  let s = state({ c1: [box(1, 1100), box(2, zoneStart - 40)] });
  s.c1[0].detected = true;
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 1);
  assert.deepEqual(s.c1.map((b) => b.x), [1100, at]);
  assert.equal(m.sensors(s, cfg).sd, 1);
  assert.equal(s.c1[1].detected, true, 'marked seen');
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 0, 'seen once: a second rising edge moves no box');
  // Ahead of the real box (the driving page's clock fell behind): moved back to the unit's start.
  s = state({ c1: [box(1, cfg.detectorAtMm + zone + 100)] });
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 1);
  assert.equal(s.c1[0].x, at);
  // No room behind the box in front: it stays, seen.
  s = state({ c1: [box(1, at + B - 10), box(2, zoneStart - 40)] });
  s.c1[0].detected = true;
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 0);
  assert.equal(s.c1[1].detected, true);
  // DetectSensor went off: the box it saw, still inside the unit, moves up to its end.
  s = state({ c1: [box(1, at + 50)] });
  s.c1[0].detected = true;
  assert.equal(m.alignToSensors(s, cfg, {}, { sd: 0 }), 1);
  assert.deepEqual([s.c1[0].x, s.c1[0].passed], [cfg.detectorAtMm + zone, true]);
  // Where the state carries DetectSensor, a box the unit has not seen waits short of it.
  s = state({ c1: [box(1, zoneStart - 5)] });
  m.alignToSensors(s, cfg, {}, { sd: 0 });
  s.out.c1 = 1;
  m.runBelts(s, cfg);
  assert.equal(s.c1[0].x, zoneStart, 'held at the unit\'s start');
  assert.equal(m.sensors(s, cfg).sd, 0);
  m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 });
  m.runBelts(s, cfg);
  assert.ok(s.c1[0].x > at, 'seen: it rides on');
  // Where the state does not carry it (outputs only), boxes are never held.
  s = state({ c1: [box(1, zoneStart - 5)] });
  s.out.c1 = 1;
  m.runBelts(s, cfg);
  assert.ok(s.c1[0].x > zoneStart);
  // The unit saw a box while the shadow's is still at the entry: it lands seen.
  s = state({ entry: { id: 3, x: 0, damaged: false, where: 'entry' } });
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 0);
  m.alignToSensors(s, cfg, { p1f: 1 }, { sd: 1 });
  assert.equal(s.c1[0].detected, true);
});

test('a watching model\'s piston 2 and 3 reach the front with the real ones and take their box', () => {
  const s = state({ c1: [box(1, cfg.detectorAtMm + 20, true)], c2: [box(2, cfg.c2LengthMm - B)] });
  s.piston.p2 = 0.5;
  s.piston.p3 = 0.75;
  const taken = m.strokesDone(s, cfg, { p2f: 1, p3f: 1 });
  assert.deepEqual(taken.map(([fate, b]) => [fate, b.id]), [['rejected', 1], ['packed', 2]]);
  assert.deepEqual([s.piston.p2, s.piston.p3, s.c1.length, s.c2.length], [1, 1, 0, 0]);
  assert.deepEqual(m.strokesDone(s, cfg, { p2f: 1, p3f: 1 }), [], 'at the front already: its own stroke took the box');
});

test('boxes a model moved past the detection unit on its own are seen: should it follow the real DetectSensor later, they ride on', () => {
  const zoneStart = cfg.detectorAtMm - (cfg.detectorMm / 2 + B / 2);
  const s = state({ c1: [box(1, zoneStart - 5)] });
  s.out.c1 = 1;
  m.runBelts(s, cfg); // it drives: its own unit sees the box
  assert.deepEqual([s.c1[0].detected, s.c1[0].passed], [true, true]);
  // It watches now (its lease was taken), the real unit sees the next box: this one stays where it is and rides on.
  const x = s.c1[0].x;
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }, { sd: 1 }), 0);
  assert.equal(s.c1[0].x, x);
  m.runBelts(s, cfg);
  assert.ok(s.c1[0].x > x);
});
