'use strict';
/**
 * The virtual PLC never undoes an S7 client's write (plc/s7.js): a client write that lands right
 * after any of the PLC's reads of DB1 (where a read-merge-replace write-back would undo it) stays,
 * and while the PLC's own S7 connection fails, the scan writes back without it and reconnects.
 * Real snap7 server and clients; the writes are placed deterministically by hooking the server's
 * GetArea, so this does not depend on timing.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const snap7 = require('node-snap7');
const { startPlc, waitFor } = require('../helpers/plc');

const DMG_BIT = 0 * 8 + 6; // DamageSensor, DB1,X0.6: an input the program only reads

/** A blocking node-snap7 client of the PLC (it runs in this process). */
function syncClient(port) {
  const c = new snap7.S7Client();
  c.SetParam(c.RemotePort, port);
  assert.ok(c.ConnectTo('127.0.0.1', 0, 1), 'connected');
  return {
    writeBit(bit, v) { assert.ok(c.WriteArea(c.S7AreaDB, 1, bit, 1, c.S7WLBit, Buffer.from([v])), c.ErrorText(c.LastError())); },
    readByte(n) { return c.DBRead(1, n, 1)[0]; },
    close() { c.Disconnect(); },
  };
}

test('a client write right after any of the PLC\'s reads of DB1 is never undone, with the outputs written every scan', async (t) => {
  const proto = snap7.S7Server.prototype;
  const getArea = proto.GetArea;
  let armed = false;
  let value = 0;
  let ext = null;
  proto.GetArea = function hooked(area, index) {
    const r = getArea.call(this, area, index);
    if (armed && index === 1) { value ^= 1; ext.writeBit(DMG_BIT, value); } // lands after the PLC's copy
    return r;
  };
  t.after(() => { proto.GetArea = getArea; });
  // ScanCount every scan: the PLC writes DB1 every scan, the case a write-back made lossy.
  const plc = await startPlc({ opcua: false, modbus: false, scanCountEvery: 1 });
  t.after(() => plc.stop());
  ext = syncClient(plc.ports.s7);
  t.after(() => ext.close());
  for (let round = 1; round <= 40; round++) {
    armed = true;
    await plc.waitScans(1);
    armed = false;
    await plc.waitScans(2);
    const seen = (ext.readByte(0) >> 6) & 1;
    assert.equal(seen, value, `round ${round}: the client's last write (${value}) is in DB1`);
    assert.equal(plc.values().dmg, value, `round ${round}: the program sees it`);
  }
  assert.ok(plc.counters.s7PushJobs > 40, 'outputs went out through the PLC\'s own client');
  assert.equal(plc.counters.s7PushFallbacks, 0);
});

test('when the PLC\'s own S7 connection fails, the scan writes back without it and it reconnects', async (t) => {
  let failNext = 0;
  let throwNext = false;
  let connects = 0;
  let reconnected = 0;
  const createClient = () => {
    const c = new snap7.S7Client();
    return {
      S7AreaDB: c.S7AreaDB, S7AreaMK: c.S7AreaMK, S7WLBit: c.S7WLBit, S7WLByte: c.S7WLByte, RemotePort: c.RemotePort,
      SetParam: (...a) => c.SetParam(...a),
      ConnectTo(host, rack, slot, cb) {
        connects += 1;
        if (!cb) return c.ConnectTo(host, rack, slot);
        return c.ConnectTo(host, rack, slot, (err) => { if (!err && connects > 1) reconnected += 1; cb(err); });
      },
      Connected: () => c.Connected(),
      Disconnect: () => c.Disconnect(),
      PDULength: () => c.PDULength(),
      ErrorText: (e) => c.ErrorText(e),
      LastError: () => c.LastError(),
      WriteMultiVars(vars, cb) {
        if (failNext > 0) { failNext -= 1; setImmediate(() => cb(new Error('injected: connection lost'))); return; }
        if (throwNext) { throwNext = false; throw new TypeError('injected: refused at once'); }
        c.WriteMultiVars(vars, cb);
      },
    };
  };
  const plc = await startPlc({ opcua: false, modbus: false, s7: { createClient } });
  t.after(() => plc.stop());
  const ext = syncClient(plc.ports.s7);
  t.after(() => ext.close());
  await plc.waitScans(2);
  const clients = plc.counters.s7Clients;
  assert.equal(clients, 1, 'the PLC\'s own connection is not counted as a client');
  // (node-snap7 queues server events process-wide: one of the previous test's PLC may arrive late.)
  const writes = plc.counters.s7Writes;
  failNext = 1;
  plc.setInputs({ st: 1 }); // start: outputs change, the job fails, the write-back goes without the client
  await waitFor(() => plc.counters.s7PushFallbacks >= 1, 10000, 'fallback write-back');
  await waitFor(() => (ext.readByte(2) >> 7) & 1, 10000, 'GreenLamp in DB1 over S7');
  plc.setInputs({ st: 0 });
  await waitFor(() => reconnected === 1, 10000, 'own client reconnected');
  const jobs = plc.counters.s7PushJobs;
  plc.setInputs({ sp: 1 });
  await waitFor(() => ((ext.readByte(2) >> 7) & 1) === 0 && ((ext.readByte(0) >> 1) & 1) === 1, 10000, 'stopped, StopButton in DB1, through the client again');
  assert.ok(plc.counters.s7PushJobs > jobs);
  assert.equal(plc.counters.s7PushErrors, 1);
  plc.setInputs({ sp: 0 });
  await waitFor(() => ((ext.readByte(0) >> 1) & 1) === 0, 10000, 'StopButton released in DB1');
  // A call that throws at once is handled the same way (and does not stop the scan).
  throwNext = true;
  const scanErrors = plc.counters.scanErrors || 0;
  plc.setInputs({ st: 1 });
  await waitFor(() => plc.counters.s7PushFallbacks >= 2, 10000, 'second fallback');
  await waitFor(() => (ext.readByte(2) >> 7) & 1, 10000, 'GreenLamp again');
  await waitFor(() => reconnected === 2, 10000, 'reconnected again');
  assert.equal(plc.counters.s7PushErrors, 2);
  assert.equal(plc.counters.scanErrors || 0, scanErrors);
  plc.setInputs({ st: 0 });
  await plc.waitScans(3);
  assert.equal(plc.counters.s7Clients, clients, 'reconnecting did not count as a client');
  assert.equal(plc.counters.s7Writes, writes, 'the PLC\'s own writes are not counted as clients\' writes');
});
