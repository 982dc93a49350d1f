'use strict';
/**
 * The study's stock replicas of the MQTT, OPC UA and Modbus paths (bench/flows/stock-*, the
 * examples/s7twin-stock-*.json) end to end, as the benchmark runs them: the virtual PLC, a cloud
 * and an edge Node-RED deployed with the replicas' flows (bench/lib/system.js), and the bundle's
 * twin transports pointed at them. Each replica carries a probe through the PLC and back, and a
 * start command whose GreenLamp comes back. Then the example files together in one runtime, as a
 * user imports them: every node type is known and the flows start.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSystem, createTransport, firstProbeSlot } = require('../../bench/lib/system');
const { waitPathReady } = require('../../bench/lib/load');
const { startNodeRed, freePort, waitFor, ROOT } = require('../helpers/nodered');

const REPLICAS = ['stock-mqtt', 'stock-opcua', 'stock-modbus'];

test('each stock replica carries a probe and a start command through the virtual PLC and back', { timeout: 240000 }, async (t) => {
  const sys = await startSystem({ profileName: 'local', links: null, protocols: REPLICAS });
  t.after(() => sys.stop());
  for (const p of REPLICAS) {
    await t.test(p, async () => {
      const mk = (k) => createTransport(p, sys.endpoints, { id: `e${k}x${Math.random().toString(36).slice(2, 6)}` });
      // A probe: a fresh UDInt written on the cloud side comes back from the PLC's response slot.
      await waitPathReady(mk, 60000, firstProbeSlot(p));

      // A command: the start button pressed on the twin side lights the GreenLamp, and its state
      // comes back the same way (held until seen: the stock OPC UA server samples every 500 ms).
      const tr = mk(1);
      const seen = {};
      tr.onValues((v) => Object.assign(seen, v));
      await tr.connect();
      try {
        tr.send({ sp: 0, st: 1 });
        await waitFor(() => seen.grn === 1, 30000, `${p}: GreenLamp after start`);
        tr.send({ st: 0, sp: 1 });
        await waitFor(() => seen.grn === 0, 30000, `${p}: GreenLamp off after stop`);
        tr.send({ sp: 0 });
        assert.equal(seen.grn, 0);
      } finally {
        await tr.close();
      }
    });
  }
});

test('the stock replica examples import together into one Node-RED with no unknown type', { timeout: 120000 }, async (t) => {
  const fs = require('node:fs');
  const flows = ['s7twin-stock.json', 's7twin-stock-mqtt.json', 's7twin-stock-opcua.json', 's7twin-stock-modbus.json']
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')));
  const [mqtt, opcua, modbus] = [await freePort(), await freePort(), await freePort()];
  // startNodeRed fails on "Waiting for missing types" or "Failed to start"; nothing else is needed
  // to run (no PLC: the edge tabs retry their connections meanwhile).
  const red = await startNodeRed({
    role: 'cloud',
    flows,
    env: {
      S7T_CLOUD_HOST: '127.0.0.1', S7T_PLC_HOST: '127.0.0.1', S7T_PLC_PORT: '1', S7T_PLC_MODBUS_PORT: '1', S7T_STOCK_CYCLE_MS: '50',
      S7T_STOCK_MQTT_PORT: String(mqtt), S7T_STOCK_OPCUA_PORT: String(opcua), S7T_STOCK_MODBUS_PORT: String(modbus),
      S7T_STOCK_OPCUA_URL: `opc.tcp://127.0.0.1:${opcua}`, S7T_PLC_OPCUA_URL: 'opc.tcp://127.0.0.1:1',
      S7T_STOCK_EDGE_URL: 'ws://127.0.0.1:1/stock/edge', S7T_STOCK_PLC_URL: 'ws://127.0.0.1:1/stock/plctounity',
    },
  });
  t.after(() => red.stop());
  // The cloud tabs' servers listen: the broker, the Modbus server and the OPC UA server.
  await waitFor(() => /Binding aedes mqtt server on port/.test(red.logs()), 30000, 'the stock broker');
  const net = require('node:net');
  const listening = (port) => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
  await waitFor(() => listening(modbus), 30000, 'the stock Modbus server');
  await waitFor(() => listening(opcua), 60000, 'the stock OPC UA server');
  assert.doesNotMatch(red.logs(), /Waiting for missing types|Failed to start/);
});
