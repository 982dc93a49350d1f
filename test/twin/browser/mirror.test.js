'use strict';
/** A watching page's shadow boxes (twin/browser/mirror.js) on a real plant model. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createMirror } = require('../../../twin/browser/mirror');
const { createPlant } = require('../../../twin/plant');

function shadow() {
  const plant = createPlant({ profile: 'fast', boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  const counters = { followed: 0, markedDamaged: 0 };
  return { plant, counters, mirror: createMirror(plant, counters) };
}

test('a box appears for every box the driver\'s entry sensor showed, or piston 1 pushed, never twice', () => {
  const { plant, counters, mirror } = shadow();
  mirror.follow({}, { se: 1 });
  assert.equal(counters.followed, 1);
  assert.ok(plant.scene().entry, 'at the shadow\'s entry at once');
  mirror.follow({ se: 1 }, { p1fw: 1 }); // the same box pushed: not a second one
  assert.equal(counters.followed, 1);
  mirror.follow({ se: 1, p1fw: 1 }, { se: 1 }); // se still high: no new edge
  assert.equal(counters.followed, 1);
  mirror.follow({ se: 0, p1fw: 0 }, { p1fw: 1 }); // a path that streams outputs only: the push counts
  assert.equal(counters.followed, 2);
  assert.equal(plant.summary().boxes, 2);
});

test('the box at the detection unit is drawn damaged when the PLC\'s state says so', () => {
  const { plant, counters, mirror } = shadow();
  mirror.follow({}, { se: 1 });
  plant.applyOutputs({ p1fw: 1, c1: 1 });
  for (let t = 0; t < 2000 && !plant.scene().c1.some((b) => Math.abs(b.x - plant.config.detectorAtMm) < 10); t += 5) plant.tick(5);
  const id = plant.scene().c1[0].id;
  assert.equal(mirror.mark(plant.scene()).c1[0].damaged, false, 'the shadow\'s own plan knows nothing of the damage');
  mirror.follow({}, { dmg: 1 });
  mirror.follow({}, { dmg: 1 });
  assert.equal(counters.markedDamaged, 1, 'marked once');
  const s = mirror.mark(plant.scene());
  assert.equal(s.c1.find((b) => b.id === id).damaged, true);
});

test('where the PLC\'s state carries the sensors, the shadow\'s boxes keep up with the driver\'s', () => {
  const { plant, counters, mirror } = shadow();
  mirror.follow({}, { se: 1 });
  mirror.follow({ se: 1 }, { p1fw: 1, c1: 1, c2: 1 });
  plant.applyOutputs({ p1fw: 1, c1: 1, c2: 1 });
  const end = plant.config.c2LengthMm - plant.config.boxMm;
  for (let t = 0; t < 2000 && !(plant.scene().c2.length && plant.scene().c2[0].x >= end - 60); t += 1) plant.tick(1);
  const x = plant.scene().c2[0].x;
  assert.ok(x < end, `not at the end stop yet (${x})`);
  // The driver's box reached PackSensor a little earlier than the shadow's: conveyor 2 stops now.
  mirror.follow({ sk: 0 }, { sk: 1, c2: 0 });
  plant.applyOutputs({ c2: 0 });
  assert.equal(counters.aligned, 1);
  assert.equal(plant.inputs().sk, 1, 'the shadow\'s box is at the end stop too');
  plant.applyOutputs({ p3fw: 1 });
  const packed = [];
  plant.on('box', (ev) => packed.push(ev));
  for (let t = 0; t < 200; t += 5) plant.tick(5);
  assert.deepEqual(packed, ['packed'], 'piston 3 packs it');
});

test('the shadow\'s piston 1 is home when the driver\'s is: a page that takes over lets the next box in', () => {
  // The shadow runs behind the driver: its piston 1 is still on its way back when the driver's
  // reaches home and the PLC stops driving it back. Piston 1 is double-acting: left alone, the
  // shadow's would stay short of home, and a page that took over the plant would let no box in.
  const { plant, mirror } = shadow();
  mirror.follow({}, { se: 1 });
  mirror.follow({ se: 1 }, { p1fw: 1, c1: 1 });
  plant.applyOutputs({ p1fw: 1, c1: 1 });
  for (let t = 0; t < 2000 && plant.scene().entry; t += 5) plant.tick(5);
  assert.equal(plant.scene().entry, null, 'the box landed');
  plant.applyOutputs({ p1fw: 0, p1bw: 1 });
  plant.tick(plant.config.p1StrokeMs / 4);
  assert.ok(plant.scene().pistons.p1 > 0.5, `on its way back (${plant.scene().pistons.p1})`);
  mirror.follow({ p1b: 0, p1bw: 1 }, { p1b: 1, p1bw: 0 }); // the driver's piston 1 is home
  plant.applyOutputs({ p1bw: 0 });
  assert.equal(plant.scene().pistons.p1, 0);
  assert.equal(plant.inputs().p1b, 1, 'the shadow tells the PLC what the driver told it');
  plant.drive(); // this page takes over
  plant.feed(false);
  for (let t = 0; t < 100 && !plant.scene().entry; t += 5) plant.tick(5);
  assert.ok(plant.scene().entry, 'the next box arrives');
});

test('outputs only: the shadow\'s piston 1, behind the driver\'s, lands its box when the PLC takes the valve back; every box comes in', () => {
  // The driver's piston 1 reached the front (Piston1Forward off, Piston1Backward on) while the
  // shadow's was still on its way: turned back short of the front, it would leave its box at the
  // entry, and the next box the PLC pushed could never come in.
  const { plant, counters, mirror } = shadow();
  const plc = {};
  const state = (values) => { mirror.follow({ ...plc }, values); Object.assign(plc, values); plant.applyOutputs(values); };
  state({ p1fw: 0, p1bw: 0, c1: 1, c2: 1 }); // the snapshot: outputs only
  for (let box = 1; box <= 3; box += 1) {
    state({ p1fw: 1 });
    plant.tick(plant.config.p1StrokeMs / 4);
    assert.ok(plant.scene().pistons.p1 < 1, `box ${box}: the shadow's piston 1 is short of the front (${plant.scene().pistons.p1})`);
    state({ p1fw: 0, p1bw: 1 });
    assert.equal(plant.scene().entry, null, `box ${box} landed on conveyor 1`);
    state({ p1bw: 0 });
    assert.equal(plant.scene().pistons.p1, 0, 'and piston 1 is home, as the driver\'s is');
    for (let t = 0; t < 3000; t += 10) plant.tick(10); // conveyor 1 carries it on
  }
  assert.equal(counters.followed, 3);
  assert.equal(plant.summary().arrived, 3);
});

test('sensors carried: Piston1Backward coming on lands nothing; the next box waits for the driver\'s Piston1Front', () => {
  const { plant, mirror } = shadow();
  const plc = {};
  const state = (values) => { mirror.follow({ ...plc }, values); Object.assign(plc, values); plant.applyOutputs(values); };
  state({ se: 0, p1f: 0, p1b: 1, p1fw: 0, p1bw: 0, c1: 1, c2: 1 }); // the snapshot carries the inputs
  state({ se: 1 });
  state({ p1fw: 1 });
  state({ p1f: 1, p1b: 0, se: 0 }); // the driver's box 1 landed
  assert.equal(plant.scene().c1.length, 1);
  state({ se: 1 }); // box 2 at the driver's entry while its piston 1 is still forward
  state({ p1fw: 0, p1bw: 1 });
  assert.equal(plant.scene().c1.length, 1, 'box 2 is not on conveyor 1: its piston 1 has not pushed it');
  assert.equal(plant.summary().arrived, 1, 'nor at the entry: piston 1 is not home');
});
