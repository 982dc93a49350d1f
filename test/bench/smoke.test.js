'use strict';
/**
 * The benchmark's smoke run, end to end on real processes (virtual PLC, cloud and edge Node-RED,
 * Toxiproxy for the WAN profile): every table and plot must come from real samples. No timing
 * thresholds: the figures are checked for being measured, not for being fast.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const profiles = require('../../bench/profiles.json');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runBench } = require('../../bench/run');
const { hasProbe, STOCK } = require('../../bench/lib/system');
const { availablePaths } = require('../../system/flows');

/** Count the drawn items inside vega's mark groups (<g class="mark-... role-mark ...">). */
function dataMarks(svg) {
  let n = 0;
  const re = /<g class="mark-(?:rect|symbol|rule|line|area|path)[^"]*role-mark[^"]*"[^>]*>([\s\S]*?)<\/g>/g;
  let m;
  while ((m = re.exec(svg))) n += (m[1].match(/<(?:path|line|rect|circle)\b/g) || []).length;
  return n;
}

test('bench:smoke produces every table and plot from real samples', { timeout: 170000 }, async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-smoke-'));
  try {
    // The browser twin's section has its own test (test/bench/browser.test.js): one file, one budget.
    const res = await runBench({ smoke: true, browser: false, out, log: () => {} });
    for (const f of ['samples.csv', 'summary.json', 'report.md', 'plots/round-trips.svg', 'plots/users.svg', 'plots/bytes.svg']) {
      assert.ok(fs.existsSync(path.join(out, f)), `${f} written`);
    }
    const s = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const avail = availablePaths();
    assert.deepEqual(Object.keys(s.profiles), ['local', 'wan']);
    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    for (const [name, p] of Object.entries(s.profiles)) {
      assert.deepEqual(p.errors, [], `${name}: every probing path answered`);
      assert.ok(p.floor.n > 0, `${name}: network floor measured`);
      for (const proto of s.options.protocols.filter((k) => avail[k])) {
        if (hasProbe(proto)) {
          assert.ok(p.probe[proto] && p.probe[proto].stats.n > 0, `${name}: probe round trips for ${proto}`);
          assert.ok(p.load[proto] && p.load[proto][1].summary.n > 0, `${name}: load level 1 for ${proto}`);
        }
        if (STOCK[proto] && !STOCK[proto].productions) continue; // probes only
        const prod = p.productions[proto];
        assert.ok(prod, `${name}: productions ran for ${proto}`);
        if (prod.variables.overall.n > 0) {
          assert.ok(prod.bytes.frames > 0, `${name}: Table 3 bytes for ${proto}`);
        } else {
          // A path that produced nothing must say why in the report, never vanish from it.
          assert.ok(prod.failed > 0 && prod.reasons.length > 0, `${name}: ${proto} has samples or recorded failures`);
          assert.ok(md.includes(`${prod.failed} of ${prod.productions} productions failed`), `${name}: ${proto} failure is in the report`);
        }
      }
      // The bridge itself must always deliver Table 1 samples.
      if (avail.ws) assert.ok(p.productions.ws.variables.overall.n > 0, `${name}: Table 1 samples for ws`);
    }
    // The WAN floor must show the emulated latency: Toxiproxy holds each chunk at least latency -
    // jitter on each of the four legs (10 ± 2 twin-cloud, 5 ± 1 cloud-edge, each way), so no
    // echo comes back before 24 ms however loaded the machine; and the typical (median) WAN echo
    // is slower than the typical loopback one. (Comparing the WAN minimum with the loopback
    // maximum failed once on a busy machine: one slow loopback echo.)
    const legs = Object.values(profiles.wan.links).flatMap((l) => [l.up, l.down]);
    const least = legs.reduce((n, d) => n + d.latency - (d.jitter || 0), 0);
    assert.ok(s.profiles.wan.floor.min >= least, `no WAN echo faster than the toxics allow (${least} ms)`);
    assert.ok(s.profiles.wan.floor.median > s.profiles.local.floor.median, 'the WAN floor is above loopback');
    // Server cost per load level: the system under test, and what shares the machine with it.
    if (avail.ws) {
      const c = s.profiles.wan.load.ws[1].cost;
      for (const k of ['cloud', 'edge', 'plc', 'toxiproxy', 'load']) assert.equal(typeof c[k].cpuPct, 'number', `WAN level 1 ${k} CPU measured`);
      assert.equal(s.profiles.local.load.ws[1].cost.toxiproxy, undefined, 'no Toxiproxy on loopback');
      assert.ok(c.machine.cpuPct > 0 && c.machine.cpuPct <= 100, 'machine busy share measured');
    }

    // Raw samples: one row per measured sample, all numbers.
    const rows = fs.readFileSync(path.join(out, 'samples.csv'), 'utf8').trim().split('\n');
    assert.equal(rows[0], 'profile,section,protocol,variable,users,seq,ms');
    assert.ok(rows.length > 100);
    for (const r of rows.slice(1)) assert.ok(Number.isFinite(Number(r.split(',')[6])), r);

    // Plots: valid SVG documents with drawn data marks.
    for (const f of res.plots) {
      const svg = fs.readFileSync(path.join(out, f), 'utf8');
      assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, `${f} is an SVG document`);
      assert.match(svg, /<\/svg>\s*$/);
      assert.ok(dataMarks(svg) > 0, `${f} draws data marks`);
    }
    assert.equal(res.plots.length, 3);

    // The report holds each table beside the study's figures.
    const sections = ['## Targets', '## Network floor and probe round trips', '## Table 4 — load, profile local', '## Table 4 — load, profile wan',
      '## Where the time goes', '## Plots'];
    for (const h of sections) {
      assert.ok(md.includes(h), `report has "${h}"`);
    }
    if (Object.keys(s.profiles.local.productions).length) {
      for (const h of ['## Table 1', '## Table 5', '## Table 3', '### Bytes per unit of work', '## Complete cycle time']) {
        assert.ok(md.includes(h), `report has "${h}"`);
      }
      for (const [name, p] of Object.entries(s.profiles)) {
        for (const prod of Object.values(p.productions)) {
          if (prod.variables.overall.n > 0) {
            assert.ok(prod.bytes.boxes > 0 && prod.bytes.inPerBox > 0 && prod.bytes.outPerInputChange > 0, `${name}: bytes per unit of work`);
          }
        }
      }
    }
    if (avail.mqttws && avail.http) assert.ok(md.includes('## HTTP, MQTT over TCP and MQTT over WebSocket (the related study)'));

  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
