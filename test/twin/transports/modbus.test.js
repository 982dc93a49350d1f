'use strict';
/**
 * twin/transports/modbus.js against a real Modbus TCP server (nodes/lib/modbus/server.js):
 * HR0 writes of the whole input image, polled HR1..4 as snap then state, probes, bad tags,
 * reconnect after the server restarts (image rewritten), close clears everything.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createModbusServer } = require('../../../nodes/lib/modbus/server');
const { MODBUS_REGISTERS } = require('../../../nodes/lib/core/io-table').demoTable();
const { createTransport } = require('../../../twin/transports/modbus');
const { waitFor } = require('../../helpers/nodered');
const tags = require('../../../nodes/lib/core/io-table').demoTable();

test('modbus transport: writes, polls, probes, reconnects, closes', async (t) => {
  let srv = createModbusServer({ port: 0, registers: MODBUS_REGISTERS });
  const port = await srv.start();
  t.after(() => srv.close());
  const tr = createTransport({ url: `modbus://127.0.0.1:${port}`, pollMs: 5, backoff: { initialMs: 50, maxMs: 200 } });
  t.after(() => tr.close());
  const seen = [];
  tr.onValues((v, kind) => seen.push([kind, v]));
  srv.write(1, [tags.packRegister(1, { grn: 1 }), 3, 0, 9]);
  await tr.connect();
  await waitFor(() => seen.length >= 1, 10000, 'first poll');
  assert.equal(seen[0][0], 'snap');
  assert.equal(seen[0][1].grn, 1);
  assert.equal(seen[0][1].ng, 3);
  assert.equal(seen[0][1].nb, 9);

  tr.send({ st: 1 });
  tr.send({ se: true });
  await waitFor(() => srv.read(0)[0] === tags.packRegister(0, { st: 1, se: 1 }), 10000, 'HR0 with the whole image');
  assert.throws(() => tr.send({ c1: 1 }), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => tr.send({ st: 2 }), { code: 'E_TYPE' });

  srv.write(1, [tags.packRegister(1, { grn: 1, c1: 1 })]);
  await waitFor(() => seen.some(([k, v]) => k === 'state' && v.c1 === 1 && !('grn' in v)), 10000, 'only the change');

  // Probes: the test plays the PLC, copying the request slot to the response slot.
  const answers = [];
  tr.onProbe((slot, v) => answers.push([slot, v]));
  tr.probe(3, 0xdeadbeef);
  await waitFor(() => srv.read(1006, 2).join() === [0xdead, 0xbeef].join(), 10000, 'probe request written');
  srv.write(4006, srv.read(1006, 2));
  await waitFor(() => answers.length === 1, 10000, 'probe answered');
  assert.deepEqual(answers[0], [3, 0xdeadbeef]);

  // The server restarts empty on the same port: the transport reconnects and rewrites HR0.
  await srv.close();
  srv = createModbusServer({ port, registers: MODBUS_REGISTERS });
  await srv.start();
  await waitFor(() => srv.read(0)[0] === tags.packRegister(0, { st: 1, se: 1 }), 20000, 'image rewritten after reconnect');
  await waitFor(() => seen.at(-1)[0] === 'snap', 10000, 'a snap after the reconnect');
  const st = tr.stats();
  assert.ok(st.reconnects >= 1);
  assert.ok(st.bytesOut > 0 && st.bytesIn > 0);
  assert.equal(st.connected, true);

  await tr.close();
  assert.equal(tr.stats().connected, false);
  await assert.rejects(tr.connect(), { code: 'E_CLOSED' });
});

test('modbus transport: bad url and an unreachable server are clear errors', async () => {
  assert.throws(() => createTransport({ url: 'http://x' }), { code: 'E_TRANSPORT_CONFIG' });
  assert.throws(() => createTransport({ url: 'modbus://127.0.0.1:1', pollMs: 0 }), { code: 'E_TRANSPORT_CONFIG' });
  const srv = createModbusServer({ port: 0 });
  const port = await srv.start();
  await srv.close(); // nothing listens there now
  const tr = createTransport({ url: `modbus://127.0.0.1:${port}`, connectTimeoutMs: 500, backoff: { initialMs: 50, maxMs: 100 } });
  await assert.rejects(tr.connect(), { code: 'E_CONNECT_TIMEOUT' });
  await tr.close();
});
