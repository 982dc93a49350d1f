'use strict';
/**
 * Probe slots on the OPC UA path with real node-opcua servers and clients: the cloud server's
 * probe variables (types and roles), the edge bridge's probe relay to the virtual PLC's probe
 * variables and back, the twin transport's probe()/onProbe() in both modes, and cloud server and
 * PLC restarts after which probes work again with every monitored item present once.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOpcuaServer } = require('../../../../nodes/lib/opcua/server');
const { createOpcuaBridge } = require('../../../../nodes/lib/opcua/bridge');
const { probeNotification, createProbeRelay } = require('../../../../nodes/lib/opcua/probes');
const { createSession } = require('../../../../nodes/lib/opcua/session');
const { createTransport } = require('../../../../twin/transports/opcua');
const ot = require('../../../../nodes/lib/opcua/tags');
const { freePort, waitFor } = require('../../../helpers/nodered');
const { createPlc } = require('../../../../plc');
const { pkiDir, countMonitoredItems, startBridge } = require('../../../helpers/opcua');

const TWIN = { user: 'twin', password: 'twin' };
const EDGE = { user: 'edge', password: 'edge' };
const SLOTS = 81; // the benchmark's 80 users use slots 1..80

async function startServer(t, port) {
  const srv = createOpcuaServer({ port: port || (await freePort()), pkiDir: pkiDir('cloud-server'), probeSlots: SLOTS });
  await srv.start();
  t.after(() => srv.stop());
  return srv;
}

async function client(t, srv, credentials) {
  const side = createSession({ endpointUrl: srv.endpointUrl, credentials, pkiDir: pkiDir('client'), name: 'test' });
  t.after(() => side.close());
  await side.connect();
  return side;
}

/** Probe one slot through a transport; resolves with the value reported for that slot. */
function roundTrip(tr, slot, value, timeoutMs = 20000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer for slot ${slot} within ${timeoutMs} ms`)), timeoutMs);
    tr.onProbe((s, v) => { if (s === slot && v === value) { clearTimeout(timer); resolve(v); } });
    tr.probe(slot, value);
  });
}

test('probe notifications: a UInt32 of a relayed slot of the kind expected, else refused with a code', () => {
  assert.deepEqual(probeNotification({ nodeId: ot.probeNodeId('req', 3), value: 7 }, 'req', 4, 'cloud'), { slot: 3, value: 7 });
  assert.deepEqual(probeNotification({ nodeId: ot.plcProbeNodeId('res', 0), value: 0 }, 'res', 4, 'plc'), { slot: 0, value: 0 });
  assert.throws(() => probeNotification({ nodeId: ot.probeNodeId('req', 4), value: 7 }, 'req', 4, 'cloud'), { code: 'E_PROBE_SLOT', message: /^cloud: not a relayed probe variable/ });
  assert.throws(() => probeNotification({ nodeId: ot.probeNodeId('res', 1), value: 7 }, 'req', 4, 'cloud'), { code: 'E_PROBE_SLOT' });
  assert.throws(() => probeNotification({ nodeId: 'ns=1;s=plant1.StartButton', value: 7 }, 'req', 4, 'cloud'), { code: 'E_PROBE_SLOT' });
  assert.throws(() => probeNotification({ nodeId: ot.probeNodeId('req', 1), value: -1 }, 'req', 4, 'cloud'), { code: 'E_PROBE_VALUE' });
  assert.throws(() => createProbeRelay({ plcEndpoint: 'opc.tcp://h:1', cloudEndpoint: 'opc.tcp://h:2', slots: 0 }), { code: 'E_CONFIG' });
});

test('cloud server probe variables: UInt32 only, twins write Req, only the edge writes Res, all counted', async (t) => {
  const srv = await startServer(t);
  const probes = [];
  srv.on('probe', (ev) => probes.push(ev));
  const twin = await client(t, srv, TWIN);
  const edge = await client(t, srv, EDGE);
  assert.equal(srv.probeNodeIdOf('req', 80), 'ns=1;s="Probe"."Req"[80]');

  const r1 = await twin.write([
    { nodeId: ot.probeNodeId('req', 1), dataType: 'UInt32', value: 4000000001 },
    { nodeId: ot.probeNodeId('req', 2), dataType: 'Int32', value: 5 }, // wrong type
    { nodeId: ot.probeNodeId('req', 3), dataType: 'Double', value: 1.5 }, // wrong type
    { nodeId: ot.probeNodeId('res', 1), dataType: 'UInt32', value: 7 }, // the edge's
    { nodeId: ot.probeNodeId('req', SLOTS), dataType: 'UInt32', value: 7 }, // no such slot
  ]);
  assert.deepEqual(r1.map((r) => r.status), ['Good', 'BadTypeMismatch', 'BadTypeMismatch', 'BadUserAccessDenied', 'BadNodeIdUnknown']);
  const r2 = await edge.write([
    { nodeId: ot.probeNodeId('res', 1), dataType: 'UInt32', value: 4000000001 },
    { nodeId: ot.probeNodeId('req', 1), dataType: 'UInt32', value: 9 }, // the twin's
  ]);
  assert.deepEqual(r2.map((r) => r.status), ['Good', 'BadUserAccessDenied']);
  assert.equal(srv.counters.probeWrites, 2);
  assert.equal(srv.counters.probeFailed, 2);
  assert.equal(srv.counters.probeDenied, 2);
  assert.equal(srv.counters.writes, 0, 'probe writes are not plant changes');
  assert.deepEqual(probes.map((p) => [p.kind, p.slot, p.value, p.who]), [['req', 1, 4000000001, 'twin'], ['res', 1, 4000000001, 'edge']]);
  assert.equal(srv.probeValues().res[1], 4000000001);

  // Read back: the refused writes changed nothing.
  const back = await twin.read([ot.probeNodeId('req', 2), ot.probeNodeId('res', 1)]);
  assert.deepEqual(back.map((r) => r.value), [0, 4000000001]);
  assert.throws(() => createOpcuaServer({ port: 4999, probeSlots: 1025 }), { code: 'E_CONFIG' });
});

test('probe relay: twin → cloud Req → edge → PLC → cloud Res → twin for slots 1, 2, 80, subscribe and poll, across cloud and PLC restarts', async (t) => {
  const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') } });
  t.after(() => plc.stop());
  const srv = await startServer(t);
  const bridge = createOpcuaBridge({
    plcEndpoint: `opc.tcp://127.0.0.1:${plc.ports.opcua}`, cloudEndpoint: srv.endpointUrl, cloudCredentials: EDGE,
    pkiDir: pkiDir('client'), probeSlots: SLOTS, probeIdleMs: 0, // the items are counted across restarts below
  });
  const errors = [];
  bridge.on('error', (e) => errors.push(e));
  t.after(() => bridge.stop());
  await startBridge(bridge);
  assert.deepEqual(bridge.stats().monitoredItems, { plc: 11, cloud: 10 }, 'the tag sessions carry no probe items');
  assert.deepEqual(bridge.stats().probes.monitoredItems, { plc: 0, cloud: SLOTS }, 'PLC responses are monitored once a slot is used');

  const transports = [];
  t.after(() => Promise.allSettled(transports.map((x) => x.close())));
  const open = async (mode) => {
    const tr = createTransport({ url: srv.endpointUrl, ...TWIN, mode, pollMs: 50, pkiDir: pkiDir('twin-client') });
    transports.push(tr);
    await tr.connect();
    return tr;
  };
  const sub = await open('subscribe');
  const poll = await open('poll');
  assert.equal(typeof sub.probe, 'function');

  let value = 3000000000 + Math.floor(Math.random() * 1e6);
  for (const [tr, slot] of [[sub, 1], [sub, 80], [poll, 2], [poll, 80]]) {
    for (let k = 0; k < 3; k++) {
      value += 1;
      assert.equal(await roundTrip(tr, slot, value), value, `slot ${slot}`);
    }
  }
  // The PLC saw exactly what was asked for (its probe request image).
  assert.equal(srv.probeValues().req[80], value);
  assert.equal(bridge.stats().probes.refused, 0);
  assert.deepEqual(bridge.stats().probes.monitoredItems, { plc: 3, cloud: SLOTS }, 'slots 1, 2, 80 in use');

  // Bad probes are counted by the transport, never sent.
  const before = sub.stats().errors;
  sub.probe(1, -1);
  sub.probe(1, 1.5);
  sub.probe(1, 2 ** 32);
  sub.probe(-1, 5);
  assert.equal(sub.stats().errors, before + 4);

  // A probe-only twin monitors no states; an onValues registered after connect() starts that.
  const seen = [];
  sub.onValues((v) => seen.push(v));
  await waitFor(async () => (await countMonitoredItems(srv.endpointUrl, TWIN)).items === 10 + SLOTS + 2 + 11, 20000, 'the twin\'s 11 state items added');
  srv.set('ng', 77);
  await waitFor(() => seen.some((v) => v.ng === 77), 20000, 'a state change reported to the late onValues');

  // Cloud restart on the same port: the relay and the twins' subscriptions come back, once.
  const port = srv.config.port;
  await srv.stop();
  const srv2 = await startServer(t, port);
  await waitFor(async () => (await countMonitoredItems(srv2.endpointUrl, TWIN)).items === 10 + SLOTS + 2 + 11, 30000,
    'bridge command and probe items plus the subscribing twin\'s 2 probe responses and 11 outputs, each once');
  await waitFor(() => sub.stats().connected && poll.stats().connected, 30000, 'twins reconnected');
  // The relay's baseline of the new server: a request written before it is no request (a stale
  // request relayed to the PLC would overwrite a fresh one).
  await waitFor(() => bridge.stats().probes.requests.baselines >= 2 && !bridge.stats().probes.requests.holding, 30000, 'the relay\'s new baseline');
  for (const [tr, slot] of [[sub, 1], [poll, 2]]) {
    value += 1;
    assert.equal(await roundTrip(tr, slot, value), value, `slot ${slot} after the restart`);
  }
  assert.equal((await countMonitoredItems(srv2.endpointUrl, TWIN)).items, 10 + SLOTS + 2 + 11);

  // PLC restart on the same port: the probe session's response items (added per slot) come back
  // once, and probes work again.
  const plcPort = plc.ports.opcua;
  await plc.stop();
  const plc2 = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: plcPort, pkiDir: pkiDir('plc') } });
  t.after(() => plc2.stop());
  const plcUrl = `opc.tcp://127.0.0.1:${plcPort}`;
  await waitFor(async () => (await countMonitoredItems(plcUrl)).items === 11 + 3, 30000, 'the PLC outputs and the 3 used probe responses, each once');
  for (const [tr, slot] of [[sub, 80], [poll, 2]]) {
    value += 1;
    assert.equal(await roundTrip(tr, slot, value), value, `slot ${slot} after the PLC restart`);
  }
  assert.equal((await countMonitoredItems(plcUrl)).items, 11 + 3);
  assert.equal(errors.filter((e) => e.code === 'E_WRITE_REFUSED').length, 0);
});

test('probe relay: a PLC response slot idle for idleMs stops being monitored, and is monitored again with its next probe', async (t) => {
  const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') } });
  t.after(() => plc.stop());
  const srv = await startServer(t);
  const plcUrl = `opc.tcp://127.0.0.1:${plc.ports.opcua}`;
  const bridge = createOpcuaBridge({
    plcEndpoint: plcUrl, cloudEndpoint: srv.endpointUrl, cloudCredentials: EDGE,
    pkiDir: pkiDir('client'), probeSlots: SLOTS, probeIdleMs: 1500,
  });
  const errors = [];
  bridge.on('error', (e) => errors.push(e));
  t.after(() => bridge.stop());
  await startBridge(bridge);
  const tr = createTransport({ url: srv.endpointUrl, ...TWIN, mode: 'subscribe', pkiDir: pkiDir('twin-client') });
  t.after(() => tr.close());
  await tr.connect();

  let value = 3100000000 + Math.floor(Math.random() * 1e6);
  for (const slot of [3, 4]) assert.equal(await roundTrip(tr, slot, ++value), value, `slot ${slot}`);
  assert.equal(bridge.stats().probes.monitoredItems.plc, 2, 'slots 3 and 4 in use');
  assert.equal((await countMonitoredItems(plcUrl)).items, 11 + 2, 'the PLC samples the tag outputs and the 2 probe responses');

  // Slot 4 keeps probing; slot 3 goes quiet: its item goes once it has been idle for 1.5 s.
  const keep = setInterval(() => tr.probe(4, ++value), 300);
  try {
    await waitFor(() => bridge.stats().probes.unwatched >= 1, 20000, 'the idle slot unwatched');
    await waitFor(async () => (await countMonitoredItems(plcUrl)).items === 11 + 1, 20000, 'the PLC no longer samples slot 3');
  } finally {
    clearInterval(keep);
  }
  // Slots 3 and 4 were first probed one after the other, so each has an item of its own (items
  // added together go only together): slot 4's, never idle, stays.
  assert.equal(bridge.stats().probes.unwatched, 1);

  // Slot 3 again: monitored again, and answered.
  assert.equal(await roundTrip(tr, 3, ++value), value, 'slot 3 after it was unwatched');
  assert.equal(bridge.stats().probes.monitoredItems.plc, 2);
  assert.deepEqual(errors, []);
});
