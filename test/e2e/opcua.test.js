'use strict';
/**
 * The OPC UA path end to end on ephemeral ports: the virtual PLC's OPC UA server, an edge
 * Node-RED running flows/parts/edge-opcua.json (s7twin-opcua-bridge), a cloud Node-RED running
 * flows/parts/cloud-opcua.json (s7twin-opcua-server → s7twin-flow-timer), and the headless twin
 * over twin/transports/opcua.js, and probes through the same path (the benchmark's load rows).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed, freePort, waitFor, edgeReady, nodeStats, auditCommands } = require('../helpers/nodered');
const { createPlc } = require('../../plc');
const { pkiDir, countMonitoredItems } = require('../helpers/opcua');
const { runTwin } = require('../../twin/run');

const ROOT = path.join(__dirname, '..', '..');
const CLOUD_FLOW = path.join(ROOT, 'flows', 'parts', 'cloud-opcua.json');
const EDGE_FLOW = path.join(ROOT, 'flows', 'parts', 'edge-opcua.json');
const TWIN = { user: 'twin', password: 'twin' };
/** The nodes have no default password: the cloud gets both accounts', the edge its own. */
const PASSWORDS = { S7T_OPCUA_TWIN_PASSWORD: TWIN.password, S7T_OPCUA_EDGE_PASSWORD: 'edge' };
const COMMANDS = 10; // the ten PLC inputs the bridge monitors on the cloud server
const PLC_OUTPUTS = 11; // the streamed PLC outputs the bridge monitors on the PLC
const PROBE_SLOTS = 81; // S7T_OPCUA_PROBE_SLOTS: slots 0..80; the bridge monitors every cloud Req, and a PLC Res once its slot is used
const { createTransport } = require('../../twin/transports/opcua');
const ot = require('../../nodes/lib/opcua/tags');

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
    env: { S7T_OPCUA_PORT: String(opcPort), S7T_OPCUA_PKI_DIR: pkiDir('cloud-server'), S7T_OPCUA_PROBE_SLOTS: String(PROBE_SLOTS), ...PASSWORDS },
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
      S7T_OPCUA_PROBE_SLOTS: String(PROBE_SLOTS),
      S7T_OPCUA_EDGE_PASSWORD: PASSWORDS.S7T_OPCUA_EDGE_PASSWORD,
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
    // A command written before the bridge's baseline read is part of the baseline, not a command:
    // the twin starts only once the edge has read it.
    await edgeReady(sys.edge, { opcua: true });
  } catch (err) {
    err.message += `\n--- edge log ---\n${sys.edge.logs().slice(-4000)}\n--- cloud log ---\n${sys.cloud.logs().slice(-3000)}`;
    throw err;
  }
  return sys;
}

/** The bridge's subscriptions (tags and probes) exist, each exactly once. */
async function bridgeReady(sys) {
  await waitFor(async () => (await countMonitoredItems(sys.url, TWIN)).items === COMMANDS + PROBE_SLOTS, 30000,
    'the bridge monitoring the cloud commands and probe requests');
  await waitFor(async () => (await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).items === PLC_OUTPUTS, 30000,
    'the bridge monitoring the PLC outputs (no probe slot used yet)');
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
  assert.equal((await countMonitoredItems(sys.url, TWIN)).items, COMMANDS + PROBE_SLOTS);

  // Every command the twin wrote is in the command log (GET /s7twin/audit) with its sender; the
  // edge's writes of the states are not commands.
  const log = await auditCommands(sys.cloud, (cs) => cs.some((c) => c.via === 'opcua' && c.outcome === 'relayed'), 'the twin\'s commands');
  assert.ok(log.every((c) => c.via === 'opcua' && c.user === TWIN.user && c.role === 'twin' && ['relayed', 'unchanged'].includes(c.outcome)),
    JSON.stringify(log.slice(0, 5)));
  assert.ok(log.some((c) => c.values && c.values.st === 1 && c.target === 'ns=1;s=plant1.StartButton'), 'the start button pressed');
  assert.match(log[0].from, /^(::ffff:)?127\.0\.0\.1:\d+$/);
});

test('OPC UA path: cloud server restart and PLC restart, the edge recovers without duplicate monitored items', async (t) => {
  const sys = await startSystem(t);
  checkRun(await twin(sys, { mode: 'poll', boxes: 4 }), 'before the restarts');

  // Cloud server restart: a new Node-RED (and server) on the same OPC UA port.
  const since = await nodeStats(sys.edge);
  const oldCloud = sys.cloud;
  await oldCloud.stop();
  fs.rmSync(oldCloud.userDir, { recursive: true, force: true });
  sys.cloud = null;
  sys.cloud = await startNodeRed(sys.cloudOpts);
  await bridgeReady(sys);
  await edgeReady(sys.edge, { opcua: true, since });
  // The bridge wrote the PLC's states to the new server: it mirrors the PLC again.
  assert.equal((await countMonitoredItems(sys.url, TWIN)).subscriptions, 2, 'the bridge\'s tag and probe subscriptions');
  checkRun(await twin(sys, { mode: 'poll', boxes: 4 }), 'after the cloud restart');

  // PLC restart on the same port: the bridge's PLC session is recreated, items once.
  await sys.plc.stop();
  sys.plc = null;
  sys.plc = await startPlcOpcua(sys.plcPort);
  await bridgeReady(sys);
  assert.equal((await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).subscriptions, 1,
    'the tag subscription (the probe session subscribes on the first slot used)');
  checkRun(await twin(sys, { mode: 'subscribe', boxes: 4 }), 'after the PLC restart');
  assert.equal((await countMonitoredItems(sys.url, TWIN)).items, COMMANDS + PROBE_SLOTS);
  assert.equal((await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).items, PLC_OUTPUTS);
});

test('OPC UA path: probes twin → cloud server → edge bridge → PLC and back for slots 1, 2, 80, each value exact; bad probes refused', async (t) => {
  const sys = await startSystem(t);
  const transports = [];
  t.after(() => Promise.allSettled(transports.map((x) => x.close())));
  async function open(mode) {
    const tr = createTransport({ url: sys.url, ...TWIN, mode, pollMs: 50, pkiDir: pkiDir('twin-client') });
    transports.push(tr);
    await tr.connect();
    return tr;
  }
  function roundTrip(tr, slot, value) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for slot ${slot} within 20 s`)), 20000);
      tr.onProbe((s, v) => { if (s === slot && v === value) { clearTimeout(timer); resolve(v); } });
      tr.probe(slot, value);
    });
  }
  const sub = await open('subscribe');
  const poll = await open('poll');
  let value = 4000000000 + Math.floor(Math.random() * 1e6);
  for (const slot of [1, 2, 80]) {
    for (const tr of [sub, poll]) {
      value += 1;
      assert.equal(await roundTrip(tr, slot, value), value, `slot ${slot}`);
    }
  }
  // The PLC holds the last request of each slot (its OPC UA Req variable, read as any client would).
  const { createSession } = require('../../nodes/lib/opcua/session');
  const plcClient = createSession({ endpointUrl: `opc.tcp://127.0.0.1:${sys.plcPort}`, pkiDir: pkiDir('client'), name: 'check' });
  t.after(() => plcClient.close());
  await plcClient.connect();
  const [req80] = await plcClient.read([ot.plcProbeNodeId('req', 80)]);
  assert.equal(req80.value, value);
  // The PLC pays for the slots in use only: 3 probe response items besides the outputs.
  await waitFor(async () => (await countMonitoredItems(`opc.tcp://127.0.0.1:${sys.plcPort}`)).items === PLC_OUTPUTS + 3, 20000, 'PLC items for slots 1, 2, 80');

  // A wrong type to Req and any write to Res by a twin are refused by the cloud server.
  const twinClient = createSession({ endpointUrl: sys.url, credentials: TWIN, pkiDir: pkiDir('client'), name: 'raw-twin' });
  t.after(() => twinClient.close());
  await twinClient.connect();
  const r = await twinClient.write([
    { nodeId: ot.probeNodeId('req', 1), dataType: 'Int32', value: 5 },
    { nodeId: ot.probeNodeId('req', 1), dataType: 'String', value: 'x' },
    { nodeId: ot.probeNodeId('res', 1), dataType: 'UInt32', value: 5 },
    { nodeId: ot.cloudNodeId('st'), dataType: 'Int32', value: 1 }, // a command of the wrong type
  ]);
  assert.deepEqual(r.map((x) => x.status), ['BadTypeMismatch', 'BadTypeMismatch', 'BadUserAccessDenied', 'BadTypeMismatch']);
  // The command log has the refused command with its code; probes are not commands.
  const log = await auditCommands(sys.cloud, (cs) => cs.length > 0, 'the refused command');
  assert.deepEqual(log.map((c) => [c.via, c.user, c.role, c.outcome, c.code, c.values]), [['opcua', 'twin', 'twin', 'refused', 'E_OPCUA_WRITE', { st: 1 }]]);
  // Nothing of that reached the PLC: its request 1 is still the last good probe of slot 1.
  const [req1] = await plcClient.read([ot.plcProbeNodeId('req', 1)]);
  assert.equal(req1.value, value - 4);
  assert.equal(sub.stats().errors, 0);
  assert.equal(poll.stats().errors, 0);
});
