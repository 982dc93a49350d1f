'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { build, lint, split, outputs } = require('../../scripts/build-flows');

const ROOT = path.join(__dirname, '..', '..');

for (const role of ['cloud', 'edge']) {
  test(`flows/${role}.json and its example are exactly what its parts assemble to`, () => {
    const built = `${JSON.stringify(build(role), null, 2)}\n`;
    assert.deepEqual(outputs(role).map((f) => path.relative(ROOT, f)), [`flows/${role}.json`, `examples/s7twin-full-${role}.json`]);
    for (const file of outputs(role)) assert.equal(fs.readFileSync(file, 'utf8'), built, `${file}: run node scripts/build-flows.js`);
  });

  test(`splitting the ${role} flow writes its parts exactly as they are`, () => {
    const parts = fs.readdirSync(path.join(ROOT, 'flows', 'parts')).filter((f) => f.startsWith(`${role}-`)).sort();
    const { write, remove } = split(build(role), role);
    assert.deepEqual([...write.keys()].sort(), parts);
    assert.deepEqual(remove, []);
    for (const [f, text] of write) assert.equal(text, fs.readFileSync(path.join(ROOT, 'flows', 'parts', f), 'utf8'), f);
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

test('split brings an editor deploy back into the parts: an edit, a new node, a new tab, a tab removed', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-parts-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const f of fs.readdirSync(path.join(ROOT, 'flows', 'parts'))) fs.copyFileSync(path.join(ROOT, 'flows', 'parts', f), path.join(dir, f));
  // What Node-RED writes on deploy: nodes and properties in its own order.
  let flow = build('cloud').reverse().map((n) => Object.fromEntries(Object.entries(n).reverse()));
  const opcTab = flow.find((n) => n.type === 'tab' && n.id === 'opc.cloud.tab');
  flow = flow.filter((n) => n !== opcTab && n.z !== opcTab.id && !n.id.startsWith('opc.'));
  flow.find((n) => n.id === 'ws.cloud.c1').name = 'edited in the editor';
  flow.push({ id: 'new.debug', type: 'debug', z: 's7t.mqtt.tab', name: 'added', active: true, x: 600, y: 500, wires: [] });
  flow.push({ id: 'new.tab', type: 'tab', label: 'My Tab!', disabled: false, info: '' });
  flow.push({
    id: 'new.in', type: 's7twin-link-in', z: 'new.tab', name: 'mine', mode: 'server', server: 'ws.cloud.twins', client: '', snapshotOnConnect: true,
    x: 140, y: 40, wires: [[]],
  });

  const { write, remove } = split(flow, 'cloud', dir);
  assert.deepEqual(remove, ['cloud-opcua.json']);
  const old = (f) => fs.readFileSync(path.join(dir, f), 'utf8');
  assert.equal(write.get('cloud-modbus.json'), old('cloud-modbus.json'), 'an untouched tab: its part as it was');
  const ws = write.get('cloud-ws.json');
  assert.equal(ws, old('cloud-ws.json').replace(/("id": "ws\.cloud\.c1",[\s\S]*?"name": )"[^"]*"/, '$1"edited in the editor"'), 'the edit, nothing else');
  const mqtt = JSON.parse(write.get('cloud-mqtt.json'));
  assert.equal(mqtt.at(-1).id, 'new.debug', 'a new node at the end of its tab\'s part');
  const mine = JSON.parse(write.get('cloud-my-tab.json'));
  assert.deepEqual(mine.map((n) => n.id), ['new.tab', 'new.in', 'ws.cloud.twins'], 'a new tab: a part of its own, with the config node it uses');
  assert.deepEqual(mine[2], build('cloud').find((n) => n.id === 'ws.cloud.twins'));
});
