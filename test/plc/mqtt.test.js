'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const mqtt = require('mqtt');
const { startPlc, waitFor } = require('../helpers/plc');

const PLANT = 'testplant';
const T = {
  state: `s7twin/${PLANT}/state`, cmd: `s7twin/${PLANT}/cmd`, req: `s7twin/${PLANT}/probe/req`, res: `s7twin/${PLANT}/probe/res/+`,
};

let broker;
let server;
let port;
let plc;
let client;
const states = []; // every state message, parsed
const responses = [];
const resTopics = []; // the topic of each response, in order
const rejects = [];

/** Start aedes on an ephemeral port, optionally requiring a username/password. */
async function startBroker(auth) {
  const { Aedes } = await import('aedes');
  const b = await Aedes.createBroker(auth ? {
    authenticate: (c, user, pass, done) => done(null, user === auth.username && String(pass) === auth.password),
  } : {});
  const s = net.createServer((sock) => { sock.setNoDelay(true); b.handle(sock); });
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { broker: b, server: s, port: s.address().port };
}

async function stopBroker(b, s) {
  const closed = new Promise((resolve) => s.close(() => resolve())); // no new connections from here
  await new Promise((resolve) => b.close(() => resolve())); // disconnects every client
  await closed;
}

before(async () => {
  ({ broker, server, port } = await startBroker({ username: 'plc', password: 'secret' }));
  client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: 'plc', password: 'secret', reconnectPeriod: 0 });
  client.on('message', (topic, payload) => {
    const obj = JSON.parse(payload.toString());
    if (topic === T.state) states.push(obj);
    if (topic.startsWith(`s7twin/${PLANT}/probe/res/`)) { responses.push(obj); resTopics.push(topic); }
  });
  await client.subscribeAsync([T.state, T.res]);
  plc = await startPlc({
    s7: false, opcua: false, modbus: false,
    mqtt: { url: `mqtt://127.0.0.1:${port}`, plant: PLANT, username: 'plc', password: 'secret', qos: 1, reconnectMs: 200 },
  });
  plc.on('reject', (r) => rejects.push(r));
});

after(async () => {
  if (plc) await plc.stop();
  if (client) await client.endAsync(true);
  if (broker) await stopBroker(broker, server);
});

test('the PLC publishes a full snapshot of the streamed outputs on connect', async () => {
  const snap = await waitFor(() => states.find((s) => 'c1' in s && 'nb' in s), 10000, 'snapshot');
  assert.deepEqual(Object.keys(snap).sort(), ['c1', 'c2', 'grn', 'nb', 'ng', 'nr', 'p1bw', 'p1fw', 'p2fw', 'p3fw', 'red'].sort());
  assert.equal(snap.scn, undefined, 'ScanCount is not streamed');
});

test('a command drives the inputs and only the changed outputs are published', async () => {
  states.length = 0;
  await client.publishAsync(T.cmd, JSON.stringify({ st: 1, p1b: true }), { qos: 1 });
  const msg = await waitFor(() => states.find((s) => s.grn === 1), 10000, 'running published');
  assert.deepEqual(msg, { c1: 1, c2: 1, grn: 1 });
  assert.equal(plc.values().st, 1);
  await client.publishAsync(T.cmd, JSON.stringify({ st: 0 }), { qos: 1 });
  await client.publishAsync(T.cmd, JSON.stringify({ sd: 1, dmg: 1 }), { qos: 1 });
  const reject = await waitFor(() => states.find((s) => s.red === 1), 10000, 'red lamp');
  assert.deepEqual(reject, { c1: 0, p2fw: 1, red: 1 });
  await client.publishAsync(T.cmd, JSON.stringify({ sd: 0, dmg: 0, p2f: 1 }), { qos: 1 });
  const done = await waitFor(() => states.find((s) => s.nr === 1), 10000, 'reject counted');
  assert.deepEqual(done, { c1: 1, p2fw: 0, red: 0, nr: 1 });
  await client.publishAsync(T.cmd, JSON.stringify({ p2f: 0 }), { qos: 1 });
});

test('malformed, unknown, non-writable and out-of-range commands are rejected, counted, not written', async () => {
  const before = plc.counters.mqttRejected;
  const bad = ['{not json', '[1,2]', '{}', '"st"', JSON.stringify({ nope: 1 }), JSON.stringify({ c1: 0 }),
    JSON.stringify({ sp: 2 }), JSON.stringify({ sp: 1, grn: 0 })];
  for (const p of bad) await client.publishAsync(T.cmd, p, { qos: 1 });
  await waitFor(() => plc.counters.mqttRejected - before === bad.length, 10000, 'all rejected');
  await plc.waitScans(3);
  const v = plc.values();
  assert.equal(v.sp, 0, 'the valid sp of a mixed message was not written either');
  assert.equal(v.grn, 1, 'still running');
  assert.deepEqual(rejects.slice(-bad.length).map((r) => r.code),
    ['E_MQTT_JSON', 'E_MQTT_CMD', 'E_MQTT_CMD', 'E_MQTT_CMD', 'E_UNKNOWN_TAG', 'E_NOT_WRITABLE', 'E_TYPE', 'E_NOT_WRITABLE']);
});

test('probe requests come back on probe/res/<slot> after the scan, single and batched', async () => {
  await client.publishAsync(T.req, JSON.stringify({ i: 3, v: 42 }), { qos: 1 });
  assert.deepEqual(await waitFor(() => responses.find((r) => r.i === 3), 10000, 'single response'), { i: 3, v: 42 });
  assert.equal(resTopics[responses.findIndex((r) => r.i === 3)], `s7twin/${PLANT}/probe/res/3`, 'on its own slot\'s topic');
  await client.publishAsync(T.req, JSON.stringify([{ i: 0, v: 1 }, { i: 1023, v: 4294967295 }]), { qos: 1 });
  const batch = await waitFor(() => responses.find((r) => Array.isArray(r)), 10000, 'batched response');
  assert.deepEqual(batch, [{ i: 0, v: 1 }, { i: 1023, v: 4294967295 }]);
  assert.equal(resTopics[responses.indexOf(batch)], `s7twin/${PLANT}/probe/res/0`, 'a batch on its first slot\'s topic');
  assert.equal(plc.probeResponse(1023), 4294967295);
});

test('bad probe requests are rejected and counted', async () => {
  const before = plc.counters.mqttRejected;
  const n = responses.length;
  for (const p of ['nope', '[]', JSON.stringify({ i: 1024, v: 1 }), JSON.stringify({ i: 1, v: -1 }), JSON.stringify([{ i: 2, v: 1 }, null])]) {
    await client.publishAsync(T.req, p, { qos: 1 });
  }
  await waitFor(() => plc.counters.mqttRejected - before === 5, 10000, 'five rejected');
  await plc.waitScans(3);
  assert.equal(responses.length, n, 'no response for a rejected request');
  assert.equal(plc.probeResponse(2), 0, 'a batch with one bad item writes nothing');
});

test('the PLC reconnects by itself after the broker comes back, re-sends a snapshot, and applies no retained command or probe request', async () => {
  const connects = plc.counters.mqttConnects;
  await client.endAsync(true);
  client = null;
  await stopBroker(broker, server);
  broker = null;
  await waitFor(() => !plc.mqttConnected, 10000, 'PLC sees the broker gone');
  // Same port again, so the PLC's configured URL reaches the new broker.
  const { Aedes } = await import('aedes');
  // Refuse the PLC until the test's subscriber is in, so the snapshot cannot be missed.
  let open = false;
  broker = await Aedes.createBroker({ authenticate: (c, u, p, done) => done(null, u === 'plc' && (open || c.id.startsWith('test-'))) });
  server = net.createServer((sock) => { sock.setNoDelay(true); broker.handle(sock); });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve); });
  const seen = [];
  client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: 'plc', password: 'x', reconnectPeriod: 0, clientId: 'test-sub' });
  client.on('message', (topic, payload) => seen.push(JSON.parse(payload.toString())));
  await client.subscribeAsync(T.state);
  // Left retained on this broker (a plain aedes keeps them) before the PLC is back: old, not
  // commands a twin sends now; the broker hands them to the PLC's new subscription.
  await client.publishAsync(T.cmd, JSON.stringify({ se: 1 }), { qos: 1, retain: true });
  await client.publishAsync(T.req, JSON.stringify({ i: 5, v: 77 }), { qos: 1, retain: true });
  const stale = plc.counters.mqttStale;
  open = true;
  await waitFor(() => plc.counters.mqttConnects > connects && plc.mqttConnected, 15000, 'PLC reconnected');
  const snap = await waitFor(() => seen.find((s) => 'nb' in s), 10000, 'snapshot after reconnect');
  assert.equal(snap.grn, 1);
  assert.equal(snap.nr, 1);
  await waitFor(() => plc.counters.mqttStale === stale + 2, 10000, 'both retained messages delivered to the PLC and ignored');
  await plc.waitScans(3);
  assert.equal(plc.values().se, 0, 'a retained command was applied');
  assert.equal(plc.probeResponse(5), 0, 'a retained probe request was applied');
  // A command sent now still works.
  await client.publishAsync(T.cmd, JSON.stringify({ se: 1 }), { qos: 1 });
  await waitFor(() => plc.values().se === 1, 10000, 'a live command applied');
});
