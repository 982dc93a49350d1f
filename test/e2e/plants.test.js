'use strict';
/**
 * Two plants with different I/O tables in one cloud: the demo box-sorting plant and the tank
 * (REAL level and setpoint, BOOL valve, STRING recipe, WORD status, UDINT counter, in two data
 * blocks and the M area), each with its own virtual PLC and edge Node-RED, one cloud Node-RED
 * serving both. Over every path a command to a writable tag lands on the tank's PLC with its type,
 * and the state change (the PLC's echo) comes back; the demo plant runs beside it; a command the
 * tank's table refuses never reaches its PLC.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSystem } = require('../../system/single');
const { plantTabs } = require('../../system/flows');
const { s7Connect } = require('../../system/s7');
const { freePorts } = require('../../plc/net');
const { loadTable } = require('../../nodes/lib/core/io-table');
const { waitFor, edgeReady } = require('../helpers/nodered');

const TANK_FILE = path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json');
const tank = loadTable({ file: TANK_FILE });
const TANK = { plant: 'tank1', edgeToken: 'e2e-tank-edge-token', twinToken: 'e2e-tank-twin-token' };
const PATHS = ['ws', 'mqtt', 'opcua', 'modbus', 'http'];

/** A twin of the tank over `protocol` with every value it sees recorded. */
async function tankTwin(t, protocol, opts) {
  const { createTransport } = require(`../../twin/transports/${protocol}`);
  const tr = createTransport({ ...opts, table: tank, backoff: { initialMs: 100, maxMs: 1000 } });
  const seen = {};
  tr.onValues((d) => Object.assign(seen, d));
  await tr.connect();
  t.after(() => tr.close());
  return { tr, seen };
}

test('the tank beside the demo plant in one cloud: every path carries the tank\'s types both ways', { timeout: 600000 }, async (t) => {
  const tankPorts = await freePorts(['opcua', 'modbus']);
  const sys = await startSystem({
    protocols: PATHS,
    cloudEnv: { S7T_TOKENS: `${TANK.edgeToken}:edge:${TANK.plant},${TANK.twinToken}:twin:${TANK.plant}` },
    extraFlows: {
      cloud: [
        ...plantTabs(['cloud-opcua', 'cloud-modbus'], {
          suffix: 'tank', plant: TANK.plant, table: tank, env: { OPC_PORT: tankPorts.opcua, MB_PORT: tankPorts.modbus },
        }),
        // The tank's REST endpoint, on the cloud's one link (the demo plant's is /s7twin/rest).
        {
          id: 'rest.tank', type: 's7twin-rest', z: 'opc.cloud.tab.tank', name: 'tank REST', server: 'ws.cloud.twins', edge: 'ws.cloud.edge',
          path: '/s7twin/rest-tank', plant: TANK.plant, x: 200, y: 600, wires: [[]],
        },
      ],
    },
  });
  t.after(() => sys.stop());
  const plant = await sys.addPlant({ plant: TANK.plant, table: tank, tableFile: TANK_FILE, edgeToken: TANK.edgeToken, ports: tankPorts });
  // A bridge towards the PLC writes only what changed after it started: wait for its baselines.
  await edgeReady(plant.edge, { opcua: true, modbus: true });
  const s7 = await s7Connect(plant.plcPorts.s7);
  t.after(() => s7.close());
  /** The tank PLC's setpoint, valve and recipe as any S7 client reads them. */
  const plcInputs = async () => {
    const v = await s7.read(['DB11,REAL0', 'DB11,X4.0', 'DB11,S6.16']);
    return { sp: v['DB11,REAL0'], vlv: v['DB11,X4.0'] ? 1 : 0, rcp: v['DB11,S6.16'].trimEnd() };
  };
  const e = sys.endpoints;
  const opts = {
    ws: { ...e.ws, token: TANK.twinToken, plant: TANK.plant },
    mqtt: { ...e.mqtt, plant: TANK.plant },
    opcua: { ...e.opcua, url: `opc.tcp://127.0.0.1:${tankPorts.opcua}`, plant: TANK.plant },
    modbus: { ...e.modbus, url: `modbus://127.0.0.1:${tankPorts.modbus}` },
    http: { ...e.http, url: e.http.url.replace('/s7twin/rest', '/s7twin/rest-tank'), token: TANK.twinToken },
  };

  let k = 0;
  for (const protocol of PATHS) {
    k += 1;
    const sp = 10 + k + 0.5; // a value of its own per path, a REAL's exact decimal
    const rcp = `Recipe ${protocol}`;
    const twin = await tankTwin(t, protocol, opts[protocol]);
    // The valve closed at the PLC first: each path's own cloud image starts closed, so opening it
    // is a change on every path, and its arrival is this path's doing.
    await s7.write({ 'DB11,X4.0': false });
    await waitFor(async () => {
      twin.tr.send({ sp, vlv: 1, rcp });
      const v = await plcInputs();
      return v.sp === sp && v.vlv === 1 && v.rcp === rcp;
    }, 60000, `${protocol}: the command on the tank's PLC`);
    await waitFor(() => twin.seen.lvl === sp && twin.seen.vo === 1 && twin.seen.rca === rcp, 60000, `${protocol}: the echoes back at the twin`);
    assert.equal(typeof twin.seen.cnt, 'number', `${protocol}: the UDINT counter`);
    assert.equal(typeof twin.seen.sts, 'number', `${protocol}: the WORD status`);
  }

  // A setpoint beyond the tank's range is refused before any write, with the table's code; the
  // PLC keeps the last one. A tag of the demo plant is no tag of the tank's.
  const before = await plcInputs();
  const ws = await tankTwin(t, 'ws', opts.ws);
  const answers = new Map();
  ws.tr.onAnswer((a) => answers.set(a.seq, a));
  const over = ws.tr.send({ sp: 150 });
  const foreign = ws.tr.send({ st: 1 });
  await waitFor(() => answers.has(over) && answers.has(foreign), 20000, 'the refusals');
  assert.deepEqual([answers.get(over).code, answers.get(foreign).code], ['E_RANGE', 'E_UNKNOWN_TAG']);
  const res = await fetch(`${opts.http.url}/cmd`, {
    method: 'POST', headers: { Authorization: `Bearer ${TANK.twinToken}` },
    body: JSON.stringify({ v: 1, k: 'cmd', src: 'e2e-rest', seq: 1, ts: Date.now(), d: { rcp: 'x'.repeat(17) } }),
  });
  assert.deepEqual([res.status, (await res.json()).e.code], [400, 'E_RANGE'], 'a recipe longer than its STRING[16]');
  assert.equal((await plcInputs()).sp, before.sp, 'nothing refused reached the PLC');

  // The demo plant runs beside it, on its own table.
  const { createTransport } = require('../../twin/transports/ws');
  const demo = createTransport({ ...e.ws, backoff: { initialMs: 100, maxMs: 1000 } });
  const demoSeen = {};
  demo.onValues((d) => Object.assign(demoSeen, d));
  await demo.connect();
  t.after(() => demo.close());
  await waitFor(() => { demo.send({ st: 1, sp: 0 }); return demoSeen.grn === 1; }, 60000, 'the demo plant running');
  demo.send({ st: 0, sp: 1 });
  await waitFor(() => demoSeen.grn === 0, 60000, 'the demo plant stopped');
  assert.equal(demoSeen.lvl, undefined, 'the demo plant\'s twin sees none of the tank\'s tags');
});
