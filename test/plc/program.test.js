'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const program = require('../../plc/program');
const tags = require('../../nodes/lib/core/io-table').demoTable();

/** A scan driver: holds the state and the current inputs, one call = one scan. */
function plant() {
  let state = program.initialState();
  const inputs = { p1b: 1 }; // piston 1 rests at its back end position
  let outputs = program.outputsOf(state);
  return {
    scan(changes = {}) {
      Object.assign(inputs, changes);
      const r = program.scan(state, inputs);
      state = r.state;
      outputs = r.outputs;
      return outputs;
    },
    get state() { return state; },
    get out() { return outputs; },
  };
}

test('outputs cover exactly the output tags of the I/O table', () => {
  assert.deepEqual(Object.keys(program.outputsOf(program.initialState())).sort(), tags.outputs.map((t) => t.short).sort());
});

test('scan is pure: the previous state is not modified', () => {
  const s0 = program.initialState();
  const copy = structuredClone(s0);
  program.scan(s0, { st: 1 });
  assert.deepEqual(s0, copy);
});

test('start button rising edge sets Running; holding it does nothing more; stop resets', () => {
  const p = plant();
  assert.equal(p.scan().grn, 0);
  let o = p.scan({ st: 1 });
  assert.equal(o.grn, 1);
  assert.equal(o.c1, 1);
  assert.equal(o.c2, 1);
  o = p.scan({ st: 0 });
  assert.equal(o.grn, 1, 'latched after release');
  o = p.scan({ sp: 1 });
  assert.deepEqual([o.grn, o.c1, o.c2], [0, 0, 0]);
  o = p.scan({ sp: 0 });
  assert.equal(o.grn, 0, 'stays stopped after stop is released');
});

test('start with stop held does not start; holding start through a stop needs a new edge', () => {
  const p = plant();
  assert.equal(p.scan({ st: 1, sp: 1 }).grn, 0);
  assert.equal(p.scan({ sp: 0 }).grn, 0, 'start still held: no new rising edge');
  p.scan({ st: 0 });
  assert.equal(p.scan({ st: 1 }).grn, 1);
});

test('intact box: feed, pass the detector, pack, GoodCount', () => {
  const p = plant();
  p.scan({ st: 1 });
  p.scan({ st: 0 });
  // Box at the entry: piston 1 goes forward, BoxesIn counts.
  let o = p.scan({ se: 1 });
  assert.deepEqual([o.p1fw, o.p1bw, o.nb], [1, 0, 1]);
  assert.equal(p.state.p1Cycle, 1);
  o = p.scan({ se: 0, p1b: 0 });
  assert.equal(o.p1fw, 1, 'still pushing until the front end position');
  // Front end position: retract.
  o = p.scan({ p1f: 1 });
  assert.deepEqual([o.p1fw, o.p1bw], [0, 1]);
  o = p.scan({ p1f: 0 });
  assert.deepEqual([o.p1fw, o.p1bw], [0, 1]);
  // Back end position: cycle over.
  o = p.scan({ p1b: 1 });
  assert.deepEqual([o.p1fw, o.p1bw], [0, 0]);
  assert.equal(p.state.p1Cycle, 0);
  // Detector sees an intact box: nothing happens, conveyor 1 keeps running.
  o = p.scan({ sd: 1, dmg: 0 });
  assert.deepEqual([o.p2fw, o.red, o.c1], [0, 0, 1]);
  p.scan({ sd: 0 });
  // Pack sensor: conveyor 2 stops, piston 3 forward.
  o = p.scan({ sk: 1 });
  assert.deepEqual([o.p3fw, o.c2], [1, 0]);
  o = p.scan({ sk: 0, p3f: 1 });
  assert.deepEqual([o.p3fw, o.c2, o.ng, o.nr], [0, 1, 1, 0]);
  p.scan({ p3f: 0 });
  assert.equal(p.out.ng, 1);
});

test('damaged box: reject with piston 2 and red lamp, conveyor 1 held, RejectCount', () => {
  const p = plant();
  p.scan({ st: 1 });
  let o = p.scan({ st: 0, sd: 1, dmg: 1 });
  assert.deepEqual([o.p2fw, o.red, o.c1, o.c2], [1, 1, 0, 1]);
  assert.equal(p.state.rejectActive, 1);
  o = p.scan({ sd: 0, dmg: 0 });
  assert.deepEqual([o.p2fw, o.red, o.c1], [1, 1, 0], 'held until piston 2 is out');
  o = p.scan({ p2f: 1 });
  assert.deepEqual([o.p2fw, o.red, o.c1, o.nr, o.ng], [0, 0, 1, 1, 0]);
  o = p.scan({ p2f: 0 });
  assert.equal(o.nr, 1);
});

test('damage flag without a detector edge does nothing; a held detector fires once', () => {
  const p = plant();
  p.scan({ st: 1 });
  let o = p.scan({ dmg: 1 });
  assert.equal(o.p2fw, 0);
  o = p.scan({ sd: 1 });
  assert.equal(o.p2fw, 1);
  o = p.scan({ p2f: 1 });
  assert.equal(o.p2fw, 0);
  o = p.scan({ p2f: 0 }); // sd still held: no new edge, no new reject
  assert.deepEqual([o.p2fw, o.nr], [0, 1]);
});

test('dmg one scan after sd (one S7 job, two scans): the box at the detector is still rejected, once', () => {
  const p = plant();
  p.scan({ st: 1 });
  p.scan({ st: 0 });
  let o = p.scan({ sd: 1, dmg: 0 });
  assert.equal(o.p2fw, 0);
  o = p.scan({ sd: 1, dmg: 1 });
  assert.deepEqual([o.p2fw, o.red], [1, 1], 'judged while at the detector');
  o = p.scan({ sd: 1, dmg: 1, p2f: 1 });
  assert.deepEqual([o.p2fw, o.nr], [0, 1]);
  o = p.scan({ sd: 1, dmg: 1, p2f: 0 });
  assert.deepEqual([o.p2fw, o.nr], [0, 1], 'the same box is not rejected twice');
  p.scan({ sd: 0, dmg: 0 });
  o = p.scan({ sd: 1, dmg: 1 });
  assert.deepEqual([o.p2fw, o.nr], [1, 1], 'the next damaged box is');
});

test('edges are tracked while stopped: a sensor that rose while stopped does not fire after start', () => {
  const p = plant();
  p.scan({ sk: 1, sd: 1, dmg: 1 });
  let o = p.scan({ st: 1 });
  assert.equal(o.grn, 1);
  assert.deepEqual([o.p3fw, o.p2fw], [0, 0]);
  p.scan({ sk: 0, sd: 0 });
  o = p.scan({ sk: 1 });
  assert.equal(o.p3fw, 1);
});

test('nothing starts while stopped', () => {
  const p = plant();
  const o = p.scan({ se: 1, sd: 1, dmg: 1, sk: 1 });
  assert.deepEqual([o.p1fw, o.p2fw, o.p3fw, o.nb], [0, 0, 0, 0]);
});

test('stop in the middle: conveyors stop, the piston finishes its stroke, restart continues', () => {
  const p = plant();
  p.scan({ st: 1 });
  p.scan({ st: 0, se: 1 });
  assert.equal(p.out.p1fw, 1);
  let o = p.scan({ sp: 1, se: 0, p1b: 0 });
  assert.deepEqual([o.grn, o.c1, o.c2, o.p1fw], [0, 0, 0, 1]);
  o = p.scan({ sp: 0, p1f: 1 });
  assert.deepEqual([o.p1fw, o.p1bw], [0, 1], 'comes home while stopped');
  o = p.scan({ p1f: 0, p1b: 1 });
  assert.deepEqual([o.p1fw, o.p1bw], [0, 0]);
  assert.equal(p.state.p1Cycle, 0);
  // A new box while stopped is not fed.
  o = p.scan({ se: 1 });
  assert.equal(o.p1fw, 0);
  // Restart: fed on the start scan itself (se is already there).
  o = p.scan({ st: 1 });
  assert.deepEqual([o.grn, o.p1fw, o.nb], [1, 1, 2]);
});

test('piston 1 does not feed while it is at the front end position', () => {
  const p = plant();
  p.scan({ st: 1 });
  const o = p.scan({ st: 0, se: 1, p1f: 1 });
  assert.equal(o.p1fw, 0);
});

test('a second pack edge during packaging is ignored; counters count each box once', () => {
  const p = plant();
  p.scan({ st: 1 });
  p.scan({ st: 0, sk: 1 });
  p.scan({ sk: 0 });
  let o = p.scan({ sk: 1 });
  assert.equal(o.p3fw, 1);
  o = p.scan({ p3f: 1 });
  assert.equal(o.ng, 1);
  p.scan({ p3f: 0, sk: 0 });
  for (let n = 0; n < 5; n++) {
    p.scan({ sk: 1 });
    p.scan({ sk: 0, p3f: 1 });
    p.scan({ p3f: 0 });
  }
  assert.equal(p.out.ng, 6);
});

test('counters wrap like S7 INT / DINT; ScanCount counts scans', () => {
  let s = { ...program.initialState(), running: 1, good: 32767, boxesIn: 2147483647, p3fw: 1, packActive: 1 };
  let r = program.scan(s, { p3f: 1 });
  assert.equal(r.outputs.ng, -32768);
  s = { ...r.state, p1Cycle: 0 };
  r = program.scan(s, { se: 1 });
  assert.equal(r.outputs.nb, -2147483648);
  assert.equal(r.outputs.scn, 2);
});

test('markersOf names the table markers', () => {
  const s = { ...program.initialState(), running: 1, p1Cycle: 1 };
  assert.deepEqual(program.markersOf(s), { Running: 1, RejectActive: 0, PackActive: 0, Piston1Cycle: 1 });
  assert.deepEqual(Object.keys(program.markersOf(s)).sort(), tags.TABLE.markers.map((m) => m.name).sort());
});
