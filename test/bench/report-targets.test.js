'use strict';
/**
 * The report's targets table says why a target has no figure (the profile, the path or the
 * section was not in the run), on the kept full run's own summary cut down as a narrower run
 * would leave it.
 */
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { markdown } = require('../../bench/lib/report');

// A full run's summary as a fixed fixture (bench/results/2026-11-23/summary.json, compacted): a
// new kept run must not change what this test checks.
const KEPT = path.join(__dirname, '..', 'fixtures', 'bench-summary.json');
const kept = () => JSON.parse(fs.readFileSync(KEPT, 'utf8'));
const targetRow = (md, start) => md.split('\n').find((l) => l.startsWith(`| ${start}`));

describe('report: targets without a figure', () => {
  it('a full run has a figure for every target', () => {
    const md = markdown(kept(), []);
    for (const t of ['WAN WS–S7', 'loopback WS–S7', '1000 concurrent', 'WAN MQTT', 'WAN OPC UA', 'WAN Modbus']) {
      assert.match(targetRow(md, t), /\| (MET|NOT MET) \|/, t);
    }
  });

  it('a loopback-only run names the missing profile', () => {
    const s = kept();
    delete s.profiles.wan;
    s.options.profiles = ['local'];
    const md = markdown(s, []);
    assert.match(targetRow(md, 'WAN WS–S7'), /NOT MEASURED \| profile wan not in this run/);
    assert.match(targetRow(md, '1000 concurrent'), /NOT MEASURED \| profile wan not in this run/);
    assert.match(targetRow(md, 'WAN Modbus'), /NOT MEASURED \| profile wan not in this run/);
    assert.match(targetRow(md, 'loopback WS–S7'), /\| (MET|NOT MET) \|/);
  });

  it('a run of some protocols names those left out, and a section not run', () => {
    const s = kept();
    s.options.protocols = ['ws', 'stock'];
    for (const p of Object.values(s.profiles)) {
      for (const proto of ['mqtt', 'opcua', 'modbus']) { delete p.productions[proto]; delete p.probe[proto]; delete p.load[proto]; }
      p.load = {}; // --no-load
    }
    const md = markdown(s, []);
    assert.match(targetRow(md, 'WAN MQTT'), /NOT MEASURED \| MQTT not in this run's protocols/);
    assert.match(targetRow(md, 'WAN OPC UA'), /NOT MEASURED \| OPC UA not in this run's protocols/);
    assert.match(targetRow(md, '1000 concurrent'), /NOT MEASURED \| no load levels in this run/);
  });
});
