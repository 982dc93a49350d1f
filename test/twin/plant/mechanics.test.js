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

test('a watching model aligns to the real plant\'s sensors: a box a little behind moves up, never far, never past another', () => {
  const zoneStart = cfg.detectorAtMm - (cfg.detectorMm / 2 + B / 2);
  const end = cfg.c2LengthMm - B;
  // PackSensor came on: the front box of conveyor 2, 30 mm short of it, moves up; the sensor of the shadow then agrees.
  let s = state({ c2: [box(1, end - 30)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 1);
  assert.equal(s.c2[0].x, end);
  assert.equal(m.sensors(s, cfg).sk, 1);
  s = state({ c2: [box(1, end - B - 1)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 0, 'more than a box length behind: not this box');
  s = state({ c2: [box(1, end + 10)] });
  assert.equal(m.alignToSensors(s, cfg, { sk: 1 }), 0, 'there already: never backwards');
  assert.equal(s.c2[0].x, end + 10);
  // DetectSensor came on: the box just short of the detection unit moves into it.
  s = state({ c1: [box(1, 1100), box(2, zoneStart - 40)] });
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }), 1);
  assert.equal(m.sensors(s, cfg).sd, 1);
  assert.equal(s.c1[0].x, 1100, 'the box in front stays where it is');
  s = state({ c1: [box(1, zoneStart + 10), box(2, zoneStart - 40)] });
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }), 0, 'a box is in the unit already');
  s = state({ c1: [box(1, zoneStart + 0.5 + B - 10), box(2, zoneStart - 40)] });
  assert.equal(m.alignToSensors(s, cfg, { sd: 1 }), 0, 'no room behind the box in front');
  // Piston1Front came on with a box still at the entry: it landed.
  s = state({ entry: { id: 3, x: 0, damaged: false, where: 'entry' }, c1: [box(1, 300)] });
  s.piston.p1 = 0.9;
  assert.equal(m.alignToSensors(s, cfg, { p1f: 1 }), 1);
  assert.deepEqual([s.entry, s.piston.p1, s.c1.map((b) => [b.id, b.x])], [null, 1, [[1, 300], [3, B / 2]]]);
  assert.equal(m.alignToSensors(state(), cfg, { p1f: 1, sd: 1, sk: 1 }), 0, 'nothing to move: nothing moves');
});
