'use strict';
/**
 * The plant model of the box-sorting testbed: the physics around the PLC. Boxes arrive at the
 * entry, piston 1 pushes each onto conveyor 1, a detection unit reports presence (sd) and damage
 * (dmg), piston 2 rejects damaged boxes there, intact ones ride on to conveyor 2, stop at its end
 * (pack sensor sk) and piston 3 pushes them into packaging. End-position sensors p1f/p1b/p2f/p3f,
 * momentary start/stop buttons.
 *
 * Driven from outside: `tick(dtMs)` advances the physics and returns the inputs that changed
 * in that tick (one frame); `applyOutputs({short: value})` takes the PLC's outputs (c1, c2, p1fw,
 * p1bw, p2fw, p3fw, red, grn, counters). Pure JavaScript with no Node-only APIs, so the browser
 * twin can reuse it; time is only what `tick` is given, so tests run it in lock-step with the
 * PLC program.
 *
 * Geometry is in mm along each conveyor, box positions are box centres; times are in ms.
 * Sorting mistakes are detected, not prevented: a damaged box that leaves the reach of piston 2
 * before conveyor 1 stops (the PLC answered too late) rides on and gets packed, and is counted
 * as missorted. That is exactly what a too-slow twin ↔ PLC loop does to the real plant.
 */

/** Speeds and sizes. `fast` runs 20 boxes in about 10 s against a 10 ms PLC scan. */
const { codedError } = require('../nodes/lib/core/errors');
const tags = require('../nodes/lib/core/tags');
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

const MIN_CLEARANCE_MM = 20; // extra belt between two boxes beyond the detection unit's length, at least

// The plant's sensors and buttons are the PLC's inputs, what it acts on the PLC's streamed
// outputs: both as the I/O table names them.
const INPUTS = tags.inputs.map((t) => t.short);
const OUTPUTS = tags.outputs.filter((t) => !t.noStream).map((t) => t.short);

/** Error with a stable `code`. */
const PlantError = codedError('PlantError');

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
  if (!Number.isFinite(f) || f < 0 || f > 1) throw new PlantError('E_PLANT_CONFIG', `damaged must be a fraction 0..1 or a 0/1 pattern, got ${JSON.stringify(damaged)}`);
  const r = rng(seed);
  return Array.from({ length: boxes }, () => r() < f);
}

/**
 * Create a plant.
 * @param {object} [opts]
 * @param {number} [opts.boxes] boxes to produce (default 20)
 * @param {number|string|Array} [opts.damaged] fraction damaged (default 0.3) or a 0/1 pattern
 * @param {number} [opts.seed] RNG seed (default 1)
 * @param {'fast'|'study'} [opts.profile] speeds and sizes (default fast); any field may be overridden in opts
 */
function createPlant(opts = {}) {
  const profileName = opts.profile || 'fast';
  if (!PROFILES[profileName]) throw new PlantError('E_PLANT_CONFIG', `unknown profile "${profileName}" (fast or study)`);
  const cfg = { ...PROFILES[profileName] };
  for (const k of Object.keys(cfg)) if (opts[k] !== undefined) cfg[k] = Number(opts[k]);
  let total = opts.boxes === undefined ? 20 : Number(opts.boxes);
  if (!Number.isInteger(total) || total < 0) throw new PlantError('E_PLANT_CONFIG', `boxes must be a whole number, got ${opts.boxes}`);
  const plan = damagePlan(total, opts.damaged === undefined ? 0.3 : opts.damaged, opts.seed === undefined ? 1 : Number(opts.seed));

  const B = cfg.boxMm;
  const out = Object.fromEntries(OUTPUTS.map((k) => [k, 0])); // last PLC outputs seen
  const listeners = { inputs: [], box: [], done: [] };
  const boxes = []; // every box that arrived
  let time = 0;
  let lastArrival = -Infinity;
  let entry = null; // box waiting at the entry (or being pushed by piston 1)
  const c1 = []; // boxes on conveyor 1, front (largest x) first
  const c2 = []; // boxes on conveyor 2, front first
  const piston = { p1: 0, p2: 0, p3: 0 }; // 0 = back, 1 = front
  const buttons = { st: 0, sp: 0 };
  const releaseAt = { st: 0, sp: 0 };
  let sent = {}; // inputs as last reported
  let doneEmitted = false;
  const counts = { arrived: 0, packed: 0, rejected: 0, missorted: 0 };
  let tickDt = 0; // duration of the tick being computed

  function emit(ev, ...args) { for (const cb of listeners[ev]) cb(...args); }

  function finishBox(box, fate) {
    box.fate = fate;
    box.doneAt = time;
    box.where = fate;
    counts[fate] += 1;
    box.missorted = (fate === 'packed') === box.damaged;
    if (box.missorted) counts.missorted += 1;
    emit('box', fate, box);
  }

  /** Move a piston one tick; returns true when it reached the front in this tick. */
  function movePiston(name, fw, bw, strokeMs, blockedAt) {
    const before = piston[name];
    let p = before;
    if (fw && !bw) p = Math.min(1, p + tickDt / strokeMs);
    else if (bw && !fw) p = Math.max(0, p - tickDt / strokeMs);
    if (blockedAt !== undefined && p > blockedAt) p = Math.max(before, blockedAt);
    piston[name] = p;
    return before < 1 && p >= 1;
  }

  /** Run a belt one tick: boxes move together, queue behind each other, stop at endX. */
  function moveBelt(belt, speed, endX) {
    const step = (speed * tickDt) / 1000;
    for (let i = 0; i < belt.length; i++) {
      const b = belt[i];
      const x = Math.min(b.x + step, i === 0 ? endX : belt[i - 1].x - B);
      b.x = Math.max(b.x, x);
    }
  }

  /** Advance the physics by dtMs and report the inputs that changed (one frame). */
  function tick(dtMs) {
    if (!(dtMs >= 0)) throw new PlantError('E_PLANT_TICK', `tick needs a duration >= 0 ms, got ${dtMs}`);
    tickDt = dtMs;
    time += dtMs;
    for (const k of ['st', 'sp']) if (buttons[k] && time >= releaseAt[k]) buttons[k] = 0;

    // Piston 1 pushes the entry box onto conveyor 1; it stalls short of the front while the
    // landing spot is still occupied (conveyor 1 stopped or slow).
    // Boxes keep at least a detection unit's length apart, so the detector never sees two at once,
    // plus the belt that runs past it in detectorGapMs, so its "no box" between them lasts that long.
    const clearanceMm = Math.max(MIN_CLEARANCE_MM, (cfg.c1SpeedMmS * cfg.detectorGapMs) / 1000);
    const spacing = B + Math.max(cfg.landingGapMm, cfg.detectorMm + clearanceMm);
    const landingFree = c1.length === 0 || c1[c1.length - 1].x - B / 2 >= spacing;
    const blockAt = entry && !landingFree ? 0.9 : undefined;
    if (movePiston('p1', out.p1fw, out.p1bw, cfg.p1StrokeMs, blockAt) && entry) {
      entry.x = B / 2;
      entry.where = 'c1';
      c1.push(entry);
      entry = null;
    }
    // Piston 2 (single-acting, spring return) rejects the box at the detection unit.
    if (movePiston('p2', out.p2fw, !out.p2fw, cfg.p2StrokeMs)) {
      let best = -1;
      let bestDist = Infinity;
      c1.forEach((b, i) => {
        const d = b.x - cfg.detectorAtMm;
        const reach = cfg.detectorMm / 2 + B / 2 + (d > 0 ? cfg.rejectReachMm : 0);
        if (Math.abs(d) <= reach && Math.abs(d) < bestDist) { best = i; bestDist = Math.abs(d); }
      });
      if (best >= 0) finishBox(c1.splice(best, 1)[0], 'rejected');
    }
    // Piston 3 pushes the box at the end stop of conveyor 2 into packaging.
    if (movePiston('p3', out.p3fw, !out.p3fw, cfg.p3StrokeMs)) {
      if (c2.length && c2[0].x >= cfg.c2LengthMm - B) finishBox(c2.shift(), 'packed');
    }

    if (out.c1) moveBelt(c1, cfg.c1SpeedMmS, cfg.c1LengthMm - B / 2);
    // At its end conveyor 1 hands a box over to conveyor 2 once the start of conveyor 2 is free.
    if (c1.length && c1[0].x >= cfg.c1LengthMm - B / 2 && (c2.length === 0 || c2[c2.length - 1].x >= 1.5 * B)) {
      const b = c1.shift();
      b.x = B / 2;
      b.where = 'c2';
      c2.push(b);
    }
    if (out.c2) moveBelt(c2, cfg.c2SpeedMmS, cfg.c2LengthMm - B / 2);

    // A new box arrives when its time has come, the entry is free and piston 1 is home.
    if (!entry && counts.arrived < total && piston.p1 === 0 && time - lastArrival >= cfg.arrivalMs && running()) {
      const box = { id: counts.arrived + 1, damaged: plan[counts.arrived], arrivedAt: time, where: 'entry', x: 0 };
      counts.arrived += 1;
      lastArrival = time;
      entry = box;
      boxes.push(box);
      emit('box', 'arrived', box);
    }

    const now = inputs();
    const changed = {};
    for (const k of INPUTS) if (now[k] !== sent[k]) changed[k] = now[k];
    sent = now;
    if (Object.keys(changed).length) emit('inputs', changed);
    if (!doneEmitted && total > 0 && counts.packed + counts.rejected === total) {
      doneEmitted = true;
      emit('done', summary());
    }
    return changed;
  }

  // Boxes arrive only while the plant runs (the feeder upstream belongs to the same line).
  function running() { return out.grn === 1 || opts.feedWhileStopped === true; }

  /** Every input's current value (sent whole on connect and reconnect). */
  function inputs() {
    const inDetector = c1.filter((b) => Math.abs(b.x - cfg.detectorAtMm) < cfg.detectorMm / 2 + B / 2);
    return {
      st: buttons.st,
      sp: buttons.sp,
      se: entry ? 1 : 0,
      p1f: piston.p1 >= 1 ? 1 : 0,
      p1b: piston.p1 <= 0 ? 1 : 0,
      sd: inDetector.length ? 1 : 0,
      dmg: inDetector.some((b) => b.damaged) ? 1 : 0,
      p2f: piston.p2 >= 1 ? 1 : 0,
      sk: c2.length && c2[0].x >= cfg.c2LengthMm - B ? 1 : 0,
      p3f: piston.p3 >= 1 ? 1 : 0,
    };
  }

  /**
   * Take the PLC's outputs (a state change or a snapshot). Unknown keys are ignored.
   * @param {Object<string, number|boolean>} values
   */
  function applyOutputs(values) {
    for (const [k, v] of Object.entries(values || {})) {
      if (k in out) out[k] = v === true ? 1 : v === false ? 0 : Number(v);
    }
  }

  /**
   * Put one more box in the feed (the browser twin's "feed a box"): it arrives at the entry like
   * the planned ones, when the entry is free, piston 1 is home, arrivalMs has passed since the
   * last arrival and the plant runs (or feedWhileStopped is set).
   * @param {boolean} [damaged]
   * @returns {number} the id the box will get
   */
  function feed(damaged = false) {
    plan.push(Boolean(damaged));
    total += 1;
    doneEmitted = false;
    return total;
  }

  /**
   * Where everything is now, for drawing: the boxes in the plant (entry, conveyor 1, conveyor 2;
   * x in mm along their conveyor), the pistons (0 back .. 1 front), the buttons and the PLC
   * outputs last applied. Copies: the caller may keep them.
   */
  function scene() {
    const bx = (b) => ({ id: b.id, damaged: b.damaged, x: b.x });
    return {
      time,
      entry: entry ? bx(entry) : null,
      c1: c1.map(bx),
      c2: c2.map(bx),
      pistons: { ...piston },
      buttons: { ...buttons },
      outputs: { ...out },
    };
  }

  /** Press a momentary button ('st' or 'sp'); it is released after buttonHoldMs of plant time. */
  function press(button) {
    if (button !== 'st' && button !== 'sp') throw new PlantError('E_PLANT_BUTTON', `no button "${button}" (st or sp)`);
    buttons[button] = 1;
    releaseAt[button] = time + cfg.buttonHoldMs;
  }

  function summary() {
    return {
      boxes: total,
      arrived: counts.arrived,
      packed: counts.packed,
      rejected: counts.rejected,
      missorted: counts.missorted,
      onBelts: (entry ? 1 : 0) + c1.length + c2.length,
      done: total > 0 ? counts.packed + counts.rejected === total : true,
      damaged: plan.filter(Boolean).length,
      time,
    };
  }

  /**
   * Where everything is, in one line: what a stalled production is waiting for. Boxes as
   * id@mm (d = damaged), pistons 0 (back) .. 1 (front), then the PLC outputs and the inputs last
   * reported to it.
   */
  function describe() {
    const bx = (b) => `${b.id}${b.damaged ? 'd' : ''}@${Math.round(b.x)}`;
    const on = (o) => Object.entries(o).filter(([, v]) => v).map(([k, v]) => (v === 1 ? k : `${k}=${v}`)).join(',') || '-';
    return `t=${Math.round(time)} ms; entry ${entry ? bx(entry) : '-'}; c1 [${c1.map(bx).join(' ')}]; c2 [${c2.map(bx).join(' ')}]; `
      + `pistons p1 ${piston.p1.toFixed(2)} p2 ${piston.p2.toFixed(2)} p3 ${piston.p3.toFixed(2)}; PLC outputs ${on(out)}; inputs sent ${on(sent)}`;
  }

  return {
    tick,
    applyOutputs,
    press,
    feed,
    scene,
    inputs,
    summary,
    describe,
    /** Subscribe: 'inputs' (changed values), 'box' (event, box), 'done' (summary). */
    on(ev, cb) {
      if (!listeners[ev]) throw new PlantError('E_PLANT_EVENT', `unknown event "${ev}"`);
      listeners[ev].push(cb);
      return this;
    },
    get outputs() { return { ...out }; },
    get boxes() { return boxes.map((b) => ({ ...b })); },
    get done() { return summary().done; },
    get time() { return time; },
    config: cfg,
    plan,
  };
}

module.exports = { PROFILES, INPUTS, OUTPUTS, PlantError, createPlant, damagePlan, rng };
