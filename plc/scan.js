'use strict';
/**
 * One scan of the virtual PLC over its process image: the S7 areas pulled in, the inputs other
 * interfaces queued applied, the table's program run (plc/programs.js), outputs and markers written, probe requests copied
 * to their responses, the signal's samples due written into its ring (plc/signal.js, when on),
 * the S7 areas pushed out, then every interface told what changed.
 */
const { performance } = require('node:perf_hooks');
const { programFor } = require('./programs');
const { now: clockNow } = require('../nodes/lib/core/clock');

/**
 * @param {object} s
 * @param {object} s.image plc/image.js
 * @param {Object<string, object>} s.services the running interfaces by name (s7: pull/push,
 *   any: afterScan(ev)); read at every scan, so it may change
 * @param {{scans: number}} s.counters
 * @param {number} s.scanCountEvery refresh ScanCount every N scans (each is an S7 write)
 * @param {{scan(values, scans, startedAt): void}|null} [s.inputLog] plc/input-log.js
 * @param {(ev: object) => void} s.onScan after each scan: {changed, probes, applied, scans}
 * @returns {{run(): number, values(): object}} run: one scan, returns its duration in ms;
 *   values: every tag by short name, as of the last scan
 */
function createScan(s) {
  const { image, services, counters } = s;
  const program = programFor(image.table, { scanCountEvery: s.scanCountEvery, counters });
  program.start(image);
  let lastValues = image.values();

  return {
    run() {
      const t0 = performance.now();
      const startedAt = clockNow();
      if (services.s7) services.s7.pull();
      const applied = image.applyPending();
      program.scan(image);
      const probes = image.copyProbes();
      if (image.ring) image.ring.advance(clockNow());
      if (services.s7) services.s7.push(applied);
      counters.scans += 1;
      const values = image.values();
      const changed = image.table.diff(lastValues, values);
      lastValues = values;
      if (s.inputLog) s.inputLog.scan(values, counters.scans, startedAt);
      const ev = { changed, probes, applied, scans: counters.scans };
      for (const svc of Object.values(services)) if (svc.afterScan) svc.afterScan(ev);
      s.onScan(ev);
      return performance.now() - t0;
    },
    values: () => lastValues,
  };
}

module.exports = { createScan };
