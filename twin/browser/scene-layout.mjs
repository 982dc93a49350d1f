/**
 * Where things are in the browser twin's 3D plant, as plain numbers (no three.js, no DOM, so Node
 * tests check them): sizes from the plant model's profile, the camera distance that shows the
 * whole plant, where a box is drawn, where the boxes in a bin pile up.
 *
 * Axes: x along the conveyors (conveyor 2 continues conveyor 1), y up, z across (the pistons
 * push towards +z). One scene unit is one metre. Drawn so that a box is 0.2 m whatever the
 * profile (the fast profile's 100 mm boxes would make the lamp tower, pistons and bins look
 * outsized): lengths and speeds scale alike.
 */

/**
 * The scene's sizes from the model's profile.
 * @param {object} cfg plant.config (mm, mm/s, ms)
 */
export function layout(cfg) {
  const scale = 200 / cfg.boxMm;
  const mm = (v) => (v / 1000) * scale;
  const B = mm(cfg.boxMm);
  const L1 = mm(cfg.c1LengthMm);
  const L2 = mm(cfg.c2LengthMm);
  const W = Math.max(0.25, 2.2 * B); // belt width
  const H = 0.6; // belt top
  return {
    scale, mm, B, L1, L2, W, H,
    total: L1 + L2,
    entryZ: -(W / 2 + B * 0.75 + 0.05), // the entry tray, beside the start of conveyor 1
    rejectZ: W / 2 + B + 0.25, // the reject bin's near edge, beside the detection unit
    packZ: W / 2 + B + 0.25, // the packaging bin's near edge, beside the end of conveyor 2
    det: mm(cfg.detectorAtMm), // centre of the detection unit
    dl: mm(cfg.detectorMm), // its length
    binSize: Math.max(0.3, B * 2.5),
  };
}

/**
 * How far the camera must be from the home view's target to show a width × depth area whole
 * (whichever of the two limits at this aspect ratio).
 * @param {number} fovDeg the camera's vertical field of view
 * @param {number} aspect width / height
 * @param {number} width metres across the view
 * @param {number} depth metres up the view
 */
export function homeDistance(fovDeg, aspect, width, depth) {
  const vfov = fovDeg * (Math.PI / 180);
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * aspect);
  return Math.max(width / 2 / Math.tan(hfov / 2), depth / 2 / Math.tan(vfov / 2));
}

/**
 * Where each box of the model's scene is drawn: at the entry (pushed by piston 1 from the tray
 * towards the belt), on conveyor 1, or on conveyor 2.
 * @param {object} s plant.scene()
 * @param {object} L layout()
 * @returns {{box: object, x: number, y: number, z: number}[]}
 */
export function boxSpots(s, L) {
  const y = L.H + L.B * 0.4;
  const spots = [];
  if (s.entry) spots.push({ box: s.entry, x: L.B / 2, y, z: L.entryZ + s.pistons.p1 * (0 - L.entryZ) });
  for (const b of s.c1) spots.push({ box: b, x: L.mm(b.x), y, z: 0 });
  for (const b of s.c2) spots.push({ box: b, x: L.L1 + L.mm(b.x), y, z: 0 });
  return spots;
}

/**
 * Where the nth box in a bin lies: rows across the bin, then rows along it, then a layer up.
 * @param {number} n 0 = the first box in the pile
 * @param {{x: number, z: number, size: number}} bin the bin's centre and size
 * @param {number} B box length
 */
export function pileSlot(n, bin, B) {
  const per = Math.max(1, Math.floor((bin.size - 0.04) / (B * 1.05)));
  return {
    x: bin.x - bin.size / 2 + B * 0.6 + (n % per) * B * 1.05,
    y: 0.02 + B * 0.4 + Math.floor(n / (per * per)) * B * 0.8,
    z: bin.z - bin.size / 2 + B * 0.6 + (Math.floor(n / per) % per) * B * 1.05,
  };
}
