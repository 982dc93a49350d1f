'use strict';
/**
 * What a plant model is made of before it runs: its speeds and sizes (a profile, any field of it
 * overridden), how many boxes it produces and which of them are damaged (a fraction drawn with a
 * seeded random generator, so the same seed gives the same boxes, or an explicit 0/1 pattern).
 * Browser-safe (the browser twin runs the same model).
 */
const { codedError } = require('../../nodes/lib/core/errors');

/** Error with a stable `code`. */
const PlantError = codedError('PlantError');

/** Speeds and sizes. `fast` runs 20 boxes in about 10 s against a 10 ms PLC scan. */
const PROFILES = {
  study: {
    arrivalMs: 6000, // a new box at the entry at most every 6 s
    boxMm: 200,
    c1LengthMm: 3000,
    c2LengthMm: 2000,
    c1SpeedMmS: 250,
    c2SpeedMmS: 250,
    detectorAtMm: 1800, // centre of the detection unit on conveyor 1
    detectorMm: 300, // length of the detection unit
    rejectReachMm: 150, // piston 2 still catches a box this far past the detection unit
    landingGapMm: 100, // free belt piston 1 needs in front of the box it pushes
    detectorGapMs: 300, // the detection unit sees no box for at least this long between two boxes
    p1StrokeMs: 800,
    p2StrokeMs: 600,
    p3StrokeMs: 600,
    buttonHoldMs: 300, // how long a button press lasts
  },
  fast: {
    arrivalMs: 200,
    boxMm: 100,
    c1LengthMm: 1200,
    c2LengthMm: 600,
    // Conveyor 1 speed and detection unit length set how late the PLC may stop conveyor 1 for a
    // reject: these tolerate 150 ms each way (300 ms round trip) in lock-step tests, so a loaded
    // test machine does not mis-sort, at about 6 s of plant time for 20 boxes.
    c1SpeedMmS: 1500,
    c2SpeedMmS: 3000,
    detectorAtMm: 700,
    detectorMm: 250,
    rejectReachMm: 150,
    landingGapMm: 50,
    // Between two boxes the detection unit must report "no box" long enough for every sampled
    // path to see it (Modbus polling at 80 ms, OPC UA sampling at 50 ms, a 10 ms PLC scan after
    // any of them): a shorter gap is merged away and the PLC sees no new rising edge of sd (our
    // program still judges a box while sd is high, but a PLC that counts boxes on the edge, or
    // judges on it alone as ours did, would miss the next box). 250 ms, like a button press.
    detectorGapMs: 250,
    p1StrokeMs: 40,
    p2StrokeMs: 40,
    p3StrokeMs: 40,
    buttonHoldMs: 250, // long enough for a polled path (Modbus at 80 ms polls three times in a row) to see it
  },
};

/** Small, fast, seedable PRNG (mulberry32): the same seed gives the same damaged boxes. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Which boxes are damaged: a fraction drawn with a seeded RNG, or an explicit pattern
 * ("0010", [0,0,1], [false, true]) repeated over the boxes.
 * @param {number} boxes
 * @param {number|string|Array} damaged
 * @param {number} seed
 * @returns {boolean[]}
 */
function damagePlan(boxes, damaged, seed) {
  if (typeof damaged === 'string' && /^[01]+$/.test(damaged)) damaged = damaged.split('').map(Number);
  if (Array.isArray(damaged)) {
    if (damaged.length === 0) throw new PlantError('E_PLANT_CONFIG', 'the damage pattern is empty');
    return Array.from({ length: boxes }, (_, i) => Boolean(Number(damaged[i % damaged.length])));
  }
  const f = Number(damaged);
  if (!Number.isFinite(f) || f < 0 || f > 1) {
    throw new PlantError('E_PLANT_CONFIG', `damaged must be a fraction 0..1 or a 0/1 pattern, got ${JSON.stringify(damaged)}`);
  }
  const r = rng(seed);
  return Array.from({ length: boxes }, () => r() < f);
}

/**
 * The plant's configuration from createPlant's options.
 * @param {object} opts see twin/plant.js createPlant
 * @returns {{cfg: object, total: number, plan: boolean[]}} the profile with its overrides (numbers),
 *   the boxes to produce, and which of them are damaged
 */
function configure(opts) {
  const profileName = opts.profile || 'fast';
  if (!PROFILES[profileName]) throw new PlantError('E_PLANT_CONFIG', `unknown profile "${profileName}" (fast or study)`);
  const cfg = { ...PROFILES[profileName] };
  for (const k of Object.keys(cfg)) if (opts[k] !== undefined) cfg[k] = Number(opts[k]);
  const total = opts.boxes === undefined ? 20 : Number(opts.boxes);
  if (!Number.isInteger(total) || total < 0) throw new PlantError('E_PLANT_CONFIG', `boxes must be a whole number, got ${opts.boxes}`);
  const plan = damagePlan(total, opts.damaged === undefined ? 0.3 : opts.damaged, opts.seed === undefined ? 1 : Number(opts.seed));
  return { cfg, total, plan };
}

module.exports = { PROFILES, PlantError, rng, damagePlan, configure };
