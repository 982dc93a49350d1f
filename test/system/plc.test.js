'use strict';
/**
 * system/plc.js: the virtual PLC in a process of its own reports the free ports it took, and a
 * PLC process stopped and started again comes back on the same ports, as a real PLC does.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPlcProcess, loopbackPlcOptions } = require('../../system/plc');
const { s7Connect } = require('../../system/s7');

test('a PLC process comes back on the same port after a stop', async (t) => {
  const plc = createPlcProcess({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false });
  t.after(() => plc.stop());
  const first = await plc.start();
  assert.ok(first.ports.s7 > 0, 'a free port was taken');
  assert.equal(await plc.start(), first, 'start() on a running PLC is the same process');
  const port = plc.ports.s7;
  await plc.stop();
  const again = await plc.start();
  assert.notEqual(again.pid, first.pid);
  assert.equal(again.ports.s7, port);
  const s7 = await s7Connect(port);
  try {
    assert.equal(typeof (await s7.read(['DB1,X2.7']))['DB1,X2.7'], 'boolean', 'it answers S7 reads');
  } finally {
    await s7.close();
  }
});

test('loopbackPlcOptions: every interface on loopback and a free port unless switched off', () => {
  assert.deepEqual(loopbackPlcOptions({ opcua: false, modbus: { host: '127.0.0.2', port: 5 } }), {
    scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: { host: '127.0.0.2', port: 0 }, mqtt: false,
  });
});
