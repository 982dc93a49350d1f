'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const ModbusRTU = require('modbus-serial');
const { createModbusServer } = require('../../nodes/lib/modbus-server');

async function client(port) {
  const c = new ModbusRTU();
  await c.connectTCP('127.0.0.1', { port });
  c.setID(1);
  c.setTimeout(5000);
  return c;
}

test('modbus server: FC3/6/16 over a real modbus-serial client, write events, exceptions', async (t) => {
  const srv = createModbusServer({ port: 0, registers: 100 });
  const port = await srv.start();
  const c = await client(port);
  t.after(async () => { c.close(() => {}); await srv.close(); });
  const writes = [];
  srv.on('write', (w) => writes.push(w));

  await c.writeRegister(0, 0x0005);
  await c.writeRegisters(1, [1, 2, 3, 4]);
  assert.deepEqual((await c.readHoldingRegisters(0, 5)).data, [5, 1, 2, 3, 4]);
  assert.deepEqual(writes, [{ address: 0, words: [5] }, { address: 1, words: [1, 2, 3, 4] }]);
  assert.deepEqual(srv.read(0, 5), [5, 1, 2, 3, 4]);
  srv.write(99, [42]);
  assert.deepEqual((await c.readHoldingRegisters(99, 1)).data, [42]);

  await assert.rejects(c.readHoldingRegisters(100, 1), (e) => e.modbusCode === 2);
  await assert.rejects(c.readHoldingRegisters(98, 3), (e) => e.modbusCode === 2);
  await assert.rejects(c.writeRegister(100, 1), (e) => e.modbusCode === 2);
  await assert.rejects(c.writeRegisters(99, [1, 2]), (e) => e.modbusCode === 2);
  assert.deepEqual(srv.read(99, 1), [42], 'a rejected write changes nothing');
  await assert.rejects(c.readCoils(0, 1), (e) => e.modbusCode === 1);
  await assert.rejects(c.readHoldingRegisters(0, 126), (e) => e.modbusCode === 3);
  assert.equal(srv.counters.exceptions, 6);
  assert.throws(() => srv.write(0, [70000]), { code: 'E_MODBUS_WORDS' });
  assert.throws(() => srv.read(100, 1), { code: 'E_MODBUS_ADDRESS' });
  // The connection survives exceptions.
  assert.deepEqual((await c.readHoldingRegisters(0, 1)).data, [5]);
});

test('modbus server: garbage drops only that connection; close ends every client', async () => {
  const srv = createModbusServer({ port: 0, registers: 10 });
  const port = await srv.start();
  const c = await client(port);
  const raw = net.connect(port, '127.0.0.1');
  await new Promise((r) => raw.once('connect', r));
  const rawClosed = new Promise((r) => raw.once('close', r));
  raw.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  await rawClosed;
  assert.equal(srv.counters.badFrames, 1);
  assert.deepEqual((await c.readHoldingRegisters(0, 1)).data, [0]);
  const closed = new Promise((r) => c._port._client.once('close', r));
  await srv.close();
  await closed; // the client learns at once, instead of talking to a server that is gone
  assert.equal(srv.clients, 0);
});

test('modbus server: a port in use is a clear error', async () => {
  const a = createModbusServer({ port: 0 });
  const port = await a.start();
  const b = createModbusServer({ port });
  await assert.rejects(b.start(), { code: 'E_MODBUS_LISTEN' });
  await a.close();
  await b.close();
});

test('modbus server: connections beyond maxClients are closed at once and counted; a freed place is served', async (t) => {
  assert.throws(() => createModbusServer({ maxClients: 0 }), { code: 'E_CONFIG' });
  const srv = createModbusServer({ port: 0, registers: 10, maxClients: 2 });
  const port = await srv.start();
  const refused = [];
  srv.on('refused', (n) => refused.push(n));
  const a = await client(port);
  const b = await client(port);
  t.after(async () => { a.close(() => {}); b.close(() => {}); await srv.close(); });
  // The third one's TCP connect succeeds, then the server closes it.
  const closed = await new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', reject);
    s.on('close', () => resolve(true));
  });
  assert.equal(closed, true);
  assert.deepEqual(refused, [1]);
  assert.equal(srv.counters.refused, 1);
  assert.equal(srv.clients, 2);
  assert.deepEqual((await a.readHoldingRegisters(0, 1)).data, [0], 'the served ones go on');
  await new Promise((r) => { b.close(r); });
  const deadline = Date.now() + 10000;
  while (srv.clients > 1 && Date.now() < deadline) await new Promise((r) => { setTimeout(r, 20); });
  const c = await client(port);
  t.after(() => c.close(() => {}));
  assert.deepEqual((await c.readHoldingRegisters(0, 1)).data, [0]);
});
