'use strict';
/**
 * The MQTT path end to end on ephemeral ports: the virtual PLC's own MQTT client, the cloud
 * Node-RED running flows/parts/cloud-mqtt.json (s7twin-mqtt-broker, the monitor's mqtt in nodes,
 * the flow-timer), and the headless twin over twin/transports/mqtt.js.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const mqtt = require('mqtt');
const { startNodeRed, freePort, waitFor, auditCommands, ROOT } = require('../helpers/nodered');
const { startPlc } = require('../helpers/plc');
const { runTwin } = require('../../twin/run');
const { createTransport } = require('../../twin/transports/mqtt');
const { STREAMED } = require('../../twin/transports/mqtt/inbox');

const PART = path.join(ROOT, 'flows', 'parts', 'cloud-mqtt.json');
const PW = { twin: 'e2e-twin-pw', plc: 'e2e-plc-pw', monitor: 'e2e-mon-pw' };
const USERS = Object.entries(PW).map(([u, p]) => `${u}:${p}:${u}`).join(',');
const TIMED = ['c1', 'p1bw', 'p2fw', 'red', 'p3fw'];

async function startCloud(t) {
  const port = await freePort();
  const wsPort = await freePort();
  const red = await startNodeRed({
    role: 'cloud',
    flows: JSON.parse(fs.readFileSync(PART, 'utf8')),
    keepUserDir: true,
    env: {
      S7T_MQTT_PORT: String(port), S7T_MQTT_WS_PORT: String(wsPort), S7T_MQTT_USERS: USERS,
      S7T_MQTT_MONITOR_USER: 'monitor', S7T_MQTT_MONITOR_PASSWORD: PW.monitor,
    },
  });
  t.after(async () => { await red.stop(); fs.rmSync(red.userDir, { recursive: true, force: true }); });
  await waitFor(() => /MQTT broker listening/.test(red.logs()), 30000, 'the broker');
  await waitFor(() => /Connected to broker/.test(red.logs()), 30000, 'the monitor connection');
  return { red, port, wsPort, url: `mqtt://127.0.0.1:${port}` };
}

async function startMqttPlc(t, url) {
  const plc = await startPlc({ s7: false, opcua: false, modbus: false, mqtt: { url, plant: 'plant1', username: 'plc', password: PW.plc, qos: 0 } });
  t.after(() => plc.stop());
  // plc.mqttConnected is copied once by Object.assign in plc/index.js; the counters are live.
  await waitFor(() => plc.counters.mqttConnects > 0, 20000, 'the PLC MQTT client');
  return plc;
}

/** Counters of the broker node via the admin API's /s7twin/stats. */
async function brokerCounters(red) {
  const res = await fetch(`${red.url}/s7twin/stats`);
  const body = await res.json();
  return body.nodes.find((n) => n.type === 's7twin-mqtt-broker').counters;
}

test('MQTT path: 10 boxes sorted through PLC, cloud broker and twin; round trips timed; CSV written', async (t) => {
  const cloud = await startCloud(t);
  await startMqttPlc(t, cloud.url);
  const result = await runTwin({
    protocol: 'mqtt', url: cloud.url, username: 'twin', password: PW.twin, boxes: 10, damaged: 0.3, profile: 'fast', seed: 3,
  });
  assert.equal(result.missorted, 0, result.reason);
  assert.equal(result.ok, true, result.reason);
  assert.equal(result.packed + result.rejected, 10);
  assert.ok(result.rejected > 0 && result.packed > 0);
  for (const v of TIMED) assert.ok(result.samples[v].length > 0, `twin round trips for ${v}`);
  assert.ok(result.transport.bytesOut > 0 && result.transport.bytesIn > 0);

  // The cloud's flow-timer timed the same loop at the broker.
  await cloud.red.stop(); // flushes the CSV
  const csv = path.join(cloud.red.userDir, 'results', 'flow-timer-mqtt.csv');
  const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(rows[0], 'time,protocol,variable,id,ms');
  const seen = new Set(rows.slice(1).map((r) => r.split(',')[2]));
  for (const v of TIMED) assert.ok(seen.has(v), `flow-timer rows for ${v}`);
  for (const r of rows.slice(1)) assert.equal(r.split(',')[1], 'mqtt');
});

test('MQTT path: the same run over MQTT-over-WebSocket at QoS 1', async (t) => {
  const cloud = await startCloud(t);
  await startMqttPlc(t, cloud.url);
  const result = await runTwin({
    protocol: 'mqtt', url: `ws://127.0.0.1:${cloud.wsPort}/mqtt`, username: 'twin', password: PW.twin, qos: 1, boxes: 6, profile: 'fast', seed: 5,
  });
  assert.equal(result.missorted, 0, result.reason);
  assert.equal(result.ok, true, result.reason);
  assert.ok(result.samples.c1.length > 0);
});

test('MQTT path: bad input never reaches the PLC; a broker restart (redeploy) is survived', async (t) => {
  const cloud = await startCloud(t);
  const plc = await startMqttPlc(t, cloud.url);

  // An unauthenticated twin is refused, and the transport does not retry.
  const anon = createTransport({ url: cloud.url, username: 'twin', password: 'wrong', connectTimeoutMs: 20000 });
  await assert.rejects(anon.connect(), (e) => e.code === 'E_UNAUTHORIZED');
  await anon.close();

  // A twin publishing a state, or commanding an output, is disconnected; the PLC never sees it.
  const rogue = await new Promise((resolve, reject) => {
    const c = mqtt.connect(cloud.url, { username: 'twin', password: PW.twin, reconnectPeriod: 0 });
    c.once('connect', () => resolve(c));
    c.once('error', reject);
  });
  t.after(() => rogue.end(true));
  const commands = plc.counters.mqttCommands;
  let gone = new Promise((r) => rogue.once('close', r));
  rogue.publish('s7twin/plant1/cmd', JSON.stringify({ c1: 1, red: 1 }));
  await gone;
  rogue.reconnect();
  await new Promise((r) => rogue.once('connect', r));
  gone = new Promise((r) => rogue.once('close', r));
  rogue.publish('s7twin/plant1/state', JSON.stringify({ grn: 1 }));
  await gone;
  const counters = await brokerCounters(cloud.red);
  assert.equal(counters.payloadRefused, 1);
  assert.equal(counters.publishRefused, 1);
  assert.equal(counters.authFailures, 1);
  assert.equal(plc.counters.mqttCommands, commands);
  assert.equal(plc.counters.mqttRejected, 0);
  assert.equal(plc.values().c1, 0);
  assert.equal(plc.values().red, 0);
  // The command log (GET /s7twin/audit) has the refused command, with its sender and code; the
  // refused state publish is not a command.
  const refused = (await auditCommands(cloud.red, (cs) => cs.some((c) => c.via === 'mqtt'), 'the refused MQTT command')).filter((c) => c.via === 'mqtt');
  assert.deepEqual(refused.map((c) => [c.user, c.role, c.src, c.outcome, c.code, c.values]),
    [['twin', 'twin', rogue.options.clientId, 'refused', 'E_NOT_WRITABLE', { c1: 1, red: 1 }]]);
  assert.match(refused[0].from, /^(::ffff:)?127\.0\.0\.1:\d+$/);

  // A twin stays connected while the cloud redeploys its flows (the broker closes and restarts).
  const twin = createTransport({ url: cloud.url, username: 'twin', password: PW.twin });
  t.after(() => twin.close());
  const seen = [];
  twin.onValues((v, kind) => seen.push({ ...v, kind, reconnects: twin.stats().reconnects }));
  await twin.connect();
  const connectsBefore = plc.counters.mqttConnects;
  const flows = await (await fetch(`${cloud.red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } })).json();
  const res = await fetch(`${cloud.red.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify({ flows: flows.flows, rev: flows.rev }),
  });
  assert.equal(res.status, 200);
  await waitFor(() => plc.counters.mqttConnects > connectsBefore, 30000, 'the PLC to reconnect');
  await waitFor(() => twin.stats().reconnects >= 1 && twin.stats().connected, 30000, 'the twin to reconnect');
  // The PLC's whole image after its reconnect reaches the twin as the new broker's snapshot, or
  // live if the twin subscribed first; live, the twin answers it with its whole input image (see
  // twin/transports/mqtt/inbox.js). Commands go out after it, so the log below holds each once.
  const whole = (v) => v.kind === 'snap' || STREAMED.every((k) => k in v);
  await waitFor(() => seen.some((v) => v.reconnects >= 1 && whole(v)), 20000, 'the PLC\'s image after the redeploy');
  // The new broker learnt the PLC's image when it reconnected, and commands flow again.
  twin.send({ st: 1 });
  await waitFor(() => seen.some((v) => v.grn === 1), 20000, 'GreenLamp after start');
  twin.send({ st: 0, sp: 1 });
  await waitFor(() => plc.values().grn === 0, 20000, 'stopped');
  twin.send({ sp: 0 });
  await twin.close();
  // Each of them in the command log, relayed by the broker (which redeployed in between: the
  // log is the runtime's, not the node's), with who sent it.
  const log = await auditCommands(cloud.red, (cs) => cs.filter((c) => c.via === 'mqtt' && c.outcome === 'relayed').length >= 3, 'the three relayed commands');
  const relayed = log.filter((c) => c.via === 'mqtt' && c.outcome === 'relayed');
  assert.deepEqual(relayed.map((c) => c.values), [{ st: 1 }, { st: 0, sp: 1 }, { sp: 0 }]);
  assert.ok(relayed.every((c) => c.user === 'twin' && c.role === 'twin' && c.target === 's7twin/plant1/cmd' && c.plant === 'plant1'));

  // And the plant sorts correctly afterwards.
  const result = await runTwin({ protocol: 'mqtt', url: cloud.url, username: 'twin', password: PW.twin, boxes: 5, profile: 'fast', seed: 7 });
  assert.equal(result.missorted, 0, result.reason);
  assert.equal(result.ok, true, result.reason);
});
