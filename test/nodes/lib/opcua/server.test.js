'use strict';
/**
 * The cloud OPC UA server (nodes/lib/opcua/server.js) and the edge bridge (nodes/lib/opcua/bridge.js)
 * against real node-opcua clients and the virtual PLC's OPC UA server: access per role, bad input,
 * change events with the writer, revised intervals, restart keeping the image, and the bridge
 * relaying both ways without duplicate monitored items after a restart.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOpcuaServer, startImage, lowerFloors } = require('../../../../nodes/lib/opcua/server');
const { createOpcuaBridge } = require('../../../../nodes/lib/opcua/bridge');
const { createSession } = require('../../../../nodes/lib/opcua/session');
const { freePort, waitFor } = require('../../../helpers/nodered');
const { createPlc } = require('../../../../plc');
const { pkiDir, countMonitoredItems, startBridge } = require('../../../helpers/opcua');

const TWIN = { user: 'twin', password: 'twin' };
const EDGE = { user: 'edge', password: 'edge' };

async function startServer(t, opts = {}) {
  const srv = createOpcuaServer({ port: await freePort(), pkiDir: pkiDir('cloud-server'), ...opts });
  await srv.start();
  t.after(() => srv.stop());
  return srv;
}

async function client(t, srv, credentials, extra = {}) {
  const side = createSession({ endpointUrl: srv.endpointUrl, credentials, pkiDir: pkiDir('client'), name: 'test', ...extra });
  t.after(() => side.close());
  await side.connect();
  return side;
}

test('a server starts from the image it is given: known tags only, normalised; a value its table refuses is left out', () => {
  assert.deepEqual(startImage({ st: true, ng: 5, nope: 1 }), { st: 1, ng: 5 });
  assert.deepEqual(startImage(undefined), {});
  assert.deepEqual(startImage({ ng: 1e9, st: 1 }), { st: 1 }, 'kept from before the table changed, not this table\'s');
  const tank = require('../../../../nodes/lib/core/io-table').loadTable({ file: require('node:path').join(__dirname, '..', '..', '..', '..', 'examples',
    'tables', 'tank.json') });
  assert.deepEqual(startImage({ sp: 42.5, rcp: 'Milk', st: 1 }, tank), { sp: 42.5, rcp: 'Milk' });
});

test('node-opcua\'s class-wide floors are lowered, never raised', () => {
  const fake = { MonitoredItem: { minimumSamplingInterval: 50 }, Subscription: { minimumPublishingInterval: 50 } };
  lowerFloors(10, 20, fake);
  assert.deepEqual([fake.MonitoredItem.minimumSamplingInterval, fake.Subscription.minimumPublishingInterval], [10, 20]);
  lowerFloors(30, 0, fake);
  assert.deepEqual([fake.MonitoredItem.minimumSamplingInterval, fake.Subscription.minimumPublishingInterval], [10, 20]);
});

test('cloud server: twins write commands, the edge writes states, everything else is refused and counted', async (t) => {
  const srv = await startServer(t);
  const events = [];
  srv.on('change', (ev) => events.push(ev));
  const twin = await client(t, srv, TWIN);
  const edge = await client(t, srv, EDGE);

  const r1 = await twin.write([
    { nodeId: srv.nodeIdOf('dmg'), dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('sd'), dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('c1'), dataType: 'Boolean', value: true }, // a state: not the twin's
    { nodeId: 'ns=1;s=plant1.NoSuchVariable', dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('ng'), dataType: 'Int16', value: 5 }, // a state again
  ]);
  assert.deepEqual(r1.map((r) => r.status), ['Good', 'Good', 'BadUserAccessDenied', 'BadNodeIdUnknown', 'BadUserAccessDenied']);
  const r2 = await edge.write([
    { nodeId: srv.nodeIdOf('c1'), dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('st'), dataType: 'Boolean', value: true }, // a command: not the edge's
    { nodeId: srv.nodeIdOf('ng'), dataType: 'Int16', value: 3 },
  ]);
  assert.deepEqual(r2.map((r) => r.status), ['Good', 'BadUserAccessDenied', 'Good']);
  // A wrong type is refused by the server, not coerced.
  const r3 = await twin.write([{ nodeId: srv.nodeIdOf('st'), dataType: 'Int32', value: 1 }]);
  assert.equal(r3[0].good, false);

  assert.equal(srv.counters.denied, 3);
  assert.deepEqual(events.map((e) => [e.short, e.value, e.who, e.role, e.kind]), [
    ['dmg', 1, 'twin', 'twin', 'cmd'], ['sd', 1, 'twin', 'twin', 'cmd'],
    ['c1', 1, 'edge', 'edge', 'state'], ['ng', 3, 'edge', 'edge', 'state'],
  ]);
  assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4]);
  assert.equal(events[0].nodeId, 'ns=1;s=plant1.DamageSensor');
  // Writing the same value again is no change: no event.
  await twin.write([{ nodeId: srv.nodeIdOf('sd'), dataType: 'Boolean', value: true }]);
  assert.equal(events.length, 4);
  assert.equal(srv.counters.unchanged, 1);
  assert.deepEqual((await twin.read([srv.nodeIdOf('c1'), srv.nodeIdOf('ng')])).map((r) => r.value), [true, 3]);
});

test('cloud server: bad logins and anonymous sessions are refused; local writes are checked', async (t) => {
  const srv = await startServer(t);
  const bad = createSession({ endpointUrl: srv.endpointUrl, credentials: { user: 'twin', password: 'wrong' }, pkiDir: pkiDir('client'), name: 'bad' });
  t.after(() => bad.close());
  await assert.rejects(bad.connect(), { code: 'E_SESSION' });
  const anon = createSession({ endpointUrl: srv.endpointUrl, pkiDir: pkiDir('client'), name: 'anon' });
  t.after(() => anon.close());
  await assert.rejects(anon.connect(), { code: 'E_SESSION' });
  assert.ok(srv.counters.badLogins >= 1);
  assert.throws(() => srv.set('nope', 1), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => srv.set('ng', 1e6), { code: 'E_RANGE' });
  srv.set('st', 1);
  assert.equal(srv.values().st, 1);
});

test('cloud server: 10 ms sampling and publishing are granted; a restart keeps the image', async (t) => {
  const srv = await startServer(t);
  const events = [];
  srv.on('change', (ev) => events.push(ev));
  const sub = await client(t, srv, EDGE, { monitor: [srv.nodeIdOf('st')], samplingIntervalMs: 10, publishingIntervalMs: 10 });
  assert.deepEqual(sub.revised, { publishingIntervalMs: 10, samplingIntervalMs: 10 });
  const seen = [];
  sub.on('values', (batch) => seen.push(...batch.map((n) => n.value)));
  await waitFor(() => seen.length >= 1, 10000, 'the initial value');
  srv.set('st', 1);
  await waitFor(() => seen.includes(true), 10000, 'st=1 through the subscription');

  await srv.stop();
  await srv.start();
  assert.equal(srv.values().st, 1);
  const again = await client(t, srv, TWIN);
  assert.deepEqual((await again.read([srv.nodeIdOf('st')])).map((r) => r.value), [true]);
  // The subscriber's session was repaired by node-opcua: its items exist once on the new server.
  await waitFor(async () => (await countMonitoredItems(srv.endpointUrl, TWIN)).items === 1, 20000, 'the monitored item recreated');
  srv.set('st', 0);
  await waitFor(() => seen[seen.length - 1] === false, 10000, 'st=0 after the restart');
  assert.equal((await countMonitoredItems(srv.endpointUrl, TWIN)).items, 1);
});

test('bridge: commands reach the PLC together, outputs reach the cloud, a restarted cloud is resynced', async (t) => {
  const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') } });
  t.after(() => plc.stop());
  const srv = await startServer(t);
  const bridge = createOpcuaBridge({
    plcEndpoint: `opc.tcp://127.0.0.1:${plc.ports.opcua}`, cloudEndpoint: srv.endpointUrl, cloudCredentials: EDGE, pkiDir: pkiDir('client'),
    probeSlots: 0, // tags only here: the probe relay has its own test (probes.test.js)
  });
  const errors = [];
  bridge.on('error', (e) => errors.push(e));
  t.after(() => bridge.stop());
  await startBridge(bridge);
  assert.deepEqual(bridge.stats().monitoredItems, { plc: 11, cloud: 10 });

  // Start: the PLC runs, its outputs appear on the cloud server as written by the edge.
  const events = [];
  srv.on('change', (ev) => events.push(ev));
  srv.set('st', 1);
  await waitFor(() => srv.values().c1 === 1 && srv.values().grn === 1, 10000, 'c1 and grn mirrored to the cloud');
  assert.ok(events.some((e) => e.short === 'c1' && e.who === 'edge'));
  srv.set('st', 0);

  // A damaged box: dmg and sd set together reach the PLC in one scan, so the box is rejected.
  const twin = await client(t, srv, TWIN);
  await twin.write([
    { nodeId: srv.nodeIdOf('dmg'), dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('sd'), dataType: 'Boolean', value: true },
  ]);
  await waitFor(() => srv.values().p2fw === 1 && srv.values().red === 1, 10000, 'the reject (p2fw, red) mirrored');

  // Cloud restart with the image lost (a new server on the same port): the bridge writes the
  // PLC's states into it, and its command subscription exists once.
  const port = srv.config.port;
  await srv.stop();
  const srv2 = createOpcuaServer({ port, pkiDir: pkiDir('cloud-server') });
  await srv2.start();
  t.after(() => srv2.stop());
  await waitFor(() => srv2.values().p2fw === 1 && srv2.values().grn === 1, 20000, 'the new server mirroring the PLC');
  await waitFor(async () => (await countMonitoredItems(srv2.endpointUrl, TWIN)).items === 10, 20000, 'the command items recreated once');
  assert.equal(errors.filter((e) => e.code === 'E_WRITE_REFUSED').length, 0);
});

test('security: SignAndEncrypt sessions work; a server without None refuses insecure clients; bad options are caught', async (t) => {
  const srv = await startServer(t, { allowInsecure: false });
  const secure = await client(t, srv, TWIN, { securityMode: 'SignAndEncrypt', securityPolicy: 'Basic256Sha256' });
  const r = await secure.write([{ nodeId: srv.nodeIdOf('st'), dataType: 'Boolean', value: true }]);
  assert.equal(r[0].status, 'Good');
  const insecure = createSession({
    endpointUrl: srv.endpointUrl, credentials: TWIN, pkiDir: pkiDir('client'), name: 'insecure', maxDelayMs: 200, initialDelayMs: 50,
  });
  t.after(() => insecure.close());
  // node-opcua keeps retrying a refused secure channel: the session never comes.
  const outcome = await Promise.race([
    insecure.connect().then(() => 'connected', (err) => err.code),
    new Promise((resolve) => setTimeout(() => resolve('no session'), 3000)),
  ]);
  assert.notEqual(outcome, 'connected');
  assert.throws(() => createSession({ endpointUrl: srv.endpointUrl, securityMode: 'Fast' }), { code: 'E_CONFIG' });
  assert.throws(() => createSession({ endpointUrl: srv.endpointUrl, securityMode: 'SignAndEncrypt' }), { code: 'E_CONFIG' });
  assert.throws(() => createSession({ endpointUrl: 'http://x' }), { code: 'E_CONFIG' });
});
