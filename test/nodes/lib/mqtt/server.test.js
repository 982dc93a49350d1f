'use strict';
/**
 * The MQTT broker library on real sockets: aedes behind TCP and WebSocket listeners, real mqtt.js
 * clients, ephemeral ports.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { createMqttServer } = require('../../../../nodes/lib/mqtt/server');
const { waitFor } = require('../../../helpers/nodered');
const { connect, sub, end } = require('../../../helpers/mqtt');

const USERS = 'twin:twin-pw:twin,plc:plc-pw:plc,monitor:mon-pw:monitor';

test('MQTT broker: authentication, role ACLs, payload checks, snapshot, WebSocket, close', async (t) => {
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: 0, users: USERS });
  const clients = [];
  t.after(async () => { await Promise.all(clients.map(end)); await srv.close(); });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;

  // Unauthenticated and wrong-password clients are refused at CONNACK.
  await assert.rejects(connect(url), (e) => /Not authorized|Bad username/i.test(e.message));
  await assert.rejects(connect(url, { username: 'twin', password: 'wrong' }), /Bad username or password/i);
  assert.equal(srv.counters.authFailures, 2);

  const plc = await connect(url, { username: 'plc', password: 'plc-pw' });
  const monitor = await connect(url, { username: 'monitor', password: 'mon-pw' });
  clients.push(plc, monitor);
  await sub(plc, ['s7twin/plant1/cmd', 's7twin/plant1/probe/req']);
  await sub(monitor, 's7twin/#');

  // The PLC publishes its image and one change; a twin subscribing later gets the merge, retained.
  plc.publish('s7twin/plant1/state', JSON.stringify({ c1: 0, grn: 0, red: 0 }));
  plc.publish('s7twin/plant1/state', JSON.stringify({ c1: 1, grn: 1 }));
  await waitFor(() => monitor.msgs.filter((m) => m.topic.endsWith('/state')).length === 2, 20000, 'state at the monitor');
  assert.deepEqual(srv.snapshot('plant1'), { c1: 1, grn: 1, red: 0 });

  const twin = await connect(`ws://127.0.0.1:${srv.ports.ws}/mqtt`, { username: 'twin', password: 'twin-pw' });
  clients.push(twin);
  const granted = await sub(twin, ['s7twin/plant1/state', 's7twin/plant1/probe/res/5', '#', 's7twin/plant1/cmd', 's7twin/plant1/probe/res']);
  assert.deepEqual(granted.map((g) => g.qos), [0, 0, 128, 128, 128]);
  assert.equal(srv.counters.subscribeRefused, 3);
  const snap = await waitFor(() => twin.msgs.find((m) => m.retain), 20000, 'the snapshot');
  assert.deepEqual(snap.payload, { c1: 1, grn: 1, red: 0 });

  // Commands and probes flow twin → PLC; state and probe responses PLC → twin.
  twin.publish('s7twin/plant1/cmd', JSON.stringify({ se: 1, dmg: false }));
  twin.publish('s7twin/plant1/probe/req', JSON.stringify({ i: 5, v: 77 }));
  await waitFor(() => plc.msgs.length === 2, 20000, 'cmd and probe at the PLC');
  assert.deepEqual(plc.msgs.map((m) => m.payload), [{ se: 1, dmg: false }, { i: 5, v: 77 }]);
  plc.publish('s7twin/plant1/probe/res/6', JSON.stringify({ i: 6, v: 1 })); // another twin's slot: not ours
  plc.publish('s7twin/plant1/probe/res/5', JSON.stringify({ i: 5, v: 77 }));
  plc.publish('s7twin/plant1/state', JSON.stringify({ p1fw: 1 }));
  await waitFor(() => twin.msgs.length === 3, 20000, 'probe-res and state at the twin');
  assert.equal(twin.msgs[2].retain, false);

  // A command for an output is refused: the twin is disconnected and the PLC never sees it.
  const before = plc.msgs.length;
  const closed = new Promise((r) => twin.once('close', r));
  twin.publish('s7twin/plant1/cmd', JSON.stringify({ c1: 1 }));
  await closed;
  assert.equal(srv.counters.payloadRefused, 1);

  // A twin publishing on a state topic is refused likewise; neither the PLC nor the monitor sees it.
  const liar = await connect(url, { username: 'twin', password: 'twin-pw' });
  clients.push(liar);
  const liarClosed = new Promise((r) => liar.once('close', r));
  liar.publish('s7twin/plant1/state', JSON.stringify({ c1: 0, red: 1 }));
  await liarClosed;
  assert.equal(srv.counters.publishRefused, 1);
  // A marker published after the refusal arrives; the refused message never did.
  plc.publish('s7twin/plant1/state', JSON.stringify({ p2fw: 1 }));
  await waitFor(() => monitor.msgs.some((m) => m.payload.p2fw === 1), 20000, 'the marker');
  assert.equal(plc.msgs.length, before);
  assert.ok(!monitor.msgs.some((m) => m.payload.red === 1));
  assert.deepEqual(srv.snapshot('plant1'), { c1: 1, grn: 1, red: 0, p1fw: 1, p2fw: 1 });

  // The monitor may publish nothing.
  const monClosed = new Promise((r) => monitor.once('close', r));
  monitor.publish('s7twin/plant1/cmd', JSON.stringify({ st: 1 }));
  await monClosed;
  assert.equal(srv.counters.publishRefused, 2);
  assert.ok(srv.counters.messagesIn >= 7);
  assert.ok(srv.counters.connections >= 6);
});

test('MQTT broker: a TCP client announcing an oversized packet is dropped before sending it', async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: null, users: USERS, maxFrameBytes: 1024 });
  t.after(() => srv.close());
  const sock = net.connect(srv.ports.tcp, '127.0.0.1');
  sock.on('error', () => {});
  await new Promise((r) => sock.once('connect', r));
  const closed = new Promise((r) => sock.once('close', r));
  sock.write(Buffer.from([0x10, 0x80, 0x80, 0x40])); // CONNECT announcing 1 MiB
  await closed;
  assert.equal(srv.counters.oversized, 1);
  // Normal clients are unaffected.
  const c = await connect(`mqtt://127.0.0.1:${srv.ports.tcp}`, { username: 'plc', password: 'plc-pw' });
  await end(c);
});

test('MQTT broker: close() drops clients and frees both ports at once; config errors have codes', async () => {
  const srv = await createMqttServer({ port: 0, wsPort: 0, users: USERS });
  const c = await connect(`mqtt://127.0.0.1:${srv.ports.tcp}`, { username: 'plc', password: 'plc-pw' });
  const gone = new Promise((r) => c.once('close', r));
  await srv.close();
  await gone;
  await end(c);
  const again = await createMqttServer({ port: srv.ports.tcp, wsPort: srv.ports.ws, users: USERS });
  assert.equal(again.ports.tcp, srv.ports.tcp);
  // A port in use is a clean error, not a crash.
  await assert.rejects(createMqttServer({ port: again.ports.tcp, wsPort: null, users: USERS }), (e) => e.code === 'E_MQTT_LISTEN');
  await again.close();
  await assert.rejects(createMqttServer({ port: 0, users: '' }), (e) => e.code === 'E_MQTT_CONFIG');
  await assert.rejects(createMqttServer({ port: 0, users: 'x:y:root' }), (e) => e.code === 'E_MQTT_USERS');
});

test('MQTT broker: a client id is bound to its user, so a twin cannot take over the PLC session', async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: null, users: USERS });
  const clients = [];
  t.after(async () => { await Promise.all(clients.map(end)); await srv.close(); });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const plc = await connect(url, { username: 'plc', password: 'plc-pw', clientId: 'plc-1' });
  clients.push(plc);
  let plcClosed = false;
  plc.on('close', () => { plcClosed = true; });
  await assert.rejects(connect(url, { username: 'twin', password: 'twin-pw', clientId: 'plc-1' }), /Identifier rejected/i);
  assert.equal(srv.counters.takeoverRefused, 1);
  assert.equal(plcClosed, false);
  assert.ok(plc.connected);
  // The same user may take its own session over (a PLC reconnecting before the old socket timed out).
  const again = await connect(url, { username: 'plc', password: 'plc-pw', clientId: 'plc-1' });
  clients.push(again);
  await waitFor(() => plcClosed, 20000, 'the old session to be replaced');
});

test('MQTT broker: a will is checked like a publish, so a twin cannot leave a fake PLC state behind', async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: null, users: USERS });
  const clients = [];
  t.after(async () => { await Promise.all(clients.map(end)); await srv.close(); });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const monitor = await connect(url, { username: 'monitor', password: 'mon-pw' });
  clients.push(monitor);
  await sub(monitor, 's7twin/#');
  const twin = await connect(url, {
    username: 'twin', password: 'twin-pw',
    will: { topic: 's7twin/plant1/state', payload: JSON.stringify({ grn: 1 }), qos: 0, retain: false },
  });
  const good = await connect(url, {
    username: 'twin', password: 'twin-pw', clientId: 'twin-good',
    will: { topic: 's7twin/plant1/cmd', payload: JSON.stringify({ sp: 1 }), qos: 0, retain: false },
  });
  // Drop both sockets without DISCONNECT: the broker publishes the wills it may.
  twin.stream.destroy();
  good.stream.destroy();
  twin.end(true);
  good.end(true);
  await waitFor(() => monitor.msgs.some((m) => m.topic === 's7twin/plant1/cmd'), 20000, 'the allowed will');
  await waitFor(() => srv.counters.publishRefused === 1, 20000, 'the refused will');
  assert.ok(!monitor.msgs.some((m) => m.topic === 's7twin/plant1/state'));
});

test('MQTT broker: nothing stale reaches a PLC: no retained command, nothing queued for a persistent session', async (t) => {
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: false, users: USERS });
  const events = [];
  srv.events.on('event', (ev) => events.push(ev));
  const clients = [];
  t.after(async () => { await Promise.all(clients.map(end)); await srv.close(); });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const twin = await connect(url, { username: 'twin', password: 'twin-pw' });
  clients.push(twin);
  const subAt = (c, topics, qos) => new Promise((resolve, reject) => c.subscribe(topics, { qos }, (e, granted) => {
    if (e && e.packet && Array.isArray(e.packet.granted)) resolve(e.packet.granted);
    else if (e) reject(e);
    else resolve(granted.map((g) => g.qos));
  }));

  // A twin's retained command and probe request: passed on now, kept for nobody later.
  await twin.publishAsync('s7twin/plant1/cmd', JSON.stringify({ st: 1 }), { qos: 1, retain: true });
  await twin.publishAsync('s7twin/plant1/probe/req', JSON.stringify({ i: 1, v: 5 }), { qos: 1, retain: true });

  // A PLC with a persistent session (clean: false, as an LMQTT client may be set up) asking for
  // QoS 1 on the command and probe request topics: refused, or the broker would queue commands
  // for it while it is away (MQTT-3.1.2-5). At QoS 0 it is served, and nothing is queued.
  const opts = { username: 'plc', password: 'plc-pw', clientId: 'plc-persistent', clean: false };
  let plc = await connect(url, opts);
  clients.push(plc);
  assert.deepEqual(await subAt(plc, ['s7twin/plant1/cmd', 's7twin/+/probe/req'], 1), [0x80, 0x80]);
  assert.equal(srv.counters.persistentRefused, 2);
  assert.deepEqual(events.filter((e) => e.code === 'E_MQTT_PERSISTENT').length, 2);
  assert.deepEqual(await subAt(plc, ['s7twin/plant1/cmd', 's7twin/+/probe/req'], 0), [0, 0]);
  // Clean sessions, and other topics, keep the QoS they ask for.
  const cleanPlc = await connect(url, { username: 'plc', password: 'plc-pw' });
  clients.push(cleanPlc);
  assert.deepEqual(await subAt(cleanPlc, ['s7twin/plant1/cmd'], 1), [1]);
  const monitor = await connect(url, { username: 'monitor', password: 'mon-pw', clientId: 'mon-persistent', clean: false });
  clients.push(monitor);
  assert.deepEqual(await subAt(monitor, ['s7twin/plant1/state'], 1), [1]);

  // The retained command and probe request did not come; a live command does.
  await twin.publishAsync('s7twin/plant1/cmd', JSON.stringify({ se: 1 }), { qos: 1 });
  await waitFor(() => plc.msgs.some((m) => m.payload.se === 1), 10000, 'a live command');
  assert.deepEqual(plc.msgs.map((m) => m.payload), [{ se: 1 }], 'a retained command reached the PLC');

  // Away: commands and probe requests sent meanwhile are not kept for it.
  await end(plc);
  await twin.publishAsync('s7twin/plant1/cmd', JSON.stringify({ sp: 1 }), { qos: 1 });
  await twin.publishAsync('s7twin/plant1/probe/req', JSON.stringify({ i: 2, v: 6 }), { qos: 1 });
  plc = await connect(url, opts);
  clients.push(plc);
  // Its session (and subscriptions) survived: a live command arrives, and it is the first.
  await twin.publishAsync('s7twin/plant1/cmd', JSON.stringify({ sk: 1 }), { qos: 1 });
  await waitFor(() => plc.msgs.some((m) => m.payload.sk === 1), 10000, 'a live command after the reconnect');
  assert.deepEqual(plc.msgs.map((m) => m.payload), [{ sk: 1 }], 'commands queued while away were delivered late');
});
