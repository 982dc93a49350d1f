'use strict';
/**
 * The stock replicas of the study's paths (bench/flows/stock-*.json) as files: the importable
 * examples are exactly the benchmark's flows, every node type comes from an installed module,
 * each tab says it is a replica never to deploy, and what the hand-built flows name (OPC UA node
 * ids, Modbus registers) is still what the I/O table says (nodes/lib/core/io-table.json owns it).
 * test/e2e/stock-replicas.test.js runs them.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { buildStockExamples } = require('../../scripts/build-flows');
const { STOCK } = require('../../bench/lib/system');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const ot = require('../../nodes/lib/opcua/tags');

const ROOT = path.join(__dirname, '..', '..');
const flows = (name, role) => {
  const f = path.join(ROOT, 'bench', 'flows', `${name}-${role}.json`);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : [];
};

/** Node types registered by the node modules installed beside Node-RED (package.json "node-red".nodes files). */
function installedTypes() {
  const types = new Set(['tab', 'comment', 'inject', 'function', 'switch', 'status', 'debug', 'rbe',
    'websocket in', 'websocket out', 'websocket-listener', 'websocket-client', 'mqtt in', 'mqtt out', 'mqtt-broker']);
  for (const mod of ['node-red-contrib-s7', 'node-red-contrib-opcua', 'node-red-contrib-modbus', 'node-red-contrib-aedes']) {
    const dir = path.join(ROOT, 'node_modules', mod);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const file of Object.values(pkg['node-red'].nodes)) {
      const src = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const m of src.matchAll(/registerType\(\s*["']([^"']+)["']/g)) types.add(m[1]);
    }
  }
  return types;
}

test('every replica of the benchmark has its flows and an example that is exactly them', () => {
  const examples = buildStockExamples();
  assert.deepEqual([...examples.keys()].sort(), Object.values(STOCK).map((r) => r.flows).sort());
  for (const [name, flow] of examples) {
    const file = path.join(ROOT, 'examples', `s7twin-${name}.json`);
    assert.equal(fs.readFileSync(file, 'utf8'), `${JSON.stringify(flow, null, 2)}\n`, `${file}: run node scripts/build-flows.js`);
  }
});

test('the replicas use stock node types only, and every tab says it is the study\'s replica, never to deploy', () => {
  const known = installedTypes();
  for (const [name, flow] of buildStockExamples()) {
    const tabs = flow.filter((n) => n.type === 'tab');
    assert.ok(tabs.length >= 1, name);
    for (const n of flow) {
      assert.ok(known.has(n.type), `${name}: ${n.id} has type ${n.type}, which no stock module registers`);
      assert.ok(!n.type.startsWith('s7twin-'), `${name}: ${n.id} is one of our nodes`);
    }
    for (const tab of tabs) {
      const notes = flow.filter((n) => n.z === tab.id && n.type === 'comment');
      const warned = notes.some((n) => /STUDY REPLICA for comparison/.test(n.name) && /never deploy/i.test(`${n.name} ${n.info}`));
      assert.ok(warned, `${name}: tab ${tab.label} has no replica warning comment`);
    }
  }
});

test('the stock OPC UA replica names every cloud tag and probe slot 0 as the bundle does (io-table)', () => {
  const cloud = flows('stock-opcua', 'cloud');
  const add = cloud.find((n) => n.type === 'function' && /addVariable/.test(n.func));
  const plant = 'plant1';
  for (const t of ot.cloudTags()) {
    assert.ok(add.func.includes(JSON.stringify([ot.cloudNodeId(t, { plant }), ot.dataTypeOf(t)])), `cloud server lacks ${t.name}`);
  }
  for (const kind of ['req', 'res']) assert.ok(add.func.includes(JSON.stringify(ot.probeNodeId(kind, 0))), `cloud server lacks probe ${kind} 0`);
  const items = flows('stock-opcua', 'edge').filter((n) => n.type === 'OpcUa-Item');
  const have = new Map(items.map((n) => [n.item, n.datatype]));
  for (const t of ot.cloudTags()) {
    const id = t.dir === 'in' ? ot.cloudNodeId(t, { plant }) : ot.plcNodeId(t);
    assert.equal(have.get(id), ot.dataTypeOf(t), `edge item for ${t.name}`);
  }
  assert.equal(have.get(ot.probeNodeId('req', 0)), 'UInt32');
  assert.equal(have.get(ot.plcProbeNodeId('res', 0)), 'UInt32');
});

test('the stock Modbus replica relays the io-table\'s registers', () => {
  const M = tags.TABLE.modbus;
  const edge = flows('stock-modbus', 'edge');
  const reads = edge.filter((n) => n.type === 'modbus-read').map((n) => [Number(n.adr), Number(n.quantity)]);
  const writes = edge.filter((n) => n.type === 'modbus-write').map((n) => [Number(n.adr), Number(n.quantity)]);
  const stateBlock = [M.stateRegister, 1 + Object.keys(M.counterRegisters).length];
  for (const block of [[M.commandRegister, 1], stateBlock, [M.probeRequestBase, 2], [M.probeResponseBase, 2]]) {
    assert.deepEqual(reads.filter((r) => r[0] === block[0]), [block], `read of ${block}`);
    assert.deepEqual(writes.filter((r) => r[0] === block[0]), [block], `write of ${block}`);
  }
  const server = flows('stock-modbus', 'cloud').find((n) => n.type === 'modbus-server');
  // The node allocates 8 bytes per unit of its buffer size, 2 per register.
  assert.ok(server.holdingBufferSize * 4 > M.probeResponseBase + 2, 'the server holds the probe response registers');
});

test('the replicas\' examples stay out of the npm package (their contrib modules are not its dependencies)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.ok(pkg.files.includes('examples/'));
  assert.ok(pkg.files.includes('!examples/s7twin-stock*.json'), 'Import → Examples of an installed package would show their nodes as unknown');
  for (const mod of ['node-red-contrib-aedes', 'node-red-contrib-opcua', 'node-red-contrib-s7']) {
    assert.ok(!(pkg.dependencies || {})[mod], `${mod} is no dependency`);
  }
});
