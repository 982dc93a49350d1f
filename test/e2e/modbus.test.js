'use strict';
/**
 * The Modbus path end to end on ephemeral ports: virtual PLC (its Modbus server) ← edge Node-RED
 * (flows/parts/edge-modbus.json) → cloud Node-RED (flows/parts/cloud-modbus.json, our Modbus
 * server + flow-timers) ← headless twin over twin/transports/modbus.js. Then faults: the cloud
 * server redeployed, the PLC's Modbus server gone and back, and bad addresses.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const ModbusRTU = require('modbus-serial');
const net = require('node:net');
const { startNodeRed, freePort, waitFor, edgeReady, nodeStats, auditCommands } = require('../helpers/nodered');
const { startPlc } = require('../helpers/plc');
const { runTwin } = require('../../twin/run');
const tags = require('../../nodes/lib/core/io-table').demoTable();

const ROOT = path.join(__dirname, '..', '..');
const part = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', 'parts', name), 'utf8'));
const POLL_MS = '20'; // a loaded 2-core CI machine: keep the fast plant well inside its margin
// The fast plant at half its conveyor speeds: twice the margin before a late answer mis-sorts a
// box, so a scheduling stall of a few hundred ms on a loaded machine does not fail the test.
const PLANT = { c1SpeedMmS: 1000, c2SpeedMmS: 1500 };

/** Expose the edge codecs' status through a websocket out node the test can listen to. */
function withStatusTap(flow, tab, url) {
  return [...flow,
    { id: 'tap.l', type: 'websocket-listener', path: url, wholemsg: 'false' },
    { id: 'tap.st', type: 'status', z: tab, scope: ['mb.edge.codec0', 'mb.edge.codec1'], x: 100, y: 500, wires: [['tap.fn']] },
    {
      id: 'tap.fn', type: 'function', z: tab, outputs: 1, x: 300, y: 500, wires: [['tap.out']],
      func: 'return { payload: JSON.stringify({ id: msg.status.source.id, status: msg.status }) };',
    },
    { id: 'tap.out', type: 'websocket out', z: tab, server: 'tap.l', client: '', x: 500, y: 500, wires: [] },
  ];
}

async function mbClient(port) {
  const c = new ModbusRTU();
  await c.connectTCP('127.0.0.1', { port });
  c.setID(1);
  c.setTimeout(5000);
  return c;
}

async function stack(t) {
  const plc = await startPlc({ s7: false, opcua: false });
  const mbPort = await freePort();
  const cloud = await startNodeRed({
    role: 'cloud', flows: part('cloud-modbus.json'), keepUserDir: true,
    env: { S7T_MODBUS_PORT: String(mbPort), S7T_MODBUS_CLOUD_POLL_MS: POLL_MS },
  });
  const edge = await startNodeRed({
    role: 'edge', flows: withStatusTap(part('edge-modbus.json'), 'mb.edge.tab', '/tap'),
    env: {
      S7T_MODBUS_CLOUD_PORT: String(mbPort), S7T_PLC_MODBUS_PORT: String(plc.ports.modbus),
      S7T_MODBUS_POLL_MS: POLL_MS, S7T_MODBUS_RECONNECT_MS: '500',
    },
  });
  t.after(async () => {
    await edge.stop();
    await cloud.stop();
    fs.rmSync(cloud.userDir, { recursive: true, force: true });
    await plc.stop();
  });
  return { plc, cloud, edge, mbPort, url: `modbus://127.0.0.1:${mbPort}` };
}

/**
 * One FC16 request from another loopback address (127.0.0.2: not among the edge's addresses), and
 * its answer's function code and exception.
 */
async function writeFrom(address, port, register, words) {
  const sock = net.connect({ host: '127.0.0.1', port, localAddress: address });
  await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  const pdu = Buffer.alloc(6 + 2 * words.length);
  pdu[0] = 16;
  pdu.writeUInt16BE(register, 1);
  pdu.writeUInt16BE(words.length, 3);
  pdu[5] = 2 * words.length;
  words.forEach((w, k) => pdu.writeUInt16BE(w, 6 + 2 * k));
  const head = Buffer.from([0, 77, 0, 0, 0, pdu.length + 1, 1]); // transaction 77, unit 1
  sock.write(Buffer.concat([head, pdu]));
  const answer = await new Promise((resolve, reject) => { sock.once('data', resolve); sock.once('error', reject); });
  sock.destroy();
  return { fc: answer[7], exception: answer[8] };
}

function twin(url, boxes) {
  return runTwin({ protocol: 'modbus', url, pollMs: POLL_MS, boxes, damaged: '0110010110', profile: 'fast', plantModel: PLANT, quiet: true });
}

test('modbus path: 10 boxes sorted through PLC, edge and cloud; round trips timed; then faults', async (t) => {
  const s = await stack(t);
  // What a twin commands before the edge's first read of the cloud's HR0 is that read's baseline,
  // not a command (it may be left from before): the twin starts once the edge has it.
  await edgeReady(s.edge, { modbus: true });

  // 1. A production of 10 boxes, five of them damaged.
  const r = await twin(s.url, 10);
  assert.equal(r.missorted, 0, r.reason);
  assert.equal(r.packed + r.rejected, 10);
  assert.equal(r.rejected, 5);
  for (const v of ['c1', 'p1bw', 'p2fw', 'red', 'p3fw']) {
    assert.ok(r.summary[v] && r.summary[v].n > 0, `twin round trips for ${v}: ${JSON.stringify(r.summary[v])}`);
  }
  assert.ok(r.transport.bytesOut > 0 && r.transport.bytesIn > 0);
  assert.equal(s.plc.values().ng, 5);

  // The cloud's flow-timer logged round trips of every timed output.
  const csv = path.join(s.cloud.userDir, 'results', 'flow-timer-modbus.csv');
  const rows = await waitFor(() => {
    const text = fs.existsSync(csv) && fs.readFileSync(csv, 'utf8');
    const vars = text ? new Set(text.trim().split('\n').slice(1).map((l) => l.split(',')[2])) : new Set();
    return ['c1', 'p1bw', 'p2fw', 'red', 'p3fw'].every((v) => vars.has(v)) && text;
  }, 20000, 'flow-timer CSV with all five timed outputs');
  assert.match(rows, /^time,protocol,variable,id,ms\n/);
  assert.match(rows, /,modbus,c1,c1:modbus-hr0:\d+,\d+\.\d{3}\n/);

  // Every write of HR0 by the twin is in the command log (GET /s7twin/audit): Modbus names no
  // user, so its sender is its address; the inputs it set, by their short names.
  const log = await auditCommands(s.cloud, (cs) => cs.some((c) => c.via === 'modbus' && c.outcome === 'relayed'), 'the twin\'s commands');
  assert.ok(log.every((c) => c.via === 'modbus' && c.target === 'HR0' && c.user === undefined && ['relayed', 'unchanged'].includes(c.outcome)),
    JSON.stringify(log.slice(0, 5)));
  assert.ok(log.some((c) => c.outcome === 'relayed' && c.values.st === 1), 'the start button pressed');
  assert.match(log[0].from, /^(::ffff:)?127\.0\.0\.1:\d+$/);
  // A client that is not the edge writing HR0 and the edge's HR1 in one request: refused whole.
  assert.deepEqual(await writeFrom('127.0.0.2', s.mbPort, 0, [0, 0xff]), { fc: 0x90, exception: 2 });
  const refused = (await auditCommands(s.cloud, (cs) => cs.some((c) => c.outcome === 'refused'), 'the refused command')).filter((c) => c.outcome === 'refused');
  assert.deepEqual(refused.map((c) => [c.code, c.target, c.seq, c.values.c1]), [['E_MODBUS_NOT_EDGE', 'HR0..1', 77, 1]]);
  assert.match(refused[0].from, /^127\.0\.0\.2:\d+$/);

  // 2. Bad addresses: exception 02 from the cloud server and from the PLC, nothing written.
  const cc = await mbClient(s.mbPort);
  const pc = await mbClient(s.plc.ports.modbus);
  try {
    await assert.rejects(cc.readHoldingRegisters(6048, 1), (e) => e.modbusCode === 2);
    await assert.rejects(cc.writeRegister(65535, 1), (e) => e.modbusCode === 2);
    await assert.rejects(pc.readHoldingRegisters(500, 1), (e) => e.modbusCode === 2);
    await assert.rejects(pc.writeRegister(1, 0xff), (e) => e.modbusCode === 2, 'HR1 (outputs) is read-only at the PLC');
    assert.deepEqual((await cc.readHoldingRegisters(0, 1)).data.length, 1, 'the connection survives the exception');
  } finally {
    cc.close(() => {});
    pc.close(() => {});
  }

  // 3. The cloud Modbus server restarts (a full redeploy of the cloud flows): the edge and the
  //    twin reconnect, the cloud's HR1..4 are brought back from the PLC, and the plant sorts.
  const before = tags.packRegister(1, s.plc.values());
  const since = await nodeStats(s.edge);
  const res = await fetch(`${s.cloud.url}/flows`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(part('cloud-modbus.json')),
  });
  assert.equal(res.status, 204);
  const cc2 = await waitFor(async () => mbClient(s.mbPort), 20000, 'cloud server back');
  try {
    await waitFor(async () => (await cc2.readHoldingRegisters(1, 1)).data[0] === before, 20000, 'edge rewrites HR1 into the new cloud server');
  } finally {
    cc2.close(() => {});
  }
  await edgeReady(s.edge, { modbus: true, since }); // the edge's new baseline of the new cloud server
  const r2 = await twin(s.url, 4);
  assert.equal(r2.missorted, 0, r2.reason);
  assert.equal(r2.packed + r2.rejected, 4);

  // 4. The PLC's Modbus server goes away: the edge shows it (red ring) and recovers.
  const statuses = [];
  const WebSocket = require('ws');
  const ws = new WebSocket(`${s.edge.url.replace('http', 'ws')}/tap`);
  ws.on('message', (m) => statuses.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  t.after(() => ws.terminate());
  const plcModbus = s.plc.ports.modbus;
  // Stop only the PLC's Modbus interface: stop the whole PLC and start one on the same port.
  const outputsBefore = s.plc.values();
  await s.plc.stop();
  await waitFor(() => statuses.some((x) => x.id === 'mb.edge.codec0' && x.status.fill === 'red'), 20000, 'edge status red (PLC gone)');
  const { createPlc } = require('../../plc');
  const plc2 = await createPlc({ scanMs: 10, s7: false, opcua: false, modbus: { host: '127.0.0.1', port: plcModbus } });
  t.after(() => plc2.stop());
  await waitFor(() => statuses.filter((x) => x.id === 'mb.edge.codec0').at(-1)?.status.fill === 'green', 20000, 'edge status green again');
  assert.equal(outputsBefore.grn, 0, 'the twin left the plant stopped');
  const r3 = await twin(s.url, 3);
  assert.equal(r3.missorted, 0, r3.reason);
  assert.equal(r3.packed + r3.rejected, 3);
  assert.equal(plc2.values().ng + plc2.values().nr, 3, 'the new PLC sorted them');
});
