'use strict';
/**
 * The parts of the browser twin's 3D plant and its boxes (twin/browser/scene-parts.mjs,
 * scene-boxes.mjs), built into a three.js scene in Node: no WebGL is needed to build a scene
 * graph, and canvases are stand-ins that draw nothing.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { PROFILES } = require('../../../twin/plant');
const { installFakeDocument } = require('./fake-canvas');

const dir = path.join(__dirname, '..', '..', '..', 'twin', 'browser');
const load = (f) => import(pathToFileURL(path.join(dir, f)).href);

async function plant() {
  const THREE = await import('three');
  const { layout } = await load('scene-layout.mjs');
  const { buildPlant, showState, COLORS } = await load('scene-parts.mjs');
  const { createBoxes } = await load('scene-boxes.mjs');
  const scene = new THREE.Scene();
  const cfg = PROFILES.fast;
  const L = layout(cfg);
  const parts = buildPlant(scene, L, cfg);
  return { THREE, scene, cfg, L, parts, showState, COLORS, createBoxes };
}

const idle = { outputs: {}, inputs: {}, good: null, rejected: null };

test('the parts follow the model and the PLC: pistons extend, lights and lamps light, belts move only when on', async (t) => {
  t.after(installFakeDocument());
  const { parts, showState, COLORS, L } = await plant();
  const labels = [];
  parts.packBin.label.userData.set = (text) => labels.push(text);
  const s = (p2) => ({ pistons: { p1: 0, p2, p3: 0 } });
  showState(parts, s(0), idle, 0.016);
  const back = parts.p2.plate.position.z;
  showState(parts, s(1), { ...idle, outputs: { grn: 1 }, inputs: { p2f: 1, dmg: 1 }, good: 4 }, 0.016);
  assert.ok(Math.abs(parts.p2.plate.position.z - back - (L.W + 0.06)) < 0.01, 'piston 2 extended by its stroke, across the belt');
  assert.equal(parts.greenLamp.material.color.getHex(), COLORS.green);
  assert.equal(parts.redLamp.material.color.getHex(), COLORS.sensorOff);
  assert.equal(parts.damageLight.material.color.getHex(), COLORS.damageOn);
  assert.equal(parts.entrySensor.material.color.getHex(), COLORS.sensorOff);
  assert.deepEqual(labels, ['good –', 'good 4'], 'the bin counter shows the PLC\'s count');
  const x0 = parts.belt1.tex.offset.x;
  showState(parts, s(1), { ...idle, outputs: { c2: 1 } }, 0.1);
  assert.equal(parts.belt1.tex.offset.x, x0, 'conveyor 1 off: its belt stands');
  assert.notEqual(parts.belt2.tex.offset.x, 0, 'conveyor 2 on: its belt moves');
});

test('boxes: a mesh per box in the model, dropped when it is gone; a finished box slides into its bin', async (t) => {
  t.after(installFakeDocument());
  const { scene, L, parts, createBoxes } = await plant();
  const { pileSlot } = await load('scene-layout.mjs');
  const boxes = createBoxes(scene, L, { packed: parts.packBin, rejected: parts.rejectBin });
  const before = scene.children.length;
  const box1 = { id: 1, damaged: false, x: 100 };
  const box2 = { id: 2, damaged: true, x: 400 };
  boxes.place({ entry: null, c1: [box1, box2], c2: [], pistons: { p1: 0 } }, 0);
  assert.equal(boxes.count, 2);
  assert.equal(scene.children.length, before + 2);
  const meshes = scene.children.slice(before);
  assert.notEqual(meshes[0].material, meshes[1].material, 'a damaged box looks different');
  boxes.place({ entry: null, c1: [box2], c2: [], pistons: { p1: 0 } }, 10);
  assert.equal(boxes.count, 1, 'a box gone from the model is dropped');
  boxes.leave('rejected', box2, 100);
  boxes.place({ entry: null, c1: [], c2: [], pistons: { p1: 0 } }, 350);
  const m = meshes[1];
  const to = pileSlot(0, parts.rejectBin, L.B);
  assert.ok(m.position.y > to.y, 'half way: lifted over the edge');
  boxes.place({ entry: null, c1: [], c2: [], pistons: { p1: 0 } }, 600);
  const fixed = (p) => [p.x, p.y, p.z].map((v) => v.toFixed(6));
  assert.deepEqual(fixed(m.position), fixed(to), 'in its place in the reject bin');
  assert.ok(scene.children.includes(m), 'it stays in the bin');
  boxes.leave('packed', { id: 9, damaged: false, x: 50 }, 600); // finished between two frames
  assert.equal(scene.children.length, before + 2, 'drawn from where the model last had it, then into the bin');
});

test('a bin keeps the last dozen boxes', async (t) => {
  t.after(installFakeDocument());
  const { scene, L, parts, createBoxes } = await plant();
  const boxes = createBoxes(scene, L, { packed: parts.packBin, rejected: parts.rejectBin });
  const before = scene.children.length;
  for (let id = 1; id <= 15; id += 1) boxes.leave('packed', { id, damaged: false, x: 10 }, 0);
  assert.equal(scene.children.length, before + 12);
});
