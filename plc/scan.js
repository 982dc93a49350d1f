'use strict';
/**
 * One scan of the virtual PLC over its process image: the S7 areas pulled in, the inputs other
 * interfaces queued applied, the program run, outputs and markers written, probe requests copied
 * to their responses, the S7 areas pushed out, then every interface told what changed.
 */
const { performance } = require('node:perf_hooks');
const tags = require('../nodes/lib/core/tags');
const program = require('./program');
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
  let state = program.initialState();
  image.writeOutputs(program.outputsOf(state));
  let lastValues = image.values();

  return {
    run() {
      const t0 = performance.now();
      const startedAt = clockNow();
      if (services.s7) services.s7.pull();
      const applied = image.applyPending();
      const res = program.scan(state, image.readInputs());
      state = res.state;
      if (state.scans % s.scanCountEvery !== 0) delete res.outputs.scn; // keep the last refreshed value
      image.writeOutputs(res.outputs);
      image.writeMarkers(program.markersOf(state));
      const probes = image.copyProbes();
      if (services.s7) services.s7.push(applied);
      counters.scans += 1;
      const values = image.values();
      const changed = tags.diff(lastValues, values);
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
