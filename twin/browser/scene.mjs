/**
 * The box-sorting plant in 3D (three.js): conveyor 1 with the entry and piston 1 at its start,
 * the detection unit and piston 2 (reject) on it, conveyor 2 with piston 3 (packaging) at its
 * end, the sensors, the lamp tower, a reject bin and a packaging bin with their counters. Sizes
 * come from the plant model's profile (plant.config, in mm); positions from plant.scene() every
 * frame. Nothing here decides anything: it draws what the model and the PLC say.
 *
 * Axes: x along the conveyors (conveyor 2 continues conveyor 1), y up, z across (the pistons
 * push towards +z). One scene unit is one metre.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/OrbitControls.js';

const COLORS = {
  floor: 0xe9ecef, frame: 0x6c757d, belt: 0x2b2f33, beltStripe: 0x495057, box: 0xc8a165, boxDamaged: 0x9c4a2f,
  cylinder: 0x8d99ae, rod: 0xdee2e6, plate: 0x1d70b8, sensorOff: 0x555555, sensorOn: 0x2ecc71, damageOn: 0xe74c3c,
  green: 0x27ae60, red: 0xc0392b, lampOff: 0x3a3a3a, bin: 0x4a6fa5, reject: 0x8e3b2f,
};

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

/** A texture drawn on a small canvas by `paint(ctx)`. */
function canvasTexture(w, h, paint) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  paint(c.getContext('2d'));
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  return t;
}

/** A cardboard box face: tape across, and crack marks if damaged (not colour alone). */
function boxTexture(damaged) {
  return canvasTexture(64, 64, (g) => {
    g.fillStyle = damaged ? '#9c4a2f' : '#c8a165';
    g.fillRect(0, 0, 64, 64);
    g.fillStyle = damaged ? '#7a3522' : '#b08a52';
    g.fillRect(0, 26, 64, 12); // tape
    if (damaged) {
      g.strokeStyle = '#1b1b1b';
      g.lineWidth = 3;
      g.beginPath();
      g.moveTo(8, 8); g.lineTo(22, 20); g.lineTo(14, 30); g.lineTo(30, 44); g.lineTo(24, 58);
      g.moveTo(56, 6); g.lineTo(44, 18); g.lineTo(52, 30);
      g.stroke();
    }
  });
}

/** A belt surface: stripes that move with the belt. */
function beltTexture(lengthM) {
  const t = canvasTexture(64, 16, (g) => {
    g.fillStyle = '#2b2f33';
    g.fillRect(0, 0, 64, 16);
    g.fillStyle = '#495057';
    g.fillRect(0, 0, 10, 16);
  });
  t.wrapS = THREE.RepeatWrapping;
  t.wrapT = THREE.RepeatWrapping;
  t.repeat.set(lengthM / 0.12, 1);
  return t;
}

/** A sprite with a line of text (bin counters), redrawn only when the text changes. */
function textSprite(scale) {
  const c = document.createElement('canvas');
  c.width = 256;
  c.height = 64;
  const tex = new THREE.CanvasTexture(c);
  tex.colorSpace = THREE.SRGBColorSpace;
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: tex, transparent: true, depthTest: false }));
  sprite.scale.set(scale * 4, scale, 1);
  let last = null;
  sprite.userData.set = (text) => {
    if (text === last) return;
    last = text;
    const g = c.getContext('2d');
    g.clearRect(0, 0, 256, 64);
    g.fillStyle = 'rgba(255,255,255,0.85)';
    g.fillRect(0, 8, 256, 48);
    g.fillStyle = '#111';
    g.font = 'bold 34px system-ui, sans-serif';
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(text, 128, 33);
    tex.needsUpdate = true;
  };
  return sprite;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {object} cfg plant.config (mm, mm/s, ms)
 * @param {{quality?: 'auto'|'high'}} [opts]
 * @returns {{update(scene, state): void, leave(fate, box): void, render(): void, resize(): void, resetView(): void, zoom(f): void, dispose(): void, renderer: THREE.WebGLRenderer}}
 */
export function createPlantScene(canvas, cfg, opts = {}) {
  // Drawn so that a box is 0.2 m whatever the profile (the fast profile's 100 mm boxes would make
  // the lamp tower, pistons and bins look outsized): lengths and speeds scale alike.
  const scale = 200 / cfg.boxMm;
  const mm = (v) => (v / 1000) * scale;
  const B = mm(cfg.boxMm);
  const L1 = mm(cfg.c1LengthMm);
  const L2 = mm(cfg.c2LengthMm);
  const W = Math.max(0.25, 2.2 * B); // belt width
  const H = 0.6; // belt top
  const total = L1 + L2;
  const entryZ = -(W / 2 + B * 0.75 + 0.05);
  const rejectZ = W / 2 + B + 0.25;
  const packZ = W / 2 + B + 0.25;

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
  const home = { pos: new THREE.Vector3(), target: new THREE.Vector3(total / 2 + 0.05, H * 0.55, 0.5) };
  let moved = false; // the user has moved the camera: a resize keeps their view
  function fitHome() {
    const vfov = THREE.MathUtils.degToRad(camera.fov);
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * camera.aspect);
    const width = total + 1.3;
    const depth = 1.8;
    const d = Math.max(width / 2 / Math.tan(hfov / 2), depth / 2 / Math.tan(vfov / 2));
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

  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8a8a, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(2, 6, 4);
  scene.add(sun);

  const mat = (color, extra = {}) => new THREE.MeshStandardMaterial({ color, roughness: 0.75, metalness: 0.1, ...extra });
  const add = (geo, material, x, y, z, parent = scene) => {
    const m = new THREE.Mesh(geo, material);
    m.position.set(x, y, z);
    parent.add(m);
    return m;
  };

  // Floor.
  const floor = add(new THREE.PlaneGeometry(total + 4, 6), mat(COLORS.floor), total / 2, 0, 0.5);
  floor.rotation.x = -Math.PI / 2;
  const grid = new THREE.GridHelper(Math.ceil(total + 4), Math.ceil(total + 4), 0xc8ccd0, 0xdde0e3);
  grid.position.set(total / 2, 0.001, 0.5);
  scene.add(grid);

  // Conveyors: frame, legs, a moving belt surface.
  const belts = [];
  function conveyor(x0, len, speedMmS) {
    add(new THREE.BoxGeometry(len, 0.08, W + 0.06), mat(COLORS.frame), x0 + len / 2, H - 0.05, 0);
    for (const lx of [x0 + 0.05, x0 + len - 0.05]) for (const lz of [-W / 2, W / 2]) add(new THREE.BoxGeometry(0.04, H - 0.09, 0.04), mat(COLORS.frame), lx, (H - 0.09) / 2, lz);
    const tex = beltTexture(len);
    const top = add(new THREE.PlaneGeometry(len, W), new THREE.MeshStandardMaterial({ map: tex, roughness: 0.9 }), x0 + len / 2, H - 0.009, 0);
    top.rotation.x = -Math.PI / 2;
    const belt = { tex, speed: mm(speedMmS), len };
    belts.push(belt);
    return belt;
  }
  const belt1 = conveyor(0, L1, cfg.c1SpeedMmS);
  const belt2 = conveyor(L1, L2, cfg.c2SpeedMmS);
  // The end stop of conveyor 2.
  add(new THREE.BoxGeometry(0.03, B * 0.9, W), mat(COLORS.frame), total + 0.015, H + B * 0.45, 0);

  // Entry tray beside the start of conveyor 1.
  add(new THREE.BoxGeometry(B * 1.4, 0.04, B * 1.4), mat(COLORS.frame), B / 2, H - 0.03, entryZ);

  // Pistons: a cylinder, a rod that extends with the stroke, a plate. stroke in metres along +z.
  function piston(x, zBack, stroke) {
    const g = new THREE.Group();
    g.position.set(x, H + B * 0.45, zBack);
    scene.add(g);
    const cyl = add(new THREE.CylinderGeometry(0.035, 0.035, 0.3, 16), mat(COLORS.cylinder, { metalness: 0.5 }), 0, 0, -0.15, g);
    cyl.rotation.x = Math.PI / 2;
    const rod = add(new THREE.CylinderGeometry(0.012, 0.012, 1, 12), mat(COLORS.rod, { metalness: 0.7, roughness: 0.3 }), 0, 0, 0, g);
    rod.rotation.x = Math.PI / 2;
    const plate = add(new THREE.BoxGeometry(B * 0.9, B * 0.7, 0.02), mat(COLORS.plate), 0, 0, 0, g);
    const front = add(new THREE.SphereGeometry(0.012, 10, 8), mat(COLORS.sensorOff), 0.05, 0.05, -0.02, g);
    const back = add(new THREE.SphereGeometry(0.012, 10, 8), mat(COLORS.sensorOff), 0.05, 0.05, -0.28, g);
    return {
      set(p) {
        const ext = Math.max(0.001, p * stroke);
        rod.scale.y = ext + 0.02;
        rod.position.z = ext / 2 - 0.01;
        plate.position.z = ext;
      },
      sensors(atFront, atBack) {
        lit(front, atFront);
        lit(back, atBack);
      },
    };
  }
  const p1 = piston(B / 2, entryZ - B / 2 - 0.02, -entryZ + 0.02);
  const p2 = piston(mm(cfg.detectorAtMm), -W / 2 - 0.06, W + 0.06);
  const p3 = piston(total - B / 2, -W / 2 - 0.06, W + 0.06);

  function lit(mesh, on, color = COLORS.sensorOn) {
    const want = on ? color : COLORS.sensorOff;
    if (mesh.userData.c === want) return;
    mesh.userData.c = want;
    mesh.material.color.setHex(want);
    mesh.material.emissive = new THREE.Color(on ? color : 0x000000);
    mesh.material.emissiveIntensity = on ? 0.9 : 0;
  }

  // Sensors: a post with a light.
  function sensor(x, z) {
    add(new THREE.CylinderGeometry(0.01, 0.01, B * 1.2, 8), mat(COLORS.frame), x, H + B * 0.6 - 0.05, z);
    return add(new THREE.SphereGeometry(0.022, 14, 10), mat(COLORS.sensorOff), x, H + B * 1.2, z);
  }
  const entrySensor = sensor(-0.06, entryZ);
  const packSensor = sensor(total - B / 2, W / 2 + 0.05);

  // The detection unit: an arch over conveyor 1 with a presence light and a damage light.
  const det = mm(cfg.detectorAtMm);
  const dl = mm(cfg.detectorMm);
  for (const dz of [-W / 2 - 0.02, W / 2 + 0.02]) add(new THREE.BoxGeometry(dl, 0.03, 0.03), mat(COLORS.frame), det, H + B * 1.3, dz);
  for (const dx of [det - dl / 2, det + dl / 2]) for (const dz of [-W / 2 - 0.02, W / 2 + 0.02]) add(new THREE.BoxGeometry(0.03, B * 1.3, 0.03), mat(COLORS.frame), dx, H + B * 0.65, dz);
  add(new THREE.BoxGeometry(dl, 0.02, W + 0.07), new THREE.MeshStandardMaterial({ color: 0x9fb3c8, transparent: true, opacity: 0.35 }), det, H + B * 1.32, 0);
  const detectLight = add(new THREE.SphereGeometry(0.025, 14, 10), mat(COLORS.sensorOff), det - 0.04, H + B * 1.38, W / 2 + 0.02);
  const damageLight = add(new THREE.SphereGeometry(0.025, 14, 10), mat(COLORS.sensorOff), det + 0.04, H + B * 1.38, W / 2 + 0.02);

  // Bins: reject beside the detection unit, packaging beside the end of conveyor 2.
  function bin(x, z, color) {
    const g = new THREE.Group();
    g.position.set(x, 0, z);
    scene.add(g);
    const s = Math.max(0.3, B * 2.5);
    const m = mat(color);
    add(new THREE.BoxGeometry(s, 0.02, s), m, 0, 0.01, 0, g);
    for (const [dx, dz, w, d] of [[-s / 2, 0, 0.02, s], [s / 2, 0, 0.02, s], [0, -s / 2, s, 0.02], [0, s / 2, s, 0.02]]) add(new THREE.BoxGeometry(w, s * 0.6, d), m, dx, s * 0.3, dz, g);
    const label = textSprite(Math.max(0.1, B * 0.8));
    label.position.set(0, s * 0.6 + Math.max(0.12, B), 0);
    g.add(label);
    return { x, z, size: s, label };
  }
  const rejectBin = bin(det, rejectZ + Math.max(0.3, B * 2.5) / 2 - 0.1, COLORS.reject);
  const packBin = bin(total - B / 2, packZ + Math.max(0.3, B * 2.5) / 2 - 0.1, COLORS.bin);

  // Lamp tower.
  const tower = new THREE.Group();
  tower.position.set(-0.35, 0, -0.45);
  scene.add(tower);
  add(new THREE.CylinderGeometry(0.02, 0.02, 1.1, 10), mat(COLORS.frame), 0, 0.55, 0, tower);
  const greenLamp = add(new THREE.CylinderGeometry(0.055, 0.055, 0.1, 20), mat(COLORS.lampOff), 0, 1.05, 0, tower);
  const redLamp = add(new THREE.CylinderGeometry(0.055, 0.055, 0.1, 20), mat(COLORS.lampOff), 0, 1.17, 0, tower);

  // Boxes: one mesh per box id, made when it first shows and dropped when it has left.
  const textures = { intact: boxTexture(false), damaged: boxTexture(true) };
  const boxMats = { intact: new THREE.MeshStandardMaterial({ map: textures.intact, roughness: 0.9 }), damaged: new THREE.MeshStandardMaterial({ map: textures.damaged, roughness: 0.9 }) };
  const boxGeo = new THREE.BoxGeometry(B, B * 0.8, B * 0.8);
  const boxes = new Map(); // id -> mesh
  const leaving = []; // {mesh, from, to, t0, pile}
  const piles = { packed: [], rejected: [] };
  const MAX_PILE = 12;

  function meshFor(b) {
    let m = boxes.get(b.id);
    if (!m) {
      m = new THREE.Mesh(boxGeo, b.damaged ? boxMats.damaged : boxMats.intact);
      scene.add(m);
      boxes.set(b.id, m);
    }
    const want = b.damaged ? boxMats.damaged : boxMats.intact;
    if (m.material !== want) m.material = want;
    return m;
  }

  let lastT = performance.now();
  let pistonPos = { p1: 0, p2: 0, p3: 0 };

  /**
   * Move everything to the model's current scene and the PLC's state.
   * @param {object} s plant.scene() (through the session: damage as the PLC showed it)
   * @param {{outputs: object, inputs: object, good: number|null, rejected: number|null}} st
   */
  function update(s, st) {
    const t = performance.now();
    const dt = Math.min(0.1, (t - lastT) / 1000);
    lastT = t;
    if (st.outputs.c1) belt1.tex.offset.x -= (belt1.speed * dt) / (belt1.len / belt1.tex.repeat.x);
    if (st.outputs.c2) belt2.tex.offset.x -= (belt2.speed * dt) / (belt2.len / belt2.tex.repeat.x);
    pistonPos = s.pistons;
    p1.set(s.pistons.p1);
    p2.set(s.pistons.p2);
    p3.set(s.pistons.p3);
    p1.sensors(st.inputs.p1f === 1, st.inputs.p1b === 1);
    p2.sensors(st.inputs.p2f === 1, false);
    p3.sensors(st.inputs.p3f === 1, false);
    lit(entrySensor, st.inputs.se === 1);
    lit(packSensor, st.inputs.sk === 1);
    lit(detectLight, st.inputs.sd === 1);
    lit(damageLight, st.inputs.dmg === 1, COLORS.damageOn);
    lit(greenLamp, st.outputs.grn === 1, COLORS.green);
    lit(redLamp, st.outputs.red === 1, COLORS.red);
    rejectBin.label.userData.set(`rejected ${st.rejected ?? '–'}`);
    packBin.label.userData.set(`good ${st.good ?? '–'}`);

    const here = new Set();
    const y = H + B * 0.4;
    if (s.entry) {
      const m = meshFor(s.entry);
      // Pushed by piston 1 from the tray towards the belt.
      m.position.set(B / 2, y, entryZ + s.pistons.p1 * (0 - entryZ));
      here.add(s.entry.id);
    }
    for (const b of s.c1) { meshFor(b).position.set(mm(b.x), y, 0); here.add(b.id); }
    for (const b of s.c2) { meshFor(b).position.set(L1 + mm(b.x), y, 0); here.add(b.id); }
    for (const [id, m] of boxes) {
      if (!here.has(id) && !leaving.some((l) => l.mesh === m)) { scene.remove(m); boxes.delete(id); }
    }
    for (let i = leaving.length - 1; i >= 0; i--) {
      const l = leaving[i];
      const k = Math.min(1, (t - l.t0) / 500);
      l.mesh.position.lerpVectors(l.from, l.to, k);
      l.mesh.position.y += Math.sin(k * Math.PI) * 0.05;
      if (k >= 1) leaving.splice(i, 1);
    }
  }

  /**
   * A box left the belts (the model's 'box' event): slide it into its bin, where the last few
   * pile up.
   * @param {'packed'|'rejected'} fate
   * @param {{id:number, damaged:boolean, x:number}} box
   */
  function leave(fate, box) {
    let m = boxes.get(box.id);
    if (!m) { // finished between two frames: it starts where the model last had it
      m = meshFor(box);
      m.position.set(fate === 'packed' ? L1 + mm(box.x) : mm(box.x), H + B * 0.4, 0);
    }
    boxes.delete(box.id);
    const b = fate === 'packed' ? packBin : rejectBin;
    const pile = piles[fate];
    pile.push(m);
    if (pile.length > MAX_PILE) scene.remove(pile.shift());
    const n = pile.length - 1;
    const per = Math.max(1, Math.floor((b.size - 0.04) / (B * 1.05)));
    const to = new THREE.Vector3(b.x - b.size / 2 + B * 0.6 + (n % per) * B * 1.05, 0.02 + B * 0.4 + Math.floor(n / (per * per)) * B * 0.8, b.z - b.size / 2 + B * 0.6 + (Math.floor(n / per) % per) * B * 1.05);
    leaving.push({ mesh: m, from: m.position.clone(), to, t0: performance.now() });
  }

  function resize() {
    const w = canvas.clientWidth || 300;
    const h = canvas.clientHeight || 200;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    fitHome();
    if (!moved) { camera.position.copy(home.pos); controls.target.copy(home.target); controls.update(); }
  }

  return {
    renderer,
    update,
    leave,
    resize,
    render() { controls.update(); renderer.render(scene, camera); },
    resetView() { moved = false; camera.position.copy(home.pos); controls.target.copy(home.target); controls.update(); },
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
