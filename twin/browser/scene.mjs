/**
 * The box-sorting plant in 3D (three.js): conveyor 1 with the entry and piston 1 at its start,
 * the detection unit and piston 2 (reject) on it, conveyor 2 with piston 3 (packaging) at its
 * end, the sensors, the lamp tower, a reject bin and a packaging bin with their counters. Sizes
 * come from the plant model's profile (plant.config, in mm); positions from plant.scene() every
 * frame. Nothing here decides anything: it draws what the model and the PLC say.
 *
 * This module holds the renderer, the camera and its controls; the parts are in
 * scene-layout.mjs (sizes and positions as plain numbers), scene-parts.mjs (the plant's parts)
 * and scene-boxes.mjs (the boxes). They sit beside the page's other files because the page
 * server serves that folder flat.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/OrbitControls.js';
import { layout, homeDistance } from './scene-layout.mjs';
import { buildPlant, showState } from './scene-parts.mjs';
import { createBoxes } from './scene-boxes.mjs';

/** Whether WebGL renders in software here (asked of a throwaway context). */
function softwareGl() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2') || document.createElement('canvas').getContext('webgl');
    if (!gl) return false;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    const lose = gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();
    return /swiftshader|llvmpipe|software|basic render/i.test(name);
  } catch {
    return false;
  }
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {object} cfg plant.config (mm, mm/s, ms)
 * @param {{quality?: 'auto'|'high'}} [opts]
 * @returns {{update(scene, state): void, leave(fate, box): void, render(): void, resize(): void, resetView(): void,
 *   zoom(f): void, dispose(): void, renderer: THREE.WebGLRenderer}}
 */
export function createPlantScene(canvas, cfg, opts = {}) {
  const L = layout(cfg);
  // Where WebGL runs in software (no GPU: SwiftShader, llvmpipe), multisampling and a high pixel
  // ratio cost the main thread tens of milliseconds a frame: drawn without, and the resolution
  // goes down while frames stay slow (app.mjs calls slower()). quality 'high' keeps both.
  const software = opts.quality !== 'high' && softwareGl();
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: !software, powerPreference: 'low-power' });
  let ratio = software ? 1 : Math.min(window.devicePixelRatio || 1, 2);
  renderer.setPixelRatio(ratio);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf8f9fa);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.05, 100);
  // Home view: the whole plant (lamp tower to end stop, belts to bins) in frame at any aspect.
  const home = { pos: new THREE.Vector3(), target: new THREE.Vector3(L.total / 2 + 0.05, L.H * 0.55, 0.5) };
  let moved = false; // the user has moved the camera: a resize keeps their view
  function fitHome() {
    const d = homeDistance(camera.fov, camera.aspect, L.total + 1.3, 1.8);
    const el = THREE.MathUtils.degToRad(33);
    home.pos.set(home.target.x, home.target.y + d * Math.sin(el), home.target.z + d * Math.cos(el));
  }
  fitHome();
  camera.position.copy(home.pos);
  const controls = new OrbitControls(camera, canvas);
  controls.addEventListener('start', () => { moved = true; });
  controls.target.copy(home.target);
  controls.enableDamping = true;
  controls.maxPolarAngle = Math.PI * 0.49;
  controls.minDistance = 0.5;
  controls.maxDistance = 40;
  controls.listenToKeyEvents(canvas); // arrows pan, shift+arrows orbit (the canvas takes focus)
  controls.update();
  const goHome = () => { camera.position.copy(home.pos); controls.target.copy(home.target); controls.update(); };

  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8a8a, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(2, 6, 4);
  scene.add(sun);
  const parts = buildPlant(scene, L, cfg);
  const boxes = createBoxes(scene, L, { packed: parts.packBin, rejected: parts.rejectBin });
  let lastT = performance.now();
  let pistonPos = { p1: 0, p2: 0, p3: 0 };

  function resize() {
    const w = canvas.clientWidth || 300;
    const h = canvas.clientHeight || 200;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    fitHome();
    if (!moved) goHome();
  }

  return {
    renderer,
    /**
     * Move everything to the model's current scene and the PLC's state.
     * @param {object} s plant.scene() (through the session: damage as the PLC showed it)
     * @param {{outputs: object, inputs: object, good: number|null, rejected: number|null}} st
     */
    update(s, st) {
      const t = performance.now();
      const dt = Math.min(0.1, (t - lastT) / 1000);
      lastT = t;
      pistonPos = s.pistons;
      showState(parts, s, st, dt);
      boxes.place(s, t);
    },
    /**
     * A box left the belts (the model's 'box' event): slide it into its bin, where the last few
     * pile up.
     * @param {'packed'|'rejected'} fate
     * @param {{id:number, damaged:boolean, x:number}} box
     */
    leave: (fate, box) => boxes.leave(fate, box, performance.now()),
    resize,
    render() { controls.update(); renderer.render(scene, camera); },
    resetView() { moved = false; goHome(); },
    zoom(f) {
      moved = true;
      const d = camera.position.clone().sub(controls.target).multiplyScalar(f);
      if (d.length() > controls.minDistance && d.length() < controls.maxDistance) camera.position.copy(controls.target).add(d);
      controls.update();
    },
    get pistons() { return pistonPos; },
    software,
    /** Frames are slow: draw fewer pixels (down to half the CSS resolution). @returns {number} the ratio */
    slower() {
      if (opts.quality === 'high' || ratio <= 0.5) return ratio;
      ratio = Math.max(0.5, ratio * 0.75);
      renderer.setPixelRatio(ratio);
      resize();
      return ratio;
    },
    get pixelRatio() { return ratio; },
    dispose() { controls.dispose(); renderer.dispose(); },
  };
}
