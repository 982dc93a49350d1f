'use strict';
/**
 * The box-sorting plant's mechanics, one tick at a time, as functions of the plant's state (made
 * by createState): pistons that move with the PLC's outputs, belts that carry boxes queued behind
 * each other, piston 1 that pushes the entry box onto conveyor 1 once its landing spot is free,
 * piston 2 that rejects the box at the detection unit, piston 3 that pushes the box at the end
 * stop into packaging, the hand-over from conveyor 1 to conveyor 2, new boxes at the entry, and
 * the sensors the PLC reads. Geometry in mm along each conveyor (box centres), times in ms.
 * Browser-safe.
 */
// The model of the demo box-sorting plant: its table's inputs and outputs.
const tags = require('../../nodes/lib/core/io-table').demoTable();

const MIN_CLEARANCE_MM = 20; // extra belt between two boxes beyond the detection unit's length, at least

// The plant's sensors and buttons are the PLC's inputs, what it acts on the PLC's streamed
// outputs: both as the I/O table names them.
const INPUTS = tags.inputs.map((t) => t.short);
const OUTPUTS = tags.outputs.filter((t) => !t.noStream).map((t) => t.short);

/**
 * A plant at rest: no box, pistons home, every PLC output 0.
 * @returns {object} the state every function here reads and moves on
 */
function createState() {
  return {
    time: 0,
    dt: 0, // duration of the tick being computed
    lastArrival: -Infinity,
    entry: null, // box waiting at the entry (or being pushed by piston 1)
    c1: [], // boxes on conveyor 1, front (largest x) first
    c2: [], // boxes on conveyor 2, front first
    piston: { p1: 0, p2: 0, p3: 0 }, // 0 = back, 1 = front
    buttons: { st: 0, sp: 0 },
    releaseAt: { st: 0, sp: 0 },
    out: Object.fromEntries(OUTPUTS.map((k) => [k, 0])), // last PLC outputs seen
    counts: { arrived: 0, packed: 0, rejected: 0, missorted: 0 },
    boxes: [], // every box that arrived
    detect: null, // a watching model that follows the real DetectSensor: {pending} (alignToSensors)
  };
}

/** Move a piston one tick; returns true when it reached the front in this tick. */
function movePiston(s, name, fw, bw, strokeMs, blockedAt) {
  const before = s.piston[name];
  let p = before;
  if (fw && !bw) p = Math.min(1, p + s.dt / strokeMs);
  else if (bw && !fw) p = Math.max(0, p - s.dt / strokeMs);
  if (blockedAt !== undefined && p > blockedAt) p = Math.max(before, blockedAt);
  s.piston[name] = p;
  return before < 1 && p >= 1;
}

/**
 * Run a belt one tick: boxes move together, queue behind each other (boxMm apart), stop at endX
 * and at `hold(box)` where given (a watching model's box waits for the real plant's sensor).
 */
function moveBelt(belt, speedMmS, dtMs, endX, boxMm, hold) {
  const step = (speedMmS * dtMs) / 1000;
  for (let i = 0; i < belt.length; i++) {
    const b = belt[i];
    const x = Math.min(b.x + step, i === 0 ? endX : belt[i - 1].x - boxMm, hold ? hold(b) : Infinity);
    b.x = Math.max(b.x, x);
  }
}

/**
 * The free belt piston 1 needs behind the last box on conveyor 1 before it lands the next: boxes
 * keep at least a detection unit's length apart, so the detector never sees two at once, plus the
 * belt that runs past it in detectorGapMs, so its "no box" between them lasts that long.
 */
function landingSpacing(cfg) {
  const clearanceMm = Math.max(MIN_CLEARANCE_MM, (cfg.c1SpeedMmS * cfg.detectorGapMs) / 1000);
  return cfg.boxMm + Math.max(cfg.landingGapMm, cfg.detectorMm + clearanceMm);
}

/**
 * Piston 1 pushes the entry box onto conveyor 1; it stalls short of the front while the landing
 * spot is still occupied (conveyor 1 stopped or slow).
 */
function pushEntry(s, cfg) {
  const B = cfg.boxMm;
  const landingFree = s.c1.length === 0 || s.c1[s.c1.length - 1].x - B / 2 >= landingSpacing(cfg);
  const blockAt = s.entry && !landingFree ? 0.9 : undefined;
  if (movePiston(s, 'p1', s.out.p1fw, s.out.p1bw, cfg.p1StrokeMs, blockAt) && s.entry) land(s, B);
}

/** The entry box lands on conveyor 1 (seen by the detection unit already where the real one was: alignToSensors). */
function land(s, B) {
  s.entry.x = B / 2;
  s.entry.where = 'c1';
  if (s.detect && s.detect.pending > 0) {
    s.entry.detected = true;
    s.detect.pending -= 1;
  }
  s.c1.push(s.entry);
  s.entry = null;
}

/**
 * Piston 2 (single-acting, spring return) rejects the box at the detection unit: the one nearest
 * to it, within the unit or up to rejectReachMm past it.
 * @returns {object|null} the box it took off conveyor 1
 */
function rejectAtDetector(s, cfg) {
  return movePiston(s, 'p2', s.out.p2fw, !s.out.p2fw, cfg.p2StrokeMs) ? takeAtDetector(s, cfg) : null;
}

/** Piston 2 at the front: the box it takes off conveyor 1, if one is in its reach. */
function takeAtDetector(s, cfg) {
  let best = -1;
  let bestDist = Infinity;
  s.c1.forEach((b, i) => {
    const d = b.x - cfg.detectorAtMm;
    const reach = cfg.detectorMm / 2 + cfg.boxMm / 2 + (d > 0 ? cfg.rejectReachMm : 0);
    if (Math.abs(d) <= reach && Math.abs(d) < bestDist) { best = i; bestDist = Math.abs(d); }
  });
  return best >= 0 ? s.c1.splice(best, 1)[0] : null;
}

/**
 * Piston 3 pushes the box at the end stop of conveyor 2 into packaging.
 * @returns {object|null} the box it took off conveyor 2
 */
function packAtEnd(s, cfg) {
  return movePiston(s, 'p3', s.out.p3fw, !s.out.p3fw, cfg.p3StrokeMs) ? takeAtEnd(s, cfg) : null;
}

/** Piston 3 at the front: the box it takes off conveyor 2, if one is at the end stop. */
function takeAtEnd(s, cfg) {
  return s.c2.length && s.c2[0].x >= cfg.c2LengthMm - cfg.boxMm ? s.c2.shift() : null;
}

/**
 * A watching model is told that the real piston 2 or 3 reached the front (a rising Piston2Front or
 * Piston3Front): its own, still on the way, gets there now and takes its box. A driving page that
 * was held ticks up to maxDtMs at once, a whole stroke at the fast profile, and the PLC may take
 * the valve back before the shadow's piston, on the edge's timing, got to the front.
 * @param {object} s the state
 * @param {object} cfg
 * @param {{p2f?: number, p3f?: number}} rose
 * @returns {Array<[string, object]>} [fate, box] for each box taken ('rejected' | 'packed')
 */
function strokesDone(s, cfg, rose) {
  const out = [];
  const done = (name, take, fate) => {
    if (s.piston[name] >= 1) return;
    s.piston[name] = 1;
    const b = take(s, cfg);
    if (b) out.push([fate, b]);
  };
  if (rose.p2f === 1) done('p2', takeAtDetector, 'rejected');
  if (rose.p3f === 1) done('p3', takeAtEnd, 'packed');
  return out;
}

/** Both belts one tick; at its end conveyor 1 hands a box over once the start of conveyor 2 is free. */
function runBelts(s, cfg) {
  const B = cfg.boxMm;
  if (s.out.c1) moveBelt(s.c1, cfg.c1SpeedMmS, s.dt, cfg.c1LengthMm - B / 2, B, s.detect ? heldAtDetector(cfg) : null);
  // A model that does not follow the real DetectSensor (it drives, or its path streams outputs
  // only) has its boxes seen by its own unit: should it follow later, they are not waited for.
  if (!s.detect) {
    const zoneStart = cfg.detectorAtMm - cfg.detectorMm / 2 - B / 2;
    for (const b of s.c1) if (!b.detected && b.x > zoneStart) { b.detected = true; b.passed = true; }
  }
  if (s.c1.length && s.c1[0].x >= cfg.c1LengthMm - B / 2 && (s.c2.length === 0 || s.c2[s.c2.length - 1].x >= 1.5 * B)) {
    const b = s.c1.shift();
    b.x = B / 2;
    b.where = 'c2';
    s.c2.push(b);
  }
  if (s.out.c2) moveBelt(s.c2, cfg.c2SpeedMmS, s.dt, cfg.c2LengthMm - B / 2, B);
}

/**
 * A new box arrives when its time has come, the entry is free and piston 1 is home.
 * @param {object} s
 * @param {object} cfg
 * @param {boolean[]} plan which boxes are damaged
 * @param {number} total boxes to produce
 * @param {() => boolean} running whether the line runs (boxes arrive only then)
 * @param {boolean} [now] a watching model: the real piston 1 pushed a box, so the next planned box
 *   is at the entry whatever this model's piston and clock say
 * @returns {object|null} the box that arrived
 */
function arrive(s, cfg, plan, total, running, now = false) {
  const due = !s.entry && s.counts.arrived < total
    && (now || (s.piston.p1 === 0 && s.time - s.lastArrival >= cfg.arrivalMs && running()));
  if (!due) return null;
  const box = { id: s.counts.arrived + 1, damaged: plan[s.counts.arrived], arrivedAt: s.time, where: 'entry', x: 0 };
  s.counts.arrived += 1;
  s.lastArrival = s.time;
  s.entry = box;
  s.boxes.push(box);
  return box;
}

/**
 * A watching model is told that the real plant's sensors saw a box (a rising PackSensor,
 * DetectSensor or Piston1Front in the PLC's state) or piston 1 home (Piston1Back), and where the
 * PLC's state carries it, what the real DetectSensor shows now; its boxes keep with the real ones:
 * - Piston1Front: an entry box piston 1 has pushed to the front lands; Piston1Back: piston 1 is
 *   home;
 * - DetectSensor on: the front box of conveyor 1 the unit has not seen yet is the one it saw. It
 *   goes to the unit's start, up from behind or back from further on (a shadow whose box is still
 *   at the entry lands it seen); DetectSensor off: a box it saw that is still inside goes to the
 *   unit's end. Until the unit saw it, a box waits short of the unit (runBelts);
 * - PackSensor: the front box of conveyor 2 goes to the end stop (handed over from conveyor 1 when
 *   conveyor 2 has none and it is past piston 2's reach).
 *
 * A shadow runs behind the real plant by its link, and ahead of it when the real plant's clock
 * fell behind (a driving page whose event loop was held ticks at most maxDtMs at once) or when
 * the shadow is timed by the edge and the driver by its own link (the replay). At the fast
 * profile's speeds a few milliseconds behind let conveyor 2 stop just short of the end stop and
 * piston 3 push thin air, and 0.3 s ahead carried a box past piston 2's reach before conveyor 1
 * stopped: the shadow packed a box the PLC rejected. Boxes never pass the box in front.
 * @param {object} s the state
 * @param {object} cfg
 * @param {{sk?: number, sd?: number, p1f?: number, p1b?: number}} rose the sensors that came on
 * @param {{sd?: number}} [real] the real DetectSensor now, where the PLC's state carries it
 * @returns {number} boxes moved
 */
function alignToSensors(s, cfg, rose, real = {}) {
  const B = cfg.boxMm;
  const zone = cfg.detectorMm / 2 + B / 2;
  let moved = 0;
  if (real.sd === 0 || real.sd === 1) {
    s.detect = s.detect || { pending: 0 }; // pending: DetectSensor saw boxes still at the shadow's entry
    if (real.sd === 0) moved += passed(s.c1, cfg.detectorAtMm + zone, B);
  }
  if (rose.p1f === 1 && s.entry) {
    s.piston.p1 = 1;
    land(s, B);
    moved += 1;
  }
  // Piston1Back: the real piston 1 is home, and the PLC stops driving it back. A shadow behind
  // the real plant would stop short of home and stay there (piston 1 is double-acting), with no
  // new box let in until it is home: a watching page that took over the plant then waited for
  // ever.
  if (rose.p1b === 1) s.piston.p1 = 0;
  if (rose.sd === 1) moved += detected(s, cfg.detectorAtMm - zone + 0.5, B);
  // PackSensor: the front box of conveyor 2 is the one at the end stop; with none, the front box
  // of conveyor 1 past piston 2's reach, not handed over yet.
  const end = cfg.c2LengthMm - B;
  if (rose.sk === 1 && !s.c2.length && s.c1.length && s.c1[0].x > cfg.detectorAtMm + zone + cfg.rejectReachMm) {
    const b = s.c1.shift();
    b.where = 'c2';
    b.x = end;
    s.c2.push(b);
    moved += 1;
  } else if (rose.sk === 1 && s.c2.length && s.c2[0].x < end) {
    s.c2[0].x = end;
    moved += 1;
  }
  return moved;
}

/**
 * DetectSensor went off: the box the unit saw has left it; one still inside moves up to `at`, the
 * unit's end (where the box in front leaves room), and every box it saw may ride on.
 * @returns {number} boxes moved
 */
function passed(c1, at, B) {
  let moved = 0;
  c1.forEach((b, i) => {
    if (!b.detected || b.passed) return;
    b.passed = true;
    if (b.x < at && (i === 0 || c1[i - 1].x - B >= at)) {
      b.x = at;
      moved += 1;
    }
  });
  return moved;
}

/**
 * DetectSensor came on: the front box of conveyor 1 the unit has not seen yet is the one it saw.
 * It goes to `at`, the unit's start: back from further on, or up (where the box in front leaves
 * room); it is marked seen. None on the belt: the entry box lands seen.
 * @returns {number} 1 when a box moved
 */
function detected(s, at, B) {
  const i = s.c1.findIndex((b) => !b.detected);
  if (i < 0) {
    if (s.entry && s.detect) s.detect.pending += 1;
    return 0;
  }
  const b = s.c1[i];
  b.detected = true;
  if (b.x === at || (b.x < at && i > 0 && s.c1[i - 1].x - B < at)) return 0;
  b.x = at;
  return 1;
}

/**
 * Where a box on conveyor 1 of a model that follows the real DetectSensor waits: short of the
 * unit until the real unit saw it.
 * @returns {(box: object) => number} the furthest the box may go
 */
function heldAtDetector(cfg) {
  const start = cfg.detectorAtMm - cfg.detectorMm / 2 - cfg.boxMm / 2;
  return (b) => (b.detected ? Infinity : start);
}

/** Every input's current value: the sensors and buttons as the PLC reads them. */
function sensors(s, cfg) {
  const B = cfg.boxMm;
  const inDetector = s.c1.filter((b) => Math.abs(b.x - cfg.detectorAtMm) < cfg.detectorMm / 2 + B / 2);
  return {
    st: s.buttons.st,
    sp: s.buttons.sp,
    se: s.entry ? 1 : 0,
    p1f: s.piston.p1 >= 1 ? 1 : 0,
    p1b: s.piston.p1 <= 0 ? 1 : 0,
    sd: inDetector.length ? 1 : 0,
    dmg: inDetector.some((b) => b.damaged) ? 1 : 0,
    p2f: s.piston.p2 >= 1 ? 1 : 0,
    sk: s.c2.length && s.c2[0].x >= cfg.c2LengthMm - B ? 1 : 0,
    p3f: s.piston.p3 >= 1 ? 1 : 0,
  };
}

module.exports = {
  INPUTS, OUTPUTS, MIN_CLEARANCE_MM,
  createState, movePiston, moveBelt, landingSpacing, pushEntry, rejectAtDetector, packAtEnd, runBelts, arrive, alignToSensors, strokesDone, sensors,
};
