'use strict';
/**
 * The edge's probe relay (flows/parts/edge-modbus.json, "Probes"): twin transport probes on the
 * cloud Modbus server (HR1000+2i) → edge Node-RED → virtual PLC (copies request → response every
 * scan) → edge → cloud (HR4000+2i) → twin. MB_PROBE_SLOTS = 81 here (two blocks per side: slots
 * 0..60 and 61..80), so slot 80 needs the second block and slot 81 is outside the relay: its
 * request stays on the cloud server and is never answered. Then the PLC restarts empty: the
 * relay writes nothing of the requests still on the cloud into it (they are old, and an old request
 * written late is not one any twin sent now), and
 * fresh probes go on.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const ModbusRTU = require('modbus-serial');
const { startNodeRed, freePort, waitFor, edgeReady, nodeStats } = require('../helpers/nodered');
const { startPlc } = require('../helpers/plc');
const { createTransport } = require('../../twin/transports/modbus');
const codec = require('../../nodes/lib/modbus/codec');

const ROOT = path.join(__dirname, '..', '..');
const part = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', 'parts', name), 'utf8'));
const SLOTS = 81;
const WAIT_MS = 30000; // generous: a loaded 2-core CI machine

/** A UDInt (high word first) read straight from a Modbus server. */
async function udint(client, reg) {
  const r = await client.readHoldingRegisters(reg, 2);
  return ((r.data[0] << 16) | r.data[1]) >>> 0;
}

test('modbus probe relay: slots 1, 2, 80 come back with their exact values, slot 81 (>= MB_PROBE_SLOTS) is not relayed', async (t) => {
  const plc = await startPlc({ s7: false, opcua: false });
  const mbPort = await freePort();
  const cloud = await startNodeRed({
    role: 'cloud', flows: part('cloud-modbus.json'),
    env: { S7T_MODBUS_PORT: String(mbPort), S7T_MODBUS_CLOUD_POLL_MS: '20' },
  });
  const edge = await startNodeRed({
    role: 'edge', flows: part('edge-modbus.json'),
    env: {
      S7T_MODBUS_CLOUD_PORT: String(mbPort), S7T_PLC_MODBUS_PORT: String(plc.ports.modbus),
      S7T_MODBUS_POLL_MS: '20', S7T_MODBUS_RECONNECT_MS: '500', S7T_MODBUS_PROBE_SLOTS: String(SLOTS),
    },
  });
  const tr = createTransport({ url: `modbus://127.0.0.1:${mbPort}`, pollMs: 20 });
  const answers = new Map();
  tr.onProbe((slot, v) => answers.set(slot, v));
  const pc = new ModbusRTU();
  t.after(async () => {
    pc.close(() => {});
    await tr.close();
    await edge.stop();
    await cloud.stop();
    await plc.stop(); // a second stop after the restart below is harmless
  });
  // A request on the cloud before the relay's first read of its block is part of that read's
  // baseline, never written (it may be old): probe once the relay has its baselines.
  await edgeReady(edge, { modbus: true, modbusProbeBlocks: 2 });
  await tr.connect();
  await pc.connectTCP('127.0.0.1', { port: plc.ports.modbus });
  pc.setID(1);
  pc.setTimeout(5000);

  const probe = async (slot, value) => {
    tr.probe(slot, value);
    await waitFor(() => answers.get(slot) === value, WAIT_MS, `probe slot ${slot} = ${value} answered`);
  };

  // Slot 81 first: outside the relay, so it is still pending at the end.
  tr.probe(SLOTS, 0xdeadbeef);
  // Exact values, high word first, including the top bit and the low word alone.
  await Promise.all([probe(1, 0x80000001), probe(2, 0x0000ffff), probe(80, 4294967295)]);
  // Fresh values on the same slots: the relay passes changed blocks again.
  await Promise.all([probe(1, 7), probe(2, 0x12345678), probe(80, 80)]);
  assert.equal(await udint(pc, codec.PROBE_REQUEST_BASE + 2 * 80), 80, 'the PLC holds slot 80\'s request');
  assert.equal(await udint(pc, codec.PROBE_RESPONSE_BASE + 2 * 80), 80, 'and copied it to the response');

  // Slot 81: by now the relay has done many rounds after its request was written, yet the PLC
  // never got it and the twin never got an answer.
  assert.equal(answers.has(SLOTS), false, 'slot 81 answered although outside MB_PROBE_SLOTS');
  assert.equal(await udint(pc, codec.PROBE_REQUEST_BASE + 2 * SLOTS), 0, 'slot 81 reached the PLC');
  assert.equal(tr.stats().pendingProbes, 1);

  // The PLC restarts empty on the same port: the probe clients reconnect, and the requests still
  // on the cloud are not written into the new PLC (they are old: a relay towards a PLC passes
  // only what a twin changes after it last looked). Fresh probes work.
  const port = plc.ports.modbus;
  pc.close(() => {});
  await plc.stop();
  const { createPlc } = require('../../plc');
  const plc2 = await createPlc({ scanMs: 10, s7: false, opcua: false, modbus: { host: '127.0.0.1', port } });
  t.after(() => plc2.stop());
  const relay = async () => (await nodeStats(edge))['probe requests → PLC'];
  // Positive signal first: the probe PLC client reconnected and the relay read both blocks again
  // a few times since (each read of a changed block would have been written by then).
  const pplc = await waitFor(async () => {
    const c = await relay();
    return plc2.counters.modbusConnects >= 2 && c;
  }, WAIT_MS, 'the edge\'s two PLC clients connected to the new PLC');
  await waitFor(async () => (await relay()).updates >= pplc.updates + 6, WAIT_MS, 'three more rounds of the relay');
  await plc2.waitScans(5);
  assert.equal(plc2.counters.probeWrites, 0, 'the requests still on the cloud were written into the new PLC');
  assert.equal(plc2.probeResponse(2), 0);
  await Promise.all([probe(1, 123456789), probe(80, 0xfffffffe)]);
});
