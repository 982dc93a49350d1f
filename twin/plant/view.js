'use strict';
/**
 * The plant model's state as others read it: what to draw (boxes, pistons, buttons, the PLC's
 * outputs), the production so far, and one line that says where everything is (what a stalled
 * production is waiting for). Copies and strings only: a reader cannot move the plant.
 * Browser-safe.
 */

/**
 * Where everything is now, for drawing: the boxes in the plant (entry, conveyor 1, conveyor 2;
 * x in mm along their conveyor), the pistons (0 back .. 1 front), the buttons and the PLC
 * outputs last applied.
 * @param {object} s the state (./mechanics.js)
 */
function sceneOf(s) {
  const bx = (b) => ({ id: b.id, damaged: b.damaged, x: b.x });
  return {
    time: s.time,
    entry: s.entry ? bx(s.entry) : null,
    c1: s.c1.map(bx),
    c2: s.c2.map(bx),
    pistons: { ...s.piston },
    buttons: { ...s.buttons },
    outputs: { ...s.out },
  };
}

/**
 * The production so far.
 * @param {object} s the state
 * @param {number} total boxes to produce
 * @param {boolean[]} plan which boxes are damaged
 */
function summaryOf(s, total, plan) {
  const { counts } = s;
  return {
    boxes: total,
    arrived: counts.arrived,
    packed: counts.packed,
    rejected: counts.rejected,
    missorted: counts.missorted,
    onBelts: (s.entry ? 1 : 0) + s.c1.length + s.c2.length,
    done: total > 0 ? counts.packed + counts.rejected === total : true,
    damaged: plan.filter(Boolean).length,
    time: s.time,
  };
}

/**
 * Where everything is, in one line: boxes as id@mm (d = damaged), pistons 0 (back) .. 1 (front),
 * then the PLC outputs and the inputs last reported to it.
 * @param {object} s the state
 * @param {object} sent the inputs last reported
 */
function describeOf(s, sent) {
  const bx = (b) => `${b.id}${b.damaged ? 'd' : ''}@${Math.round(b.x)}`;
  const on = (o) => Object.entries(o).filter(([, v]) => v).map(([k, v]) => (v === 1 ? k : `${k}=${v}`)).join(',') || '-';
  return `t=${Math.round(s.time)} ms; entry ${s.entry ? bx(s.entry) : '-'}; c1 [${s.c1.map(bx).join(' ')}]; c2 [${s.c2.map(bx).join(' ')}]; `
    + `pistons p1 ${s.piston.p1.toFixed(2)} p2 ${s.piston.p2.toFixed(2)} p3 ${s.piston.p3.toFixed(2)}; PLC outputs ${on(s.out)}; inputs sent ${on(sent)}`;
}

module.exports = { sceneOf, summaryOf, describeOf };
