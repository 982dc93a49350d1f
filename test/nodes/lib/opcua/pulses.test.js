'use strict';
/**
 * The edge bridge (nodes/lib/opcua/bridge.js) with a publish that carries more than one change of
 * the same command variable: DetectSensor going 1 → 0 → 1 while one box leaves the detection unit
 * and the next enters. The PLC has to see the 0 between them, or it sees no second rising edge
 * and the second box is never checked. Real cloud server, real bridge, real virtual PLC.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOpcuaServer } = require('../../../../nodes/lib/opcua/server');
const { createOpcuaBridge } = require('../../../../nodes/lib/opcua/bridge');
const { createSession } = require('../../../../nodes/lib/opcua/session');
const { freePort, waitFor } = require('../../../helpers/nodered');
const { createPlc } = require('../../../../plc');
const { pkiDir, startBridge } = require('../../../helpers/opcua');

const TWIN = { user: 'twin', password: 'twin' };
const EDGE = { user: 'edge', password: 'edge' };

test('bridge: a value that changed twice in one publish reaches the PLC twice, in order, each for a scan', async (t) => {
  const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('plc') } });
  t.after(() => plc.stop());
  // Exception-based reporting (sampling 0) queues every change; a long publishing interval puts
  // several of them into one publish, as a stalled or slow publish does on a loaded machine.
  const srv = createOpcuaServer({ port: await freePort(), pkiDir: pkiDir('cloud-server'), minimumSamplingIntervalMs: 0 });
  await srv.start();
  t.after(() => srv.stop());
  const bridge = createOpcuaBridge({
    plcEndpoint: `opc.tcp://127.0.0.1:${plc.ports.opcua}`, cloudEndpoint: srv.endpointUrl, cloudCredentials: EDGE, pkiDir: pkiDir('client'),
    samplingIntervalMs: 0, publishingIntervalMs: 400, probeSlots: 0, // tags only
  });
  t.after(() => bridge.stop());
  await startBridge(bridge);
  // A 400 ms publishing interval needs a smaller keep-alive count than the 10 ms default's 100
  // (100 x 400 ms would outlast the 20 s session, which node-opcua refuses).
  assert.equal(bridge.sides.cloud.revised.publishingIntervalMs, 400);

  // What the PLC program saw, scan by scan: DetectSensor and DamageSensor.
  const seen = [];
  plc.on('scan', () => {
    const v = plc.values();
    const last = seen[seen.length - 1];
    if (!last || last.sd !== v.sd || last.dmg !== v.dmg) seen.push({ sd: v.sd, dmg: v.dmg });
  });

  const twin = createSession({ endpointUrl: srv.endpointUrl, credentials: TWIN, pkiDir: pkiDir('client'), name: 'twin' });
  t.after(() => twin.close());
  await twin.connect();
  const write = (values) => twin.write(Object.entries(values).map(([k, v]) => ({ nodeId: srv.nodeIdOf(k), dataType: 'Boolean', value: Boolean(v) })));

  srv.set('st', 1);
  await waitFor(() => plc.values().grn === 1, 10000, 'the PLC running');
  // Start right after a publish, so the three writes below fall inside the next 400 ms publishing
  // interval together: wait for the bridge to forward a publish of p1b (a harmless input: a piston
  // at rest is at its back end).
  const published = new Promise((resolve) => {
    bridge.on('forward', function onForward(ev) {
      if (ev.to === 'plc' && 'p1b' in ev.values) { bridge.off('forward', onForward); resolve(); }
    });
  });
  srv.set('p1b', 1);
  await published;

  // An intact box in the detection unit, it leaves, a damaged one enters: all inside one publish.
  await write({ dmg: 0, sd: 1 });
  await write({ sd: 0 });
  await write({ dmg: 1, sd: 1 });

  await waitFor(() => plc.values().p2fw === 1, 10000, 'the damaged box rejected (p2fw)');
  assert.deepEqual(seen.slice(-3), [{ sd: 1, dmg: 0 }, { sd: 0, dmg: 0 }, { sd: 1, dmg: 1 }]);
  assert.ok(bridge.counters.pulses >= 1, JSON.stringify(bridge.counters));
});
