/**
 * The parts of the browser twin's 3D plant (three.js): floor, conveyors with moving belt
 * surfaces, the entry tray, the pistons, the sensors, the detection unit, the bins with their
 * counters and the lamp tower, built once; and showState(), which moves them to the model's
 * scene and the PLC's state every frame. Sizes come from scene-layout.mjs. Nothing here decides
 * anything: it draws what the model and the PLC say.
 */
import * as THREE from 'three';

export const COLORS = {
  floor: 0xe9ecef, frame: 0x6c757d, belt: 0x2b2f33, beltStripe: 0x495057, box: 0xc8a165, boxDamaged: 0x9c4a2f,
  cylinder: 0x8d99ae, rod: 0xdee2e6, plate: 0x1d70b8, sensorOff: 0x555555, sensorOn: 0x2ecc71, damageOn: 0xe74c3c,
  green: 0x27ae60, red: 0xc0392b, lampOff: 0x3a3a3a, bin: 0x4a6fa5, reject: 0x8e3b2f,
};

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
export function boxTexture(damaged) {
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

/** A light (sensor, lamp) on or off; the material changes only when the colour does. */
export function lit(mesh, on, color = COLORS.sensorOn) {
  const want = on ? color : COLORS.sensorOff;
  if (mesh.userData.c === want) return;
  mesh.userData.c = want;
  mesh.material.color.setHex(want);
  mesh.material.emissive = new THREE.Color(on ? color : 0x000000);
  mesh.material.emissiveIntensity = on ? 0.9 : 0;
}

/** mat(color) and add(geometry, material, x, y, z, parent) for one scene. */
function tools(scene) {
  const mat = (color, extra = {}) => new THREE.MeshStandardMaterial({ color, roughness: 0.75, metalness: 0.1, ...extra });
  const add = (geo, material, x, y, z, parent = scene) => {
    const m = new THREE.Mesh(geo, material);
    m.position.set(x, y, z);
    parent.add(m);
    return m;
  };
  return { mat, add };
}

/** Floor, conveyors (frame, legs, a moving belt surface), the end stop, the entry tray. */
function buildGround(scene, L, cfg, { mat, add }) {
  const { W, H, B, total } = L;
  const floor = add(new THREE.PlaneGeometry(total + 4, 6), mat(COLORS.floor), total / 2, 0, 0.5);
  floor.rotation.x = -Math.PI / 2;
  const grid = new THREE.GridHelper(Math.ceil(total + 4), Math.ceil(total + 4), 0xc8ccd0, 0xdde0e3);
  grid.position.set(total / 2, 0.001, 0.5);
  scene.add(grid);
  function conveyor(x0, len, speedMmS) {
    add(new THREE.BoxGeometry(len, 0.08, W + 0.06), mat(COLORS.frame), x0 + len / 2, H - 0.05, 0);
    for (const lx of [x0 + 0.05, x0 + len - 0.05]) {
      for (const lz of [-W / 2, W / 2]) add(new THREE.BoxGeometry(0.04, H - 0.09, 0.04), mat(COLORS.frame), lx, (H - 0.09) / 2, lz);
    }
    const tex = beltTexture(len);
    const top = add(new THREE.PlaneGeometry(len, W), new THREE.MeshStandardMaterial({ map: tex, roughness: 0.9 }), x0 + len / 2, H - 0.009, 0);
    top.rotation.x = -Math.PI / 2;
    return { tex, speed: L.mm(speedMmS), len };
  }
  const belt1 = conveyor(0, L.L1, cfg.c1SpeedMmS);
  const belt2 = conveyor(L.L1, L.L2, cfg.c2SpeedMmS);
  add(new THREE.BoxGeometry(0.03, B * 0.9, W), mat(COLORS.frame), total + 0.015, H + B * 0.45, 0); // end stop
  add(new THREE.BoxGeometry(B * 1.4, 0.04, B * 1.4), mat(COLORS.frame), B / 2, H - 0.03, L.entryZ); // entry tray
  return { belt1, belt2 };
}

/** A piston: a cylinder, a rod that extends with the stroke, a plate, two end-position lights. stroke in metres along +z. */
function piston(scene, L, { mat, add }, x, zBack, stroke) {
  const g = new THREE.Group();
  g.position.set(x, L.H + L.B * 0.45, zBack);
  scene.add(g);
  const cyl = add(new THREE.CylinderGeometry(0.035, 0.035, 0.3, 16), mat(COLORS.cylinder, { metalness: 0.5 }), 0, 0, -0.15, g);
  cyl.rotation.x = Math.PI / 2;
  const rod = add(new THREE.CylinderGeometry(0.012, 0.012, 1, 12), mat(COLORS.rod, { metalness: 0.7, roughness: 0.3 }), 0, 0, 0, g);
  rod.rotation.x = Math.PI / 2;
  const plate = add(new THREE.BoxGeometry(L.B * 0.9, L.B * 0.7, 0.02), mat(COLORS.plate), 0, 0, 0, g);
  const front = add(new THREE.SphereGeometry(0.012, 10, 8), mat(COLORS.sensorOff), 0.05, 0.05, -0.02, g);
  const back = add(new THREE.SphereGeometry(0.012, 10, 8), mat(COLORS.sensorOff), 0.05, 0.05, -0.28, g);
  return {
    rod,
    plate,
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

/** The three pistons, the entry and pack sensors, and the detection unit (an arch with a presence and a damage light). */
function buildMachines(scene, L, t) {
  const { W, H, B, total, det, dl, entryZ } = L;
  const { mat, add } = t;
  const p1 = piston(scene, L, t, B / 2, entryZ - B / 2 - 0.02, -entryZ + 0.02);
  const p2 = piston(scene, L, t, det, -W / 2 - 0.06, W + 0.06);
  const p3 = piston(scene, L, t, total - B / 2, -W / 2 - 0.06, W + 0.06);
  const sensor = (x, z) => {
    add(new THREE.CylinderGeometry(0.01, 0.01, B * 1.2, 8), mat(COLORS.frame), x, H + B * 0.6 - 0.05, z);
    return add(new THREE.SphereGeometry(0.022, 14, 10), mat(COLORS.sensorOff), x, H + B * 1.2, z);
  };
  const entrySensor = sensor(-0.06, entryZ);
  const packSensor = sensor(total - B / 2, W / 2 + 0.05);
  for (const dz of [-W / 2 - 0.02, W / 2 + 0.02]) add(new THREE.BoxGeometry(dl, 0.03, 0.03), mat(COLORS.frame), det, H + B * 1.3, dz);
  for (const dx of [det - dl / 2, det + dl / 2]) {
    for (const dz of [-W / 2 - 0.02, W / 2 + 0.02]) add(new THREE.BoxGeometry(0.03, B * 1.3, 0.03), mat(COLORS.frame), dx, H + B * 0.65, dz);
  }
  add(new THREE.BoxGeometry(dl, 0.02, W + 0.07), new THREE.MeshStandardMaterial({ color: 0x9fb3c8, transparent: true, opacity: 0.35 }), det, H + B * 1.32, 0);
  const detectLight = add(new THREE.SphereGeometry(0.025, 14, 10), mat(COLORS.sensorOff), det - 0.04, H + B * 1.38, W / 2 + 0.02);
  const damageLight = add(new THREE.SphereGeometry(0.025, 14, 10), mat(COLORS.sensorOff), det + 0.04, H + B * 1.38, W / 2 + 0.02);
  return { p1, p2, p3, entrySensor, packSensor, detectLight, damageLight };
}

/** The bins (reject beside the detection unit, packaging beside the end of conveyor 2) with their counters, and the lamp tower. */
function buildBinsAndTower(scene, L, { mat, add }) {
  const { B } = L;
  function bin(x, z, color) {
    const g = new THREE.Group();
    g.position.set(x, 0, z);
    scene.add(g);
    const s = L.binSize;
    const m = mat(color);
    add(new THREE.BoxGeometry(s, 0.02, s), m, 0, 0.01, 0, g);
    const walls = [[-s / 2, 0, 0.02, s], [s / 2, 0, 0.02, s], [0, -s / 2, s, 0.02], [0, s / 2, s, 0.02]];
    for (const [dx, dz, w, d] of walls) add(new THREE.BoxGeometry(w, s * 0.6, d), m, dx, s * 0.3, dz, g);
    const label = textSprite(Math.max(0.1, B * 0.8));
    label.position.set(0, s * 0.6 + Math.max(0.12, B), 0);
    g.add(label);
    return { x, z, size: s, label };
  }
  const rejectBin = bin(L.det, L.rejectZ + L.binSize / 2 - 0.1, COLORS.reject);
  const packBin = bin(L.total - B / 2, L.packZ + L.binSize / 2 - 0.1, COLORS.bin);
  const tower = new THREE.Group();
  tower.position.set(-0.35, 0, -0.45);
  scene.add(tower);
  add(new THREE.CylinderGeometry(0.02, 0.02, 1.1, 10), mat(COLORS.frame), 0, 0.55, 0, tower);
  const greenLamp = add(new THREE.CylinderGeometry(0.055, 0.055, 0.1, 20), mat(COLORS.lampOff), 0, 1.05, 0, tower);
  const redLamp = add(new THREE.CylinderGeometry(0.055, 0.055, 0.1, 20), mat(COLORS.lampOff), 0, 1.17, 0, tower);
  return { rejectBin, packBin, greenLamp, redLamp };
}

/**
 * Build the plant's static parts into `scene`.
 * @param {THREE.Scene} scene
 * @param {object} L scene-layout.mjs layout()
 * @param {object} cfg plant.config
 * @returns {object} the parts that move or light up (see showState)
 */
export function buildPlant(scene, L, cfg) {
  const t = tools(scene);
  return { ...buildGround(scene, L, cfg, t), ...buildMachines(scene, L, t), ...buildBinsAndTower(scene, L, t) };
}

/**
 * Move the parts to the model's scene and the PLC's state.
 * @param {object} parts buildPlant()
 * @param {object} s plant.scene()
 * @param {{outputs: object, inputs: object, good: number|null, rejected: number|null}} st
 * @param {number} dt seconds since the last frame
 */
export function showState(parts, s, st, dt) {
  const { belt1, belt2 } = parts;
  if (st.outputs.c1) belt1.tex.offset.x -= (belt1.speed * dt) / (belt1.len / belt1.tex.repeat.x);
  if (st.outputs.c2) belt2.tex.offset.x -= (belt2.speed * dt) / (belt2.len / belt2.tex.repeat.x);
  parts.p1.set(s.pistons.p1);
  parts.p2.set(s.pistons.p2);
  parts.p3.set(s.pistons.p3);
  parts.p1.sensors(st.inputs.p1f === 1, st.inputs.p1b === 1);
  parts.p2.sensors(st.inputs.p2f === 1, false);
  parts.p3.sensors(st.inputs.p3f === 1, false);
  lit(parts.entrySensor, st.inputs.se === 1);
  lit(parts.packSensor, st.inputs.sk === 1);
  lit(parts.detectLight, st.inputs.sd === 1);
  lit(parts.damageLight, st.inputs.dmg === 1, COLORS.damageOn);
  lit(parts.greenLamp, st.outputs.grn === 1, COLORS.green);
  lit(parts.redLamp, st.outputs.red === 1, COLORS.red);
  parts.rejectBin.label.userData.set(`rejected ${st.rejected ?? '–'}`);
  parts.packBin.label.userData.set(`good ${st.good ?? '–'}`);
}
