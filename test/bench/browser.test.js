'use strict';
/**
 * The benchmark's browser twin section on real processes (virtual PLC, cloud and edge Node-RED)
 * and Debian's Chromium: for every protocol the page speaks, frames drawn, round trips seen by
 * the page, its heap and its worker's, Chromium's CPU, in the summary and the report. Measured,
 * not judged: no timing thresholds.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runBench } = require('../../bench/run');
const { availablePaths } = require('../../system/flows');

test('the bench measures the browser twin over every protocol the page speaks', { timeout: 170000 }, async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-browser-'));
  try {
    const avail = availablePaths();
    const protocols = ['ws', 'mqttws', 'http'].filter((k) => avail[k]);
    await runBench({ smoke: true, protocols, profiles: ['local'], productions: false, probes: false, load: false, floorSamples: 5, out, log: () => {} });
    const s = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const p = s.profiles.local;
    assert.deepEqual(p.errors, []);
    for (const proto of protocols) {
      const b = p.browser[proto];
      assert.ok(b, `browser twin measured over ${proto}`);
      assert.ok(b.frames > 0 && b.frameInterval.n > 0, `${proto}: frames drawn`);
      assert.ok(b.rtt.n > 0, `${proto}: round trips seen by the page`);
      assert.ok(b.boxes > 0, `${proto}: boxes sorted while measured`);
      assert.ok(b.heapMB > 0 && b.workerHeapMB > 0, `${proto}: JS heap of the page and its worker`);
      assert.equal(typeof b.cpuPct.renderer, 'number');
      assert.equal(b.webgl, true, `${proto}: the 3D view ran`);
      assert.deepEqual(b.pageErrors, []);
    }
    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    assert.ok(md.includes('## The browser twin: twin-side cost'));
    assert.match(md, /\| local \| WebSocket–S7 \| [\d.]+ \(202\) \|/, 'frame time beside the study\'s Table 2');
    const rows = fs.readFileSync(path.join(out, 'samples.csv'), 'utf8').trim().split('\n');
    assert.ok(rows.some((r) => /^local,browser,ws,/.test(r)), 'the page\'s round trips are raw samples too');
    assert.ok(rows.some((r) => /^local,browser-frame,ws,interval,/.test(r)));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
