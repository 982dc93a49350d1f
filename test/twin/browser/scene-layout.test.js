'use strict';
/** Sizes and positions of the browser twin's 3D plant (twin/browser/scene-layout.mjs): plain numbers. */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { PROFILES } = require('../../../twin/plant');

const load = () => import(pathToFileURL(path.join(__dirname, '..', '..', '..', 'twin', 'browser', 'scene-layout.mjs')).href);

test('a box is drawn 0.2 m long whatever the profile; lengths scale alike', async () => {
  const { layout } = await load();
  for (const name of ['study', 'fast']) {
    const cfg = PROFILES[name];
    const L = layout(cfg);
    assert.ok(Math.abs(L.B - 0.2) < 1e-12, name);
    assert.ok(Math.abs(L.L1 / L.B - cfg.c1LengthMm / cfg.boxMm) < 1e-9, `${name}: conveyor 1 in boxes as in the model`);
    assert.equal(L.total, L.L1 + L.L2);
    assert.ok(L.W >= 0.25 && L.W > L.B, 'a belt wider than a box');
    assert.ok(L.entryZ < -L.W / 2, 'the entry tray beside the belt, on the side piston 1 pushes from');
    assert.ok(L.rejectZ > L.W / 2 && L.packZ > L.W / 2, 'the bins on the side the pistons push to');
    assert.ok(L.det > 0 && L.det < L.L1, 'the detection unit on conveyor 1');
  }
});

test('the home view\'s distance fits the plant at any aspect ratio, with nothing to spare on the tighter side', async () => {
  const { homeDistance } = await load();
  for (const aspect of [0.46, 1, 16 / 9, 3]) {
    const d = homeDistance(45, aspect, 6, 1.8);
    const v = (45 * Math.PI) / 180;
    const h = 2 * Math.atan(Math.tan(v / 2) * aspect);
    const wide = d * Math.tan(h / 2) - 3; // room left across
    const deep = d * Math.tan(v / 2) - 0.9; // room left up
    assert.ok(wide > -1e-9 && deep > -1e-9, `aspect ${aspect}: all in view`);
    assert.ok(Math.min(wide, deep) < 1e-9, `aspect ${aspect}: no closer view would do`);
  }
  assert.ok(homeDistance(45, 0.5, 6, 1.8) > homeDistance(45, 2, 6, 1.8), 'a narrow (phone) view stands back');
});

test('boxes are drawn where the model has them; the entry box moves with piston 1', async () => {
  const { layout, boxSpots } = await load();
  const L = layout(PROFILES.fast);
  const s = (p1) => ({ entry: { id: 1 }, c1: [{ id: 2, x: 500 }], c2: [{ id: 3, x: 100 }], pistons: { p1 } });
  const [entry, on1, on2] = boxSpots(s(0), L);
  assert.equal(entry.z, L.entryZ, 'on the tray');
  assert.equal(boxSpots(s(1), L)[0].z, 0, 'pushed onto the belt');
  assert.equal(on1.x, L.mm(500));
  assert.equal(on2.x, L.L1 + L.mm(100), 'conveyor 2 continues conveyor 1');
  assert.ok([entry, on1, on2].every((p) => p.y > L.H), 'on top of the belt');
  assert.deepEqual(boxSpots({ entry: null, c1: [], c2: [], pistons: { p1: 0 } }, L), []);
});

test('a bin\'s pile: rows across, rows along, then a layer up, inside the bin', async () => {
  const { pileSlot } = await load();
  const bin = { x: 1, z: 2, size: 0.5 };
  const B = 0.2;
  const per = Math.floor((bin.size - 0.04) / (B * 1.05));
  const slots = Array.from({ length: per * per + 1 }, (_, n) => pileSlot(n, bin, B));
  const first = slots.slice(0, per * per);
  assert.equal(new Set(first.map((p) => `${p.x.toFixed(6)},${p.z.toFixed(6)}`)).size, per * per, 'the first layer: every box its own place');
  assert.ok(first.every((p) => p.y === first[0].y));
  for (const p of first) {
    assert.ok(Math.abs(p.x - bin.x) + B / 2 <= bin.size / 2 + 1e-9 && Math.abs(p.z - bin.z) + B / 2 <= bin.size / 2 + 1e-9, 'inside the bin');
  }
  assert.ok(slots[per * per].y > first[0].y, 'then a layer up');
  assert.deepEqual([slots[per * per].x, slots[per * per].z], [first[0].x, first[0].z]);
});
