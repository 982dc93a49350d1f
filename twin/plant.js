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
 *
 * The parts: ./plant/config.js (profiles, boxes, the damage plan), ./plant/mechanics.js (the
 * physics of one tick), ./plant/view.js (scene, summary, one-line description).
 */
const { PROFILES, PlantError, rng, damagePlan, configure } = require('./plant/config');
const m = require('./plant/mechanics');
const { sceneOf, summaryOf, describeOf } = require('./plant/view');

const { INPUTS, OUTPUTS } = m;

/**
 * Create a plant.
 * @param {object} [opts]
 * @param {number} [opts.boxes] boxes to produce (default 20)
 * @param {number|string|Array} [opts.damaged] fraction damaged (default 0.3) or a 0/1 pattern
 * @param {number} [opts.seed] RNG seed (default 1)
 * @param {'fast'|'study'} [opts.profile] speeds and sizes (default fast); any field may be overridden in opts
 * @param {boolean} [opts.feedWhileStopped] boxes arrive while the plant is stopped too (the browser twin)
 */
function createPlant(opts = {}) {
  const conf = configure(opts);
  const { cfg, plan } = conf;
  let total = conf.total;
  const s = m.createState();
  const listeners = { inputs: [], box: [], done: [] };
  let sent = {}; // inputs as last reported
  let doneEmitted = false;

  function emit(ev, ...args) { for (const cb of listeners[ev]) cb(...args); }

  function finishBox(box, fate) {
    box.fate = fate;
    box.doneAt = s.time;
    box.where = fate;
    s.counts[fate] += 1;
    box.missorted = (fate === 'packed') === box.damaged;
    if (box.missorted) s.counts.missorted += 1;
    emit('box', fate, box);
  }

  // Boxes arrive only while the plant runs (the feeder upstream belongs to the same line).
  const running = () => s.out.grn === 1 || opts.feedWhileStopped === true;
  const summary = () => summaryOf(s, total, plan);

  /** Advance the physics by dtMs and report the inputs that changed (one frame). */
  function tick(dtMs) {
    if (!(dtMs >= 0)) throw new PlantError('E_PLANT_TICK', `tick needs a duration >= 0 ms, got ${dtMs}`);
    s.dt = dtMs;
    s.time += dtMs;
    for (const k of ['st', 'sp']) if (s.buttons[k] && s.time >= s.releaseAt[k]) s.buttons[k] = 0;
    m.pushEntry(s, cfg);
    const rejected = m.rejectAtDetector(s, cfg);
    if (rejected) finishBox(rejected, 'rejected');
    const packed = m.packAtEnd(s, cfg);
    if (packed) finishBox(packed, 'packed');
    m.runBelts(s, cfg);
    const arrived = m.arrive(s, cfg, plan, total, running);
    if (arrived) emit('box', 'arrived', arrived);

    const now = m.sensors(s, cfg);
    const changed = {};
    for (const k of INPUTS) if (now[k] !== sent[k]) changed[k] = now[k];
    sent = now;
    if (Object.keys(changed).length) emit('inputs', changed);
    if (!doneEmitted && total > 0 && s.counts.packed + s.counts.rejected === total) {
      doneEmitted = true;
      emit('done', summary());
    }
    return changed;
  }

  return {
    tick,
    /**
     * Take the PLC's outputs (a state change or a snapshot). Unknown keys are ignored.
     * @param {Object<string, number|boolean>} values
     */
    applyOutputs(values) {
      for (const [k, v] of Object.entries(values || {})) {
        if (k in s.out) s.out[k] = v === true ? 1 : v === false ? 0 : Number(v);
      }
    },
    /** Press a momentary button ('st' or 'sp'); it is released after buttonHoldMs of plant time. */
    press(button) {
      if (button !== 'st' && button !== 'sp') throw new PlantError('E_PLANT_BUTTON', `no button "${button}" (st or sp)`);
      s.buttons[button] = 1;
      s.releaseAt[button] = s.time + cfg.buttonHoldMs;
    },
    /**
     * Put one more box in the feed (the browser twin's "feed a box"): it arrives at the entry like
     * the planned ones, when the entry is free, piston 1 is home, arrivalMs has passed since the
     * last arrival and the plant runs (or feedWhileStopped is set).
     * @param {boolean} [damaged]
     * @returns {number} the id the box will get
     */
    feed(damaged = false) {
      plan.push(Boolean(damaged));
      total += 1;
      doneEmitted = false;
      return total;
    },
    /**
     * A watching model (the browser twin's mirror and replay): the real plant's sensors that came on
     * (sk, sd, p1f, p1b, p2f, p3f), and its DetectSensor now where the PLC's state carries it; the
     * boxes and pistons keep with the real ones (./plant/mechanics.js alignToSensors, strokesDone).
     * @param {{sk?: number, sd?: number, p1f?: number, p1b?: number, p2f?: number, p3f?: number}} rose
     * @param {{sd?: number}} [real]
     * @returns {number} boxes moved or taken
     */
    align(rose, real) {
      // The real piston 1 reached the front with a box this model was told of but has not at its
      // entry yet (its own piston was not home when the box came): the box is there now, and lands.
      if (rose && rose.p1f === 1) {
        const arrived = m.arrive(s, cfg, plan, total, running, true);
        if (arrived) emit('box', 'arrived', arrived);
      }
      const moved = m.alignToSensors(s, cfg, rose || {}, real || {});
      const taken = m.strokesDone(s, cfg, rose || {});
      for (const [fate, box] of taken) finishBox(box, fate);
      return moved + taken.length;
    },
    /**
     * The model drives the plant from now on (a watching page took the lease): it no longer
     * follows the real sensors, and its boxes no longer wait for the real DetectSensor.
     */
    drive() { s.detect = null; },
    /** Where everything is now, for drawing (copies: the caller may keep them); see ./plant/view.js. */
    scene: () => sceneOf(s),
    /** Every input's current value (sent whole on connect and reconnect). */
    inputs: () => m.sensors(s, cfg),
    summary,
    /** Where everything is, in one line: what a stalled production is waiting for. */
    describe: () => describeOf(s, sent),
    /** Subscribe: 'inputs' (changed values), 'box' (event, box), 'done' (summary). */
    on(ev, cb) {
      if (!listeners[ev]) throw new PlantError('E_PLANT_EVENT', `unknown event "${ev}"`);
      listeners[ev].push(cb);
      return this;
    },
    get outputs() { return { ...s.out }; },
    get boxes() { return s.boxes.map((b) => ({ ...b })); },
    get done() { return summary().done; },
    get time() { return s.time; },
    config: cfg,
    plan,
  };
}

module.exports = { PROFILES, INPUTS, OUTPUTS, PlantError, createPlant, damagePlan, rng };
