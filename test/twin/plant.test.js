'use strict';
/**
 * The plant model on its own and in lock-step with the real PLC program (plc/program.js), on one
 * simulated clock: no sockets, no timers.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPlant, damagePlan, PlantError, INPUTS } = require('../../twin/plant');
const { runLockStep } = require('../helpers/twin');

test('the damage plan is seeded, or follows an explicit pattern', () => {
  assert.deepEqual(damagePlan(20, 0.3, 7), damagePlan(20, 0.3, 7));
  assert.notDeepEqual(damagePlan(50, 0.5, 1), damagePlan(50, 0.5, 2));
  assert.deepEqual(damagePlan(5, '01', 1), [false, true, false, true, false]);
  assert.deepEqual(damagePlan(3, [1, 0, 0], 1), [true, false, false]);
  assert.equal(damagePlan(100, 0, 1).filter(Boolean).length, 0);
  assert.equal(damagePlan(100, 1, 1).filter(Boolean).length, 100);
  assert.throws(() => damagePlan(3, 1.5, 1), (e) => e instanceof PlantError && e.code === 'E_PLANT_CONFIG');
  assert.throws(() => createPlant({ profile: 'warp' }), { code: 'E_PLANT_CONFIG' });
});

test('at rest: every input known, piston 1 home, one frame per tick of changes only', () => {
  const plant = createPlant({ boxes: 1 });
  const all = plant.inputs();
  assert.deepEqual(Object.keys(all).sort(), [...INPUTS].sort());
  assert.equal(all.p1b, 1);
  const frames = [];
  plant.on('inputs', (d) => frames.push(d));
  assert.deepEqual(plant.tick(10), { st: 0, sp: 0, se: 0, p1f: 0, p1b: 1, sd: 0, dmg: 0, p2f: 0, sk: 0, p3f: 0 });
  assert.deepEqual(plant.tick(10), {}); // nothing changed: no frame
  assert.equal(frames.length, 1);
});

test('buttons are momentary: pressed, then released after the hold time', () => {
  const plant = createPlant({ boxes: 0, buttonHoldMs: 30 });
  plant.tick(1);
  plant.press('st');
  assert.deepEqual(plant.tick(10), { st: 1 });
  assert.deepEqual(plant.tick(10), {});
  assert.deepEqual(plant.tick(10), { st: 0 });
  assert.throws(() => plant.press('go'), { code: 'E_PLANT_BUTTON' });
});

test('boxes only arrive while the PLC runs the plant; piston 1 follows p1fw/p1bw', () => {
  const plant = createPlant({ boxes: 2 });
  plant.tick(500);
  assert.equal(plant.summary().arrived, 0);
  plant.applyOutputs({ grn: 1, c1: 1, c2: 1 });
  assert.equal(plant.tick(1).se, 1);
  plant.applyOutputs({ p1fw: 1 });
  assert.equal(plant.tick(1).p1b, 0);
  const d = plant.tick(100);
  assert.equal(d.p1f, 1);
  assert.equal(d.se, 0, 'the box left the entry when the piston reached the front');
  plant.applyOutputs({ p1fw: 0, p1bw: 1 });
  assert.equal(plant.tick(1).p1f, 0);
  assert.equal(plant.tick(100).p1b, 1);
});

test('describe says where every box and piston is, and what the PLC last said (for stall reports)', () => {
  const plant = createPlant({ boxes: 2, damaged: '01' });
  plant.applyOutputs({ grn: 1, c1: 1, c2: 1 });
  plant.tick(1);
  assert.match(plant.describe(), /^t=1 ms; entry 1@0; c1 \[\]; c2 \[\]; pistons p1 0\.00 p2 0\.00 p3 0\.00; PLC outputs c1,c2,grn; inputs sent se,p1b$/);
  plant.applyOutputs({ p1fw: 1 });
  plant.tick(100);
  assert.match(plant.describe(), /entry -; c1 \[1@\d+\]; .*p1 1\.00 .*PLC outputs c1,p1fw,c2,grn; inputs sent p1f/);
});

test('lock-step with the PLC program: 20 boxes, 30% damaged, all sorted correctly', () => {
  const plant = createPlant({ boxes: 20, damaged: 0.3, seed: 3, profile: 'fast' });
  const events = [];
  plant.on('box', (ev, box) => events.push([ev, box.id]));
  const r = runLockStep(plant, { scanMs: 10 });
  const s = r.summary;
  assert.equal(s.done, true);
  assert.equal(s.packed + s.rejected, 20);
  assert.equal(s.rejected, s.damaged);
  assert.equal(s.missorted, 0);
  assert.equal(r.outputs.ng, s.packed, 'the PLC counted the same packed boxes');
  assert.equal(r.outputs.nr, s.rejected);
  assert.equal(r.outputs.nb, 20);
  assert.ok(s.damaged > 0 && s.damaged < 20);
  assert.equal(events.filter(([e]) => e === 'arrived').length, 20);
  assert.ok(r.time < 15000, `fast profile: 20 boxes in a few seconds of plant time (took ${r.time} ms)`);
});

test('lock-step with 100 ms each way (a slow WAN) still sorts every box correctly', () => {
  const plant = createPlant({ boxes: 20, damaged: '0110', profile: 'fast' });
  const s = runLockStep(plant, { scanMs: 10, latencyMs: 100 }).summary;
  assert.equal(s.done, true);
  assert.equal(s.missorted, 0);
  assert.equal(s.rejected, 10);
});

test('study profile sorts correctly too', () => {
  const plant = createPlant({ boxes: 4, damaged: '10', profile: 'study' });
  const s = runLockStep(plant, { scanMs: 10, tickMs: 5, latencyMs: 40, maxMs: 200000 }).summary;
  assert.equal(s.done, true);
  assert.equal(s.missorted, 0);
});

test('a loop too slow for the plant mis-sorts damaged boxes, and the model notices', () => {
  const plant = createPlant({ boxes: 6, damaged: '1', profile: 'fast' });
  const s = runLockStep(plant, { scanMs: 10, latencyMs: 500, maxMs: 120000 }).summary;
  assert.ok(s.missorted > 0, JSON.stringify(s));
  assert.equal(s.done, true);
});

/**
 * The plant as a path that only samples its inputs every `periodMs` (Modbus polling, OPC UA
 * sampling) sees it: a change and its undoing within one period never reach the PLC.
 */
function sampledEvery(plant, periodMs) {
  const cbs = [];
  let seen = plant.inputs();
  let next = periodMs;
  return {
    ...plant,
    get done() { return plant.done; },
    on(ev, cb) { if (ev === 'inputs') cbs.push(cb); else plant.on(ev, cb); return this; },
    tick(dt) {
      plant.tick(dt);
      if (plant.time < next) return;
      next += periodMs;
      const now = plant.inputs();
      const changed = Object.fromEntries(Object.entries(now).filter(([k, v]) => seen[k] !== v));
      seen = now;
      if (Object.keys(changed).length) for (const cb of cbs) cb(changed);
    },
  };
}

test('between two boxes the detection unit reports no box for detectorGapMs, so a sampled path sees every box', () => {
  // Record how long sd stays 0 between two boxes, in plant time.
  const plant = createPlant({ boxes: 20, damaged: 0.5, seed: 2, profile: 'fast' });
  const lows = [];
  let sd = 0;
  let fellAt = null;
  plant.on('inputs', (d) => {
    if (d.sd === 0 && sd === 1) fellAt = plant.time;
    if (d.sd === 1 && sd === 0 && fellAt !== null) lows.push(plant.time - fellAt);
    if (d.sd !== undefined) sd = d.sd;
  });
  assert.equal(runLockStep(plant, { scanMs: 10 }).summary.missorted, 0);
  assert.ok(lows.length >= 10, `sd fell and rose again between boxes (${lows.length} gaps)`);
  assert.ok(Math.min(...lows) >= plant.config.detectorGapMs, `shortest gap ${Math.min(...lows)} ms`);

  // Polled every 80 ms (the study's Modbus interval): every damaged box is still rejected.
  const polled = createPlant({ boxes: 20, damaged: 0.5, seed: 2, profile: 'fast' });
  const s = runLockStep(sampledEvery(polled, 80), { scanMs: 10 }).summary;
  assert.equal(s.done, true);
  assert.equal(s.missorted, 0, JSON.stringify(s));

  // With no gap (the old spacing) the same poll merges boxes: sd does not fall between some of
  // them. The PLC judges the box while it is at the detector (not on sd's rising edge alone), so
  // a damaged box merged behind an intact one is still rejected.
  const tight = sampledEvery(createPlant({ boxes: 20, damaged: 0.5, seed: 2, profile: 'fast', detectorGapMs: 0 }), 80);
  let rises = 0;
  let seen = 0;
  tight.on('inputs', (d) => {
    if (d.sd === 1 && seen === 0) rises += 1;
    if (d.sd !== undefined) seen = d.sd;
  });
  const st = runLockStep(tight, { scanMs: 10 }).summary;
  assert.ok(rises < 20, `boxes merged at the detector: ${rises} rising edges of sd for 20 boxes`);
  assert.equal(st.done, true);
  assert.equal(st.missorted, 0, JSON.stringify(st));
});

test('feed: boxes put in by hand arrive one at a time, with the damage asked for, and done follows them', () => {
  const plant = createPlant({ boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  const done = [];
  plant.on('done', (s) => done.push(s));
  plant.tick(10);
  assert.equal(plant.summary().arrived, 0, 'nothing fed, nothing arrives');
  assert.equal(plant.feed(true), 1);
  assert.equal(plant.feed(false), 2);
  assert.equal(plant.tick(10).se, 1, 'a fed box arrives even while stopped (feedWhileStopped)');
  assert.equal(plant.summary().arrived, 1, 'the second waits: the entry is taken');
  const r = runLockStep(plant, { scanMs: 10 });
  assert.equal(r.summary.packed, 1);
  assert.equal(r.summary.rejected, 1);
  assert.equal(r.summary.missorted, 0);
  assert.equal(done.length, 1);
  plant.feed(false);
  assert.equal(plant.done, false, 'a new box makes the plant busy again');
});

test('scene: boxes on each conveyor, piston strokes, buttons and outputs, as copies', () => {
  const plant = createPlant({ boxes: 2, damaged: '10' });
  plant.applyOutputs({ grn: 1, c1: 1, c2: 1 });
  plant.tick(1);
  let s = plant.scene();
  assert.deepEqual(s.entry, { id: 1, damaged: true, x: 0 });
  assert.deepEqual(s.c1, []);
  assert.deepEqual(s.pistons, { p1: 0, p2: 0, p3: 0 });
  assert.equal(s.outputs.grn, 1);
  plant.applyOutputs({ p1fw: 1 });
  plant.tick(20);
  assert.equal(plant.scene().pistons.p1, 0.5, 'half its 40 ms stroke');
  plant.tick(20);
  s = plant.scene();
  assert.equal(s.entry, null);
  assert.equal(s.c1.length, 1);
  s.c1[0].x = -1;
  assert.notEqual(plant.scene().c1[0].x, -1, 'the caller gets copies');
});

test('the plant\'s inputs and outputs are the I/O table\'s (no list of its own)', () => {
  const tags = require('../../nodes/lib/core/io-table').demoTable();
  const { OUTPUTS } = require('../../twin/plant');
  assert.deepEqual(INPUTS, ['st', 'sp', 'se', 'p1f', 'p1b', 'sd', 'dmg', 'p2f', 'sk', 'p3f']);
  assert.deepEqual(INPUTS, tags.inputs.map((t) => t.short));
  assert.deepEqual(OUTPUTS, tags.outputs.filter((t) => !t.noStream).map((t) => t.short));
  assert.ok(!OUTPUTS.includes('scn'), 'the diagnostic scan counter is never streamed');
});

test('a watching model: a box it was told of that has not arrived (its piston was not home) lands when the real Piston1Front comes on', () => {
  const p = createPlant({ profile: 'fast', boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  p.applyOutputs({ p1fw: 1, c1: 1 });
  p.tick(20); // its piston is on its way forward, no box
  p.feed(false); // the real entry sensor showed a box
  p.tick(0);
  assert.equal(p.scene().entry, null, 'not at its entry: the piston is not home');
  const arrived = [];
  p.on('box', (ev, b) => arrived.push([ev, b.id]));
  p.align({ p1f: 1 });
  assert.deepEqual(arrived, [['arrived', 1]]);
  assert.deepEqual(p.scene().c1.map((b) => b.id), [1], 'it landed on conveyor 1');
  assert.equal(p.align({ p1f: 1 }), 0, 'nothing more was fed: nothing more arrives');
});
