'use strict';
/**
 * The box-sorting program of the virtual S7-1500 as a pure function: one call is one scan.
 * `scan(prevState, inputs) → {state, outputs}` never touches I/O, timers or globals, so it is
 * tested scan by scan and runs the same under any interface (S7, OPC UA, Modbus, MQTT).
 *
 * Semantics (the plant's specified behaviour, which the twins' plant model follows too):
 * - Running latch: StartButton rising edge sets it (unless StopButton), StopButton resets it.
 *   GreenLamp = Running.
 * - ConveyorBelt (c1) = Running AND NOT RejectActive; Conveyor2 (c2) = Running AND NOT PackActive.
 * - Piston 1 feed: Running AND se AND NOT Piston1Cycle AND NOT p1f → Piston1Cycle, p1fw, BoxesIn++.
 *   p1f while p1fw → p1fw=0, p1bw=1. p1b while p1bw → p1bw=0, Piston1Cycle=0.
 * - Detection: sd rising edge while Running: dmg → RejectActive, p2fw, red (conveyor 1 stops).
 *   p2f while p2fw → p2fw=0, red=0, RejectActive=0, RejectCount++.
 * - Packaging: sk rising edge while Running → PackActive, p3fw (conveyor 2 stops).
 *   p3f while p3fw → p3fw=0, PackActive=0, GoodCount++.
 *
 * Choices the specification leaves open, made the way a PLC programmer usually makes them:
 * - A STOP holds new actions (feed, detect, pack need Running) but lets a piston that is already
 *   out finish its stroke and come home (the completion steps do not need Running). Stopping
 *   with a piston half out would leave the plant in a state the twin cannot recover from.
 * - Edges are taken against the previous scan's sampled inputs, every scan, running or not, so
 *   a sensor that rose while stopped does not fire when the plant starts again.
 * - A trigger that arrives while its sequence is still active is ignored (a second box at the
 *   detector while a reject is in progress is not counted twice).
 * - Counters wrap like S7 INT/DINT arithmetic (32767 + 1 = -32768), as the CPU does without
 *   overflow checking.
 */

/** @returns {object} the state after a cold start (all markers and outputs off, counters 0) */
function initialState() {
  return {
    running: 0, rejectActive: 0, packActive: 0, p1Cycle: 0, judged: 1, // judged: the box at the detector
    p1fw: 0, p1bw: 0, p2fw: 0, p3fw: 0, red: 0,
    good: 0, rejected: 0, boxesIn: 0, scans: 0,
    // previous scan's inputs, for edge detection
    prev: { st: 0, sd: 0, sk: 0 },
  };
}

const wrapInt = (v) => ((v + 32768) & 0xffff) - 32768;
const wrapDint = (v) => v | 0;
const bit = (v) => (v ? 1 : 0);

/**
 * Execute one scan.
 * @param {object} prevState the state returned by the previous scan (or initialState())
 * @param {Object<string, number>} inputs sampled inputs keyed by short name (missing = 0)
 * @returns {{state: object, outputs: Object<string, number>}} the new state (prevState is not
 *   modified) and every output tag keyed by short name
 */
function scan(prevState, inputs) {
  const s = { ...prevState, prev: { ...prevState.prev } };
  const i = {
    st: bit(inputs.st), sp: bit(inputs.sp), se: bit(inputs.se), p1f: bit(inputs.p1f),
    p1b: bit(inputs.p1b), sd: bit(inputs.sd), dmg: bit(inputs.dmg), p2f: bit(inputs.p2f),
    sk: bit(inputs.sk), p3f: bit(inputs.p3f),
  };
  const rise = (k) => i[k] === 1 && s.prev[k] === 0;

  // Network 1: running latch. Stop dominates start (reset priority, as an RS flip-flop).
  if (rise('st') && !i.sp) s.running = 1;
  if (i.sp) s.running = 0;

  // Network 2: piston 1 completion steps (run even when stopped: the piston comes home).
  if (s.p1fw && i.p1f) { s.p1fw = 0; s.p1bw = 1; }
  if (s.p1bw && i.p1b) { s.p1bw = 0; s.p1Cycle = 0; }
  // Network 3: piston 1 feed.
  if (s.running && i.se && !s.p1Cycle && !i.p1f) {
    s.p1Cycle = 1; s.p1fw = 1; s.boxesIn = wrapDint(s.boxesIn + 1);
  }

  // Network 4: reject completion, then detection.
  if (s.p2fw && i.p2f) { s.p2fw = 0; s.red = 0; s.rejectActive = 0; s.rejected = wrapInt(s.rejected + 1); }
  // A box is judged while it is at the detector, from sd's rising edge on, not on the edge alone:
  // sd and dmg written by one S7 job can land in two scans (the server applies a job's items one
  // at a time), and a damaged box whose dmg came one scan after sd would otherwise ride on. A box
  // that arrives while stopped or during a reject is not judged, as before.
  if (rise('sd')) s.judged = s.running && !s.rejectActive ? 0 : 1;
  if (i.sd && !s.judged && s.running && !s.rejectActive && i.dmg) { s.rejectActive = 1; s.p2fw = 1; s.red = 1; s.judged = 1; }

  // Network 5: packaging completion, then start.
  if (s.p3fw && i.p3f) { s.p3fw = 0; s.packActive = 0; s.good = wrapInt(s.good + 1); }
  if (rise('sk') && s.running && !s.packActive) { s.packActive = 1; s.p3fw = 1; }

  s.scans = wrapDint(s.scans + 1);
  s.prev = { st: i.st, sd: i.sd, sk: i.sk };
  return { state: s, outputs: outputsOf(s) };
}

/**
 * The output tags that a state drives.
 * @param {object} s program state
 * @returns {Object<string, number>} keyed by short name
 */
function outputsOf(s) {
  return {
    c1: bit(s.running && !s.rejectActive),
    p1fw: s.p1fw,
    p1bw: s.p1bw,
    p2fw: s.p2fw,
    c2: bit(s.running && !s.packActive),
    p3fw: s.p3fw,
    red: s.red,
    grn: s.running,
    ng: s.good,
    nr: s.rejected,
    nb: s.boxesIn,
    scn: s.scans,
  };
}

/**
 * The memory markers (MK area) a state holds, keyed by the marker names of the I/O table.
 * @param {object} s program state
 * @returns {{Running:number, RejectActive:number, PackActive:number, Piston1Cycle:number}}
 */
function markersOf(s) {
  return { Running: s.running, RejectActive: s.rejectActive, PackActive: s.packActive, Piston1Cycle: s.p1Cycle };
}

module.exports = { initialState, scan, outputsOf, markersOf };
