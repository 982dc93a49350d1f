'use strict';
/** plc/cycle.js: a fixed-rate cycle that re-anchors after an overrun and survives a failing scan. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startCycle } = require('../../plc/cycle');
const { waitFor } = require('../helpers/plc');

const counters = () => ({ lastScanMs: 0, maxScanMs: 0, overruns: 0 });

test('scans run, their durations are counted, and stop ends the cycle', async () => {
  const c = counters();
  let runs = 0;
  const cycle = startCycle({ periodMs: 1, counters: c, run: () => { runs += 1; return runs; }, onError: assert.fail });
  await waitFor(() => runs >= 3, 5000, 'three scans');
  cycle.stop();
  const n = runs;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(runs, n, 'no scan after stop');
  assert.equal(c.lastScanMs, n);
  assert.equal(c.maxScanMs, n);
});

test('a scan ending past the next due time is an overrun and the cycle re-anchors (no catch-up burst)', async () => {
  const c = counters();
  let t = 0;
  const at = [];
  // A clock the test moves: the first scan takes 35 periods of 10 ms; the others none.
  const cycle = startCycle({
    periodMs: 10, counters: c, now: () => t,
    run: () => { at.push(t); if (at.length === 1) t += 350; else t += 10; return 0; },
    onError: assert.fail,
  });
  await waitFor(() => at.length >= 4, 5000, 'four scans');
  cycle.stop();
  assert.equal(c.overruns, 1);
  assert.deepEqual(at.slice(0, 4), [0, 350, 360, 370], 'one scan per period after the overrun, not 35 at once');
});

test('a scan that throws is counted and reported, and the next one still runs', async () => {
  const c = counters();
  const errors = [];
  let runs = 0;
  const cycle = startCycle({
    periodMs: 1, counters: c, onError: (e) => errors.push(e.message),
    run: () => { runs += 1; if (runs === 1) throw new Error('boom'); return 0; },
  });
  await waitFor(() => runs >= 2, 5000, 'a second scan');
  cycle.stop();
  assert.deepEqual(errors, ['boom']);
  assert.equal(c.scanErrors, 1);
});
