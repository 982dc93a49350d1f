'use strict';
/**
 * The OPC UA path follows the plant's I/O table: the cloud server's address space and roles for
 * the tank (REAL as Float, STRING as String, WORD as UInt16), and the edge bridge relaying a
 * twin's setpoint, valve and recipe to the tank's virtual PLC and the PLC's echoes back, each
 * value of its type; a setpoint beyond its range never reaches the PLC.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadTable } = require('../../../../nodes/lib/core/io-table');
const { createOpcuaServer } = require('../../../../nodes/lib/opcua/server');
const { createOpcuaBridge } = require('../../../../nodes/lib/opcua/bridge');
const { createSession } = require('../../../../nodes/lib/opcua/session');
const ot = require('../../../../nodes/lib/opcua/tags');
const { freePort, waitFor } = require('../../../helpers/nodered');
const { createPlc } = require('../../../../plc');
const { pkiDir, startBridge } = require('../../../helpers/opcua');

const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });
const TWIN = { user: 'twin', password: 'twin' };
const EDGE = { user: 'edge', password: 'edge' };

test('the tank\'s variables on the cloud server: its tags, their OPC UA types, written by their roles', async (t) => {
  const srv = createOpcuaServer({ port: await freePort(), pkiDir: pkiDir('cloud-server'), plant: 'tank1', table: tank, probeSlots: 0 });
  await srv.start();
  t.after(() => srv.stop());
  assert.deepEqual(Object.keys(srv.values()).sort(), tank.tags.map((x) => x.short).sort());
  assert.equal(srv.nodeIdOf('sp'), 'ns=1;s=tank1.Setpoint');
  assert.deepEqual(['lvl', 'sts', 'cnt', 'rca', 'vo'].map((s) => ot.dataTypeOf(tank.get(s))), ['Float', 'UInt16', 'UInt32', 'String', 'Boolean']);
  const twin = createSession({ endpointUrl: srv.endpointUrl, credentials: TWIN, pkiDir: pkiDir('client'), name: 'twin' });
  t.after(() => twin.close());
  await twin.connect();
  const r = await twin.write([
    { nodeId: srv.nodeIdOf('sp'), dataType: 'Float', value: 42.5 },
    { nodeId: srv.nodeIdOf('rcp'), dataType: 'String', value: 'Milk' },
    { nodeId: srv.nodeIdOf('lvl'), dataType: 'Float', value: 1 }, // a state: the edge's
  ]);
  assert.deepEqual(r.map((x) => x.status), ['Good', 'Good', 'BadUserAccessDenied']);
  assert.deepEqual([srv.values().sp, srv.values().rcp], [42.5, 'Milk']);
});

test('the bridge relays the tank both ways, every value of its type; an out-of-range setpoint never reaches the PLC', async (t) => {
  const plc = await createPlc({ table: tank, scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: await freePort(),
    pkiDir: pkiDir('plc') } });
  t.after(() => plc.stop());
  const srv = createOpcuaServer({ port: await freePort(), pkiDir: pkiDir('cloud-server'), plant: 'tank1', table: tank, probeSlots: 0 });
  await srv.start();
  t.after(() => srv.stop());
  const bridge = createOpcuaBridge({
    plcEndpoint: `opc.tcp://127.0.0.1:${plc.ports.opcua}`, cloudEndpoint: srv.endpointUrl, cloudCredentials: EDGE, pkiDir: pkiDir('client'),
    plant: 'tank1', table: tank, probeSlots: 0,
  });
  const errors = [];
  bridge.on('error', (e) => errors.push(e));
  t.after(() => bridge.stop());
  await startBridge(bridge);
  assert.deepEqual(bridge.stats().monitoredItems, { plc: tank.outputs.length, cloud: tank.writable.length });
  const twin = createSession({ endpointUrl: srv.endpointUrl, credentials: TWIN, pkiDir: pkiDir('client'), name: 'twin' });
  t.after(() => twin.close());
  await twin.connect();
  await twin.write([
    { nodeId: srv.nodeIdOf('sp'), dataType: 'Float', value: 12.25 },
    { nodeId: srv.nodeIdOf('vlv'), dataType: 'Boolean', value: true },
    { nodeId: srv.nodeIdOf('rcp'), dataType: 'String', value: 'Beer' },
  ]);
  await waitFor(() => plc.values().sp === 12.25 && plc.values().vlv === 1 && plc.values().rcp === 'Beer', 15000, 'the commands on the PLC');
  await waitFor(() => srv.values().lvl === 12.25 && srv.values().vo === 1 && srv.values().rca === 'Beer', 15000, 'the echoes on the cloud');
  await twin.write([{ nodeId: srv.nodeIdOf('sp'), dataType: 'Float', value: 150 }]);
  await waitFor(() => bridge.counters.refused >= 1, 15000, 'refused by the table');
  assert.equal(plc.values().sp, 12.25, 'never written to the PLC');
  assert.ok(errors.some((e) => e.code === 'E_RANGE'));
});
