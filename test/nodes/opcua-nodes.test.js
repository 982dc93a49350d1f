'use strict';
/**
 * The s7twin-opcua-server and s7twin-opcua-bridge nodes in Node-RED (node-red-node-test-helper):
 * status, messages, bad input to done(err), a redeploy that keeps the server's image, stats with
 * the monitored item counts, and close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const serverNode = require('../../nodes/s7twin-opcua-server');
const bridgeNode = require('../../nodes/s7twin-opcua-bridge');
const { createOpcuaServer } = require('../../nodes/lib/opcua/server');
const { createSession } = require('../../nodes/lib/opcua/session');
const { freePort, waitFor } = require('../helpers/nodered');
const { createPlc } = require('../../plc');
const { pkiDir } = require('../helpers/opcua');

helper.init(require.resolve('node-red'));

test.before(() => helper.startServer());
test.after(() => helper.stopServer());
test.afterEach(() => helper.unload());

/** Record every status a node shows. */
function statuses(n) {
  const seen = [];
  const orig = n.status.bind(n);
  n.status = (s) => { seen.push(s); return orig(s); };
  return seen;
}

test('s7twin-opcua-server: status, change messages for the flow-timer, bad input, redeploy keeps the image', async () => {
  const port = await freePort();
  const serverCfg = {
    id: 'srv', type: 's7twin-opcua-server', z: 'f', name: 'srv', host: '127.0.0.1', port: String(port), plant: 'plant1',
    pkiDir: pkiDir('cloud-server'), minimumSamplingInterval: '10', minimumPublishingInterval: '10', twinUser: 'twin', edgeUser: 'edge',
    allowInsecure: true, allowAnonymous: false, autoAcceptCertificates: true, x: 100, y: 100, wires: [['out']],
  };
  const flow = [
    { id: 'f', type: 'tab', label: 'opcua' },
    serverCfg,
    { id: 'out', type: 'helper', z: 'f', x: 300, y: 100 },
  ];
  const creds = { srv: { twinPassword: 'tw-secret', edgePassword: 'ed-secret' } };
  await helper.load([serverNode], flow, creds);
  const srv = helper.getNode('srv');
  const seen = statuses(srv);
  await waitFor(() => seen.some((s) => s.fill === 'green'), 20000, 'green status');
  assert.match(seen.find((s) => s.fill === 'green').text, new RegExp(`^:${port} sessions 0`));

  const out = helper.getNode('out');
  const msgs = [];
  out.on('input', (m) => msgs.push(m));
  // A twin with the configured password writes a command: one envelope-like message.
  const twin = createSession({
    endpointUrl: `opc.tcp://127.0.0.1:${port}`, credentials: { user: 'twin', password: 'tw-secret' }, pkiDir: pkiDir('client'), name: 'twin',
  });
  await twin.connect();
  try {
    await twin.write([{ nodeId: 'ns=1;s=plant1.StartButton', dataType: 'Boolean', value: true }]);
    await waitFor(() => msgs.length >= 1, 10000, 'a change message');
    assert.equal(msgs[0].topic, 'st');
    assert.deepEqual({ ...msgs[0].payload, ts: 0 }, { k: 'cmd', src: 'twin', seq: 1, ts: 0, d: { st: 1 } });
    assert.equal(msgs[0].variable, 'StartButton');
    assert.equal(msgs[0].role, 'twin');
    await waitFor(() => seen.some((s) => /sessions 1/.test(s.text || '')), 10000, 'the session in the status');
  } finally {
    await twin.close();
  }
  // The default password does not work any more.
  const old = createSession({
    endpointUrl: `opc.tcp://127.0.0.1:${port}`, credentials: { user: 'twin', password: 'twin' }, pkiDir: pkiDir('client'), name: 'old',
  });
  await assert.rejects(old.connect(), { code: 'E_SESSION' });
  await old.close();

  // Input from the flow: a state set locally; bad input goes to done(err).
  srv.receive({ payload: { c1: 1 } });
  await waitFor(() => msgs.some((m) => m.topic === 'c1' && m.payload.k === 'state' && m.who === 'local'), 10000, 'the local write');
  const errors = [];
  srv.on('call:error', (call) => errors.push(call.args[0]));
  srv.receive({ payload: { nope: 1 } });
  srv.receive({ topic: 'ng', payload: 1e9 });
  await waitFor(() => errors.length >= 2, 10000, 'two errors');
  assert.match(String(errors[0]), /unknown tag/);
  assert.match(String(errors[1]), /outside/);

  // Redeploy with a changed node: the new server starts with the old image.
  await helper.setFlows([flow[0], { ...serverCfg, name: 'srv2' }, flow[2]], 'full', creds);
  const srv2 = helper.getNode('srv');
  assert.notEqual(srv2, srv);
  const seen2 = statuses(srv2);
  await waitFor(() => seen2.some((s) => s.fill === 'green'), 20000, 'green status after the redeploy');
  const reader = createSession({
    endpointUrl: `opc.tcp://127.0.0.1:${port}`, credentials: { user: 'edge', password: 'ed-secret' }, pkiDir: pkiDir('client'), name: 'reader',
  });
  await reader.connect();
  try {
    const r = await reader.read(['ns=1;s=plant1.StartButton', 'ns=1;s=plant1.ConveyorBelt']);
    assert.deepEqual(r.map((x) => x.value), [true, true]);
  } finally {
    await reader.close();
  }
});

test('s7twin-opcua-bridge: connects both sides, relays, answers stats, rejects unknown commands', async (t) => {
  const plcs = [];
  t.after(async () => { await helper.unload(); for (const p of plcs) await p.stop(); });
  const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') } });
  plcs.push(plc);
  const cloud = createOpcuaServer({ port: await freePort(), pkiDir: pkiDir('cloud-server') });
  await cloud.start();
  t.after(() => cloud.stop());
  {
    const flow = [
      { id: 'f', type: 'tab', label: 'opcua' },
      {
        id: 'br', type: 's7twin-opcua-bridge', z: 'f', name: 'br', plcUrl: `opc.tcp://:${plc.ports.opcua}`, cloudUrl: cloud.endpointUrl,
        plant: '', cloudUser: 'edge', securityMode: 'None', securityPolicy: 'None', publishingInterval: '10', samplingInterval: '',
        pkiDir: pkiDir('edge-client'), x: 100, y: 100, wires: [['out']],
      },
      { id: 'out', type: 'helper', z: 'f', x: 300, y: 100 },
    ];
    await helper.load([bridgeNode], flow, { br: { cloudPassword: 'edge' } });
    const br = helper.getNode('br');
    const seen = statuses(br);
    const out = helper.getNode('out');
    const msgs = [];
    out.on('input', (m) => msgs.push(m));
    await waitFor(() => seen.some((s) => s.fill === 'green' && s.text === 'connected'), 30000, 'connected status');
    // The bridge's baseline read: what the cloud holds before it is no command, so a command
    // written before it would not reach the PLC.
    const registry = require('../../nodes/lib/runtime/registry');
    await waitFor(() => {
      const e = registry.list().find((n) => n.id === 'br');
      return e && e.counters.commands && !e.counters.commands.holding;
    }, 30000, 'the bridge\'s baseline');

    cloud.set('st', 1);
    await waitFor(() => msgs.some((m) => m.topic === 'cloud' && m.payload.c1 === 1), 10000, 'c1 relayed back to the cloud');
    assert.equal(cloud.values().c1, 1);
    assert.ok(msgs.some((m) => m.topic === 'plc' && m.payload.st === 1));

    br.receive({ topic: 'stats' });
    const stats = await waitFor(() => msgs.find((m) => m.topic === 'stats'), 10000, 'stats');
    assert.deepEqual(stats.payload.monitoredItems, { plc: 11, cloud: 10 });
    assert.ok(stats.payload.toPlc >= 1 && stats.payload.toCloud >= 1);
    assert.equal(stats.payload.refused, 0);

    const errors = [];
    br.on('call:error', (call) => errors.push(call.args[0]));
    br.receive({ topic: 'restart' });
    await waitFor(() => errors.length >= 1, 10000, 'an error for an unknown command');
    assert.match(String(errors[0]), /unknown command/);

    // The PLC goes away: the status says so; it comes back on the same port: connected again.
    const port = plc.ports.opcua;
    await plc.stop();
    await waitFor(() => seen.some((s) => s.fill === 'red' && s.shape === 'ring'), 20000, 'disconnected status');
    const plc2 = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port, pkiDir: pkiDir('plc') } });
    plcs.push(plc2);
    {
      const n = seen.length;
      await waitFor(() => seen.slice(n).some((s) => s.fill === 'green'), 30000, 'connected again');
      // The new PLC gets nothing from the cloud's image (st is still 1 there): no stale press.
      await plc2.waitScans(20);
      assert.equal(plc2.values().st, 0, 'the cloud\'s old press was written into the new PLC');
      assert.equal(plc2.values().grn, 0);
      // A fresh press on the cloud reaches the new PLC.
      const m = msgs.length;
      cloud.set('st', 0);
      await waitFor(() => msgs.slice(m).some((x) => x.topic === 'plc' && x.payload.st === 0), 10000, 'the release relayed');
      cloud.set('st', 1);
      await waitFor(() => plc2.values().grn === 1, 10000, 'the new PLC started from the cloud');
    }
  }
});

test('no password, no fallback: the server and the bridge refuse with a red status and E_NO_CREDENTIAL', async (t) => {
  const saved = { twin: process.env.S7T_OPCUA_TWIN_PASSWORD, edge: process.env.S7T_OPCUA_EDGE_PASSWORD };
  delete process.env.S7T_OPCUA_TWIN_PASSWORD;
  delete process.env.S7T_OPCUA_EDGE_PASSWORD;
  t.after(() => {
    for (const [k, v] of [['S7T_OPCUA_TWIN_PASSWORD', saved.twin], ['S7T_OPCUA_EDGE_PASSWORD', saved.edge]]) if (v !== undefined) process.env[k] = v;
  });
  const port = await freePort();
  const flow = [
    { id: 'f', type: 'tab', label: 'opcua' },
    {
      id: 'srv', type: 's7twin-opcua-server', z: 'f', name: 'srv', host: '127.0.0.1', port: String(port), pkiDir: pkiDir('cloud-server'),
      x: 100, y: 100, wires: [[]],
    },
    {
      id: 'br', type: 's7twin-opcua-bridge', z: 'f', name: 'br', plcUrl: 'opc.tcp://127.0.0.1:1', cloudUrl: `opc.tcp://127.0.0.1:${port}`,
      pkiDir: pkiDir('edge-client'), x: 100, y: 200, wires: [[]],
    },
  ];
  // One password of the two is not enough for the server either.
  await helper.load([serverNode, bridgeNode], flow, { srv: { twinPassword: 'only-one' } });
  for (const id of ['srv', 'br']) {
    const n = helper.getNode(id);
    const errors = n.error.args.map((a) => String(a[0]));
    assert.ok(errors.some((e) => /^E_NO_CREDENTIAL: no password/.test(e)), `${id}: ${errors.join(' | ')}`);
    const st = n.status.args.map((a) => a[0]).find((s) => s.fill === 'red');
    assert.match(st.text, /no password/, id);
  }
  assert.match(helper.getNode('srv').error.args[0][0], /edge \(S7T_OPCUA_EDGE_PASSWORD\)/);
  // Nothing listens: the refused server did not start.
  const net = require('node:net');
  const refused = await new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(false); });
    s.once('error', () => resolve(true));
  });
  assert.equal(refused, true);
});
