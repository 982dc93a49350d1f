'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const ModbusRTU = require('modbus-serial');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { startPlc, waitFor } = require('../helpers/plc');

let plc;
let mb;

const hr = async (addr, n = 1) => (await mb.readHoldingRegisters(addr, n)).data;
/** Expect a Modbus exception with this code. */
const exception = (code) => (err) => err.modbusCode === code;

before(async () => {
  plc = await startPlc({ s7: false, opcua: false });
  mb = new ModbusRTU();
  await mb.connectTCP('127.0.0.1', { port: plc.ports.modbus });
  mb.setID(1);
  mb.setTimeout(5000);
});

after(async () => {
  if (mb) await new Promise((resolve) => mb.close(resolve));
  if (plc) await plc.stop();
});

test('HR0..HR4 read as packed commands, packed states and counters', async () => {
  assert.deepEqual(await hr(0, 5), [0, 0, 0, 0, 0]);
});

test('writing HR0 (packed input bits) starts the plant; HR1 shows the packed outputs', async () => {
  await mb.writeRegister(0, tags.packRegister(0, { st: 1, p1b: 1 }));
  await waitFor(async () => (await hr(1))[0] !== 0, 10000, 'states word set');
  const [cmd, states] = await hr(0, 2);
  assert.deepEqual(tags.unpackRegister(0, cmd), { ...tags.unpackRegister(0, 0), st: 1, p1b: 1 });
  const out = tags.unpackRegister(1, states);
  assert.deepEqual([out.c1, out.c2, out.grn, out.red], [1, 1, 1, 0]);
  assert.equal(plc.values().grn, 1);
});

test('a box fed through HR0 shows in the packed states and the BoxesIn counter register', async () => {
  await mb.writeRegisters(0, [tags.packRegister(0, { p1b: 1, se: 1 })]);
  await waitFor(async () => tags.unpackRegister(1, (await hr(1))[0]).p1fw === 1, 10000, 'Piston1Forward');
  assert.equal((await hr(4))[0], 1);
  await mb.writeRegister(0, tags.packRegister(0, { p1b: 1 }));
});

test('probe requests at 1000+2i (UDInt, high word first) appear at 4000+2i', async () => {
  await mb.writeRegisters(1000 + 2 * 10, [0xdead, 0xbeef]);
  await waitFor(async () => (await hr(4000 + 2 * 10, 2))[0] === 0xdead, 10000, 'response slot 10');
  assert.deepEqual(await hr(4020, 2), [0xdead, 0xbeef]);
  assert.equal(plc.probeResponse(10), 0xdeadbeef);
  // Half a slot written keeps the other half.
  await mb.writeRegister(1000 + 2 * 10 + 1, 0x0001);
  await waitFor(() => plc.probeResponse(10) === 0xdead0001, 10000, 'low word only');
  // The last slot is mapped, one past it is not.
  await mb.writeRegisters(1000 + 2 * 1023, [0, 5]);
  await waitFor(async () => (await hr(4000 + 2 * 1023 + 1))[0] === 5, 10000, 'slot 1023');
});

test('unmapped addresses answer exception 02, reads and writes alike', async () => {
  await assert.rejects(hr(5), exception(2));
  await assert.rejects(hr(3, 3), exception(2), 'a range running past HR4');
  await assert.rejects(hr(999), exception(2));
  await assert.rejects(hr(1000 + 2 * 1024), exception(2));
  await assert.rejects(hr(4000 + 2 * 1024), exception(2));
  await assert.rejects(hr(3999), exception(2));
  await assert.rejects(mb.writeRegister(5, 1), exception(2));
});

test('writes to read-only registers answer exception 02 and change nothing', async () => {
  const before = await hr(0, 5);
  await assert.rejects(mb.writeRegister(1, 0xffff), exception(2));
  await assert.rejects(mb.writeRegister(2, 7), exception(2));
  await assert.rejects(mb.writeRegisters(4000, [1, 2]), exception(2));
  // All or nothing: HR0 is writable but HR1 is not, so neither is written.
  await assert.rejects(mb.writeRegisters(0, [tags.packRegister(0, { sp: 1, p1b: 1 }), 0]), exception(2));
  await plc.waitScans(2);
  assert.deepEqual(await hr(0, 5), before);
  assert.equal(plc.values().grn, 1);
});

test('a command word with undefined bits answers exception 03; unsupported functions 01', async () => {
  await assert.rejects(mb.writeRegister(0, 0x8000), exception(3));
  await assert.rejects(mb.readCoils(0, 1), exception(1));
  await assert.rejects(mb.readInputRegisters(0, 1), exception(1));
  await assert.rejects(hr(1000, 126), exception(3), 'more than 125 registers');
  assert.ok(plc.counters.modbusExceptions >= 4);
});

test('a garbage frame closes only that connection; the server keeps serving', async () => {
  const sock = net.connect(plc.ports.modbus, '127.0.0.1');
  await new Promise((resolve) => sock.once('connect', resolve));
  const closed = new Promise((resolve) => sock.once('close', resolve));
  sock.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  await closed;
  assert.ok(plc.counters.modbusBadFrames >= 1);
  assert.equal((await hr(0))[0] & 1, 0);
  assert.equal(tags.unpackRegister(1, (await hr(1))[0]).grn, 1);
});
