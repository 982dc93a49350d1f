'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { build, lint } = require('../../scripts/build-flows');

const ROOT = path.join(__dirname, '..', '..');

for (const role of ['cloud', 'edge']) {
  test(`flows/${role}.json is exactly what its parts assemble to`, () => {
    const built = `${JSON.stringify(build(role), null, 2)}\n`;
    assert.equal(fs.readFileSync(path.join(ROOT, 'flows', `${role}.json`), 'utf8'), built, 'run: node scripts/build-flows.js');
  });

  test(`every node of the ${role} flow has a known type and sits on a tab`, () => {
    const flow = build(role);
    const pkg = require('../../package.json');
    const ours = new Set(Object.keys(pkg['node-red'].nodes));
    const tabs = new Set(flow.filter((n) => n.type === 'tab').map((n) => n.id));
    const ids = new Set(flow.map((n) => n.id));
    for (const n of flow) {
      if (n.type.startsWith('s7twin-')) assert.ok(ours.has(n.type), `${n.id}: ${n.type} is not registered in package.json`);
      if (n.z) assert.ok(tabs.has(n.z), `${n.id} is on a missing tab ${n.z}`);
      for (const out of n.wires || []) for (const w of out) assert.ok(ids.has(w), `${n.id} is wired to a missing node ${w}`);
    }
    assert.deepEqual(lint(flow), []);
  });
}

test('lint names a flow-timer instance that lacks one of its four properties', () => {
  assert.deepEqual(lint([{ id: 't', type: 's7twin-flow-timer', PROTOCOL: 'ws', CSV_FILE: '', TIMEOUT_MS: 1 }]), ['flow-timer t lacks STATS_INTERVAL_S']);
});

test('the README shows the I/O table exactly as io-table.json has it', () => {
  const { render } = require('../../scripts/io-table-md');
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = /<!-- io-table:start[^\n]*\n([\s\S]*?)\n<!-- io-table:end -->/.exec(readme);
  assert.ok(m, 'README has the io-table markers');
  assert.equal(m[1], render(), 'run: node scripts/io-table-md.js and paste it between the markers');
});
