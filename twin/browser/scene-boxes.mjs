/**
 * The boxes of the browser twin's 3D plant: one mesh per box id, made when the box first shows
 * in the model's scene and dropped when it has left; a box that leaves the belts (packed or
 * rejected) slides into its bin, where the last few pile up. Damaged boxes carry crack marks
 * (not colour alone).
 */
import * as THREE from 'three';
import { boxTexture } from './scene-parts.mjs';
import { boxSpots, pileSlot } from './scene-layout.mjs';

const MAX_PILE = 12; // boxes kept in a bin; older ones are taken away
const SLIDE_MS = 500; // a box's slide into its bin

/**
 * @param {THREE.Scene} scene
 * @param {object} L scene-layout.mjs layout()
 * @param {{packed: {x: number, z: number, size: number}, rejected: {x: number, z: number, size: number}}} bins
 * @returns {{place(s: object, t: number): void, leave(fate: string, box: object, t: number): void, count: number}}
 */
export function createBoxes(scene, L, bins) {
  const { B } = L;
  const mats = {
    intact: new THREE.MeshStandardMaterial({ map: boxTexture(false), roughness: 0.9 }),
    damaged: new THREE.MeshStandardMaterial({ map: boxTexture(true), roughness: 0.9 }),
  };
  const geo = new THREE.BoxGeometry(B, B * 0.8, B * 0.8);
  const boxes = new Map(); // id -> mesh
  const leaving = []; // {mesh, from, to, t0}
  const piles = { packed: [], rejected: [] };

  function meshFor(b) {
    let m = boxes.get(b.id);
    if (!m) {
      m = new THREE.Mesh(geo, b.damaged ? mats.damaged : mats.intact);
      scene.add(m);
      boxes.set(b.id, m);
    }
    const want = b.damaged ? mats.damaged : mats.intact;
    if (m.material !== want) m.material = want;
    return m;
  }

  return {
    /**
     * Every box where the model has it; boxes gone from the model are dropped; sliding boxes move on.
     * @param {object} s plant.scene()
     * @param {number} t now, ms
     */
    place(s, t) {
      const here = new Set();
      for (const { box, x, y, z } of boxSpots(s, L)) {
        meshFor(box).position.set(x, y, z);
        here.add(box.id);
      }
      for (const [id, m] of boxes) {
        if (!here.has(id) && !leaving.some((l) => l.mesh === m)) { scene.remove(m); boxes.delete(id); }
      }
      for (let i = leaving.length - 1; i >= 0; i--) {
        const l = leaving[i];
        const k = Math.min(1, (t - l.t0) / SLIDE_MS);
        l.mesh.position.lerpVectors(l.from, l.to, k);
        l.mesh.position.y += Math.sin(k * Math.PI) * 0.05;
        if (k >= 1) leaving.splice(i, 1);
      }
    },
    /**
     * A box left the belts (the model's 'box' event): it slides into its bin.
     * @param {'packed'|'rejected'} fate
     * @param {{id: number, damaged: boolean, x: number}} box
     * @param {number} t now, ms
     */
    leave(fate, box, t) {
      let m = boxes.get(box.id);
      if (!m) { // finished between two frames: it starts where the model last had it
        m = meshFor(box);
        m.position.set(fate === 'packed' ? L.L1 + L.mm(box.x) : L.mm(box.x), L.H + B * 0.4, 0);
      }
      boxes.delete(box.id);
      const pile = piles[fate];
      pile.push(m);
      if (pile.length > MAX_PILE) scene.remove(pile.shift());
      const to = pileSlot(pile.length - 1, bins[fate], B);
      leaving.push({ mesh: m, from: m.position.clone(), to: new THREE.Vector3(to.x, to.y, to.z), t0: t });
    },
    /** Boxes drawn on the belts (not those in the bins). */
    get count() { return boxes.size; },
  };
}
