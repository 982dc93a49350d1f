'use strict';
/**
 * Flow layout rules, as the editor draws a flow: every node inside the canvas (no part left of
 * x = 0 or above y = 0), no two nodes of a tab overlapping, positions on the editor's 20 px grid.
 *
 * Boxes come either from the editor itself (the width and height it rendered, in the editor test)
 * or from `estimateBox`, an upper bound of the editor's own sizing, for flow files checked
 * without a browser.
 */

const GRID = 20; // the editor's grid (RED.view.gridSize())
const NODE_HEIGHT = 30; // one line of label
const NODE_MIN_WIDTH = 100;
// The editor sizes a node as 20 * ceil((label width + 50 + 7 with an input) / 20), at least 100:
// view.js. Its label font (14 px Helvetica Neue / Arial / Liberation Sans) measured at 6.3 to 7.3
// px per character on the flows of this repository (whole labels, mixed case); 8 is an upper
// bound, so a flow that passes with estimates passes in the editor too.
const PX_PER_CHAR = 8;

/** Types whose nodes are drawn without a box on the canvas. */
const NOT_DRAWN = new Set(['tab', 'subflow', 'group', 'junction']);

/**
 * The label the editor shows, as far as a flow file tells: the name, else the type.
 * @param {object} n
 */
function label(n) {
  return String(n.name || n.label || n.type);
}

/**
 * An upper bound of the box the editor draws for a node.
 * @param {object} n a flow node with x, y
 * @returns {{x:number, y:number, w:number, h:number}}
 */
function estimateBox(n) {
  const text = label(n).split('\\n');
  const widest = Math.max(...text.map((l) => l.length));
  const w = Math.max(NODE_MIN_WIDTH, GRID * Math.ceil((widest * PX_PER_CHAR + 50 + 7) / GRID));
  const outputs = Array.isArray(n.wires) ? n.wires.length : 0;
  const h = Math.max(NODE_HEIGHT, outputs * 15, (text.length - 1) * 24 + NODE_HEIGHT);
  return { x: n.x, y: n.y, w, h };
}

/**
 * The layout problems of a flow (a flow file, a part, an example).
 * @param {object[]} flow
 * @param {(n: object) => {x:number, y:number, w:number, h:number}} [boxOf] default estimateBox
 * @param {{grid?: boolean}} [opts] grid: also require positions on the grid (default true)
 * @returns {string[]} empty when the layout is fine
 */
function layoutProblems(flow, boxOf = estimateBox, opts = {}) {
  const grid = opts.grid !== false;
  const problems = [];
  const byTab = new Map();
  for (const n of flow) {
    if (NOT_DRAWN.has(n.type) || typeof n.x !== 'number' || typeof n.y !== 'number' || !n.z) continue;
    const b = boxOf(n);
    const name = `${n.type} ${n.id}${n.name ? ` "${String(n.name).slice(0, 40)}"` : ''}`;
    if (b.x - b.w / 2 < 0) problems.push(`${name}: left edge at x=${b.x - b.w / 2}, outside the canvas`);
    if (b.y - b.h / 2 < 0) problems.push(`${name}: top edge at y=${b.y - b.h / 2}, outside the canvas`);
    // The editor snaps the centre's y to the grid, and the left or right edge to it (its width is
    // a multiple of 20), so x is a multiple of 10.
    if (grid && (n.y % GRID !== 0 || n.x % (GRID / 2) !== 0)) problems.push(`${name}: (${n.x}, ${n.y}) is off the ${GRID} px grid`);
    if (!byTab.has(n.z)) byTab.set(n.z, []);
    byTab.get(n.z).push({ name, b });
  }
  for (const nodes of byTab.values()) {
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i].b;
        const c = nodes[j].b;
        const apartX = Math.abs(a.x - c.x) >= (a.w + c.w) / 2;
        const apartY = Math.abs(a.y - c.y) >= (a.h + c.h) / 2;
        if (!apartX && !apartY) problems.push(`${nodes[i].name} overlaps ${nodes[j].name}`);
      }
    }
  }
  return problems;
}

module.exports = { layoutProblems, estimateBox, GRID };
