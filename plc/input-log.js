'use strict';
/**
 * The virtual PLC's input log: one JSON line for every scan whose inputs differ from the scan
 * before, whichever interface wrote them (S7, OPC UA, Modbus, MQTT):
 *
 *   {"t":1795300000123.4,"tp":1795300000113.4,"scan":4711,"in":{"st":0,"sp":0,"se":1,...}}
 *
 * A write that shows first in the scan starting at t landed after the scan before it started, at
 * tp (null for the first scan of the process): it landed in (tp, t].
 * t is the scan's start on nodes/lib/core/clock.js's clock (monotonic, anchored to the wall clock), so a test on the same machine can put each change
 * beside what it sent and when: the fault suite (bench/lib/faults.js) checks from it that no
 * command was applied after its deadline and that nothing undid an acknowledged one. A real
 * PLC's equivalent is a trace of the input DB; this is the virtual PLC's, off unless asked for
 * (`--input-log FILE`, S7T_PLC_INPUT_LOG).
 */
const fs = require('node:fs');
const { demoTable } = require('../nodes/lib/core/io-table');

/**
 * @param {string} file appended to (created with its folder)
 * @param {object} [table] the PLC's (default: the demo plant's): its inputs are logged
 * @returns {{scan(values: object, scan: number, t: number): void, close(): Promise<void>}} scan()
 *   is called with every scan's values, its number and its start time
 */
function createInputLog(file, table = demoTable()) {
  fs.mkdirSync(require('node:path').dirname(file), { recursive: true });
  const out = fs.createWriteStream(file, { flags: 'a' });
  let last = null;
  let prevT = null;
  return {
    /** After a scan: log the inputs if they changed. */
    scan(values, scan, t) {
      const tp = prevT;
      prevT = t;
      const inputs = {};
      let same = last !== null;
      for (const tag of table.inputs) {
        inputs[tag.short] = values[tag.short];
        if (same && last[tag.short] !== values[tag.short]) same = false;
      }
      if (same) return;
      last = inputs;
      out.write(`${JSON.stringify({ t, tp, scan, in: inputs })}\n`);
    },
    close() { return new Promise((resolve) => out.end(resolve)); },
  };
}

/**
 * Read an input log back.
 * @param {string} file
 * @returns {Array<{t: number, tp: number|null, scan: number, in: object}>}
 */
function readInputLog(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

module.exports = { createInputLog, readInputLog };
