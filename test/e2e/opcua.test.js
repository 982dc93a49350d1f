'use strict';
/**
 * The OPC UA path end to end on ephemeral ports: the virtual PLC's OPC UA server, an edge
 * Node-RED running flows/parts/edge-opcua.json (s7twin-opcua-bridge), a cloud Node-RED running
 * flows/parts/cloud-opcua.json (s7twin-opcua-server → s7twin-flow-timer), and the headless twin
 * over twin/transports/opcua.js.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed, freePort, waitFor } = require('../helpers/nodered');
const { createPlc } = require('../../plc');
const { pkiDir, countMonitoredItems } = require('../helpers/opcua');
const { runTwin } = require('../../twin/cli');

const ROOT = path.join(__dirname, '..', '..');
const CLOUD_FLOW = path.join(ROOT, 'flows', 'parts', 'cloud-opcua.json');
const EDGE_FLOW = path.join(ROOT, 'flows', 'parts', 'edge-opcua.json');
const TWIN = { user: 'twin', password: 'twin' };
const COMMANDS = 10; // the ten PLC inputs the bridge monitors on the cloud server
const PLC_OUTPUTS = 11; // the streamed PLC outputs the bridge monitors on the PLC

async function startPlcOpcua(port) {
  return createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port, pkiDir: pkiDir('plc') } });
}

async function startSystem(t) {
  const plcPort = await freePort();
  const opcPort = await freePort();
  const sys = { plcPort, opcPort, url: `opc.tcp://127.0.0.1:${opcPort}` };
  sys.plc = await startPlcOpcua(plcPort);
  const cloudOpts = {
    role: 'cloud',
    flows: CLOUD_FLOW,
    keepUserDir: true,
    env: { S7T_OPCUA_PORT: String(opcPort), S7T_OPCUA_PKI_DIR: pkiDir('cloud-server') },
  };
  sys.cloudOpts = cloudOpts;
  sys.cloud = await startNodeRed(cloudOpts);
  sys.edge = await startNodeRed({
    role: 'edge',
    flows: EDGE_FLOW,
    env: {
      S7T_PLC_HOST: '127.0.0.1',
      S7T_PLC_OPCUA_PORT: String(plcPort),
      S7T_OPCUA_URL: sys.url,
      S7T_OPCUA_CLIENT_PKI_DIR: pkiDir('edge-client'),
    },
  });
  t.after(async () => {
    await Promise.allSettled([sys.edge && sys.edge.stop(), sys.cloud && sys.cloud.stop()]);
    if (sys.plc) await sys.plc.stop();
    for (const dir of sys.userDirs || []) fs.rmSync(dir, { recursive: true, force: true });
    if (sys.cloud) fs.rmSync(sys.cloud.userDir, { recursive: true, force: true });
  });
  try {
    await bridgeReady(sys);
  } catch (err) {
    err.message += `\n--- edge log ---\n${sys.edge.logs().slice(-4000)}\n--- cloud log ---\n${sys.cloud.logs().slice(-3000)}`;
    throw err;
  }
  return sys;
}

/** Both subscriptions of the bridge exist, each exactly once. */
async function bridgeReady(sys) {
  await waitFor(async () => (await countMonitoredItems(sys.url, TWIN)).items === COMMANDS, 30000, 'the bridge monitoring the cloud commands');
  await waitFor(async () => (await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).items === PLC_OUTPUTS, 30000, 'the bridge monitoring the PLC outputs');
}

function twin(sys, opts) {
  return runTwin({
    protocol: 'opcua', url: sys.url, profile: 'fast', boxes: 10, damaged: 0.3, seed: 3, pkiDir: pkiDir('twin-client'), ...opts,
  });
}

function checkRun(r, label) {
  assert.equal(r.ok, true, `${label}: ${r.reason}`);
  assert.equal(r.missorted, 0, label);
  assert.equal(r.packed + r.rejected, r.boxes, label);
}

test('OPC UA path: the twin sorts 10 boxes through cloud server, edge bridge and PLC; flow-timers log round trips', async (t) => {
  const sys = await startSystem(t);
  const r = await twin(sys, { mode: 'subscribe' });
  checkRun(r, 'subscribe');
  assert.ok(r.rejected >= 1, 'at least one damaged box, so p2fw and red are timed');
  for (const v of ['c1', 'p1bw', 'p2fw', 'red', 'p3fw']) assert.ok(r.samples[v].length >= 1, `round trips recorded for ${v}`);
  assert.equal(r.expired, 0);
  assert.ok(r.transport.bytesOut > 0 && r.transport.bytesIn > 0, 'bytes counted');

  // The cloud's flow-timer timed cloud → PLC → cloud for the same five outputs.
  const csv = path.join(sys.cloud.userDir, 'results', 'flow-timer-opcua.csv');
  const lines = await waitFor(() => {
    if (!fs.existsSync(csv)) return null;
    const l = fs.readFileSync(csv, 'utf8').trim().split('\n');
    const vars = new Set(l.slice(1).map((x) => x.split(',')[2]));
    return ['c1', 'p1bw', 'p2fw', 'red', 'p3fw'].every((v) => vars.has(v)) ? l : null;
  }, 20000, 'flow-timer CSV rows for the five timed outputs');
  assert.equal(lines[0], 'time,protocol,variable,id,ms');
  for (const l of lines.slice(1)) {
    const [time, protocol, , id, ms] = l.split(',');
    assert.ok(!Number.isNaN(Date.parse(time)));
    assert.equal(protocol, 'opcua');
    assert.match(id, /^[a-z0-9]+:twin:\d+$/);
    assert.ok(Number(ms) >= 0);
  }

  // The twin's session is gone; the bridge's subscriptions are still there exactly once.
  assert.equal((await countMonitoredItems(sys.url, TWIN)).items, COMMANDS);
});

test('OPC UA path: cloud server restart and PLC restart, the edge recovers without duplicate monitored items', async (t) => {
  const sys = await startSystem(t);
  checkRun(await twin(sys, { mode: 'poll', boxes: 4 }), 'before the restarts');

  // Cloud server restart: a new Node-RED (and server) on the same OPC UA port.
  const oldCloud = sys.cloud;
  await oldCloud.stop();
  fs.rmSync(oldCloud.userDir, { recursive: true, force: true });
  sys.cloud = null;
  sys.cloud = await startNodeRed(sys.cloudOpts);
  await bridgeReady(sys);
  // The bridge wrote the PLC's states to the new server: it mirrors the PLC again.
  assert.equal((await countMonitoredItems(sys.url, TWIN)).subscriptions, 1);
  checkRun(await twin(sys, { mode: 'poll', boxes: 4 }), 'after the cloud restart');

  // PLC restart on the same port: the bridge's PLC session is recreated, items once.
  await sys.plc.stop();
  sys.plc = null;
  sys.plc = await startPlcOpcua(sys.plcPort);
  await bridgeReady(sys);
  assert.equal((await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).subscriptions, 1);
  checkRun(await twin(sys, { mode: 'subscribe', boxes: 4 }), 'after the PLC restart');
  assert.equal((await countMonitoredItems(sys.url, TWIN)).items, COMMANDS);
  assert.equal((await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).items, PLC_OUTPUTS);
});
