'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const ModbusRTU = require('modbus-serial');
const { createModbusServer } = require('../../../../nodes/lib/modbus/server');

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

// ---- Modbus without trust (no authentication in the protocol): edge-only registers and per-connection limits ----------
const codec = require('../../../../nodes/lib/modbus/codec');

/** Raw Modbus TCP frames, to send many requests at once as a flooding client would. */
function frame(tid, pdu) {
  const head = Buffer.alloc(7);
  head.writeUInt16BE(tid, 0);
  head.writeUInt16BE(0, 2);
  head.writeUInt16BE(pdu.length + 1, 4);
  head[6] = 1;
  return Buffer.concat([head, pdu]);
}
const fc3 = (address, qty) => Buffer.from([3, address >> 8, address & 0xff, qty >> 8, qty & 0xff]);
const fc6 = (address, value) => Buffer.from([6, address >> 8, address & 0xff, value >> 8, value & 0xff]);

/** Responses of a raw connection, split into frames: [{tid, pdu}]. */
function rawClient(port) {
  const sock = net.connect(port, '127.0.0.1');
  const frames = [];
  let buf = Buffer.alloc(0);
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 7 && buf.length >= 6 + buf.readUInt16BE(4)) {
      const len = buf.readUInt16BE(4);
      frames.push({ tid: buf.readUInt16BE(0), pdu: buf.subarray(7, 6 + len) });
      buf = buf.subarray(6 + len);
    }
  });
  sock.on('error', () => {});
  const closed = new Promise((r) => sock.once('close', r));
  return { sock, frames, closed, connected: new Promise((r) => sock.once('connect', r)) };
}

test('modbus server: only edgeHosts write the edge-only registers; twins write HR0 and probe requests', async (t) => {
  // 192.0.2.1 (TEST-NET-1) is nobody here: this test's loopback clients are twins.
  const srv = createModbusServer({ port: 0, edgeHosts: '192.0.2.1' });
  const port = await srv.start();
  const twin = await client(port);
  t.after(async () => { twin.close(() => {}); await srv.close(); });
  srv.write(codec.STATE_REGISTER, [0x00c0]); // what the edge last wrote
  const refusals = [];
  srv.on('write-refused', (r) => refusals.push(r));

  await twin.writeRegister(codec.COMMAND_REGISTER, 0x0021);
  await twin.writeRegisters(codec.PROBE_REQUEST_BASE + 6, [0, 7]);
  await assert.rejects(twin.writeRegister(codec.STATE_REGISTER, 0xffff), (e) => e.modbusCode === 2, 'a forged PLC state is refused');
  await assert.rejects(twin.writeRegisters(codec.STATE_BLOCK.address, [1, 31337, 0, 0]), (e) => e.modbusCode === 2);
  await assert.rejects(twin.writeRegisters(codec.COMMAND_REGISTER, [1, 1]), (e) => e.modbusCode === 2, 'a write spilling from HR0 into HR1 is refused whole');
  await assert.rejects(twin.writeRegisters(codec.PROBE_RESPONSE_BASE, [0, 9]), (e) => e.modbusCode === 2, 'a forged probe response is refused');
  assert.deepEqual(srv.read(0, 2), [0x0021, 0x00c0], 'HR0 written, HR1 kept what the edge wrote');
  assert.deepEqual(srv.read(codec.PROBE_RESPONSE_BASE, 2), [0, 0]);
  assert.deepEqual(srv.read(codec.PROBE_REQUEST_BASE + 6, 2), [0, 7]);
  assert.equal(srv.counters.writeRefused, 4);
  assert.equal(refusals.length, 4);
  assert.match(refusals[0].from, /127\.0\.0\.1/);
  assert.deepEqual((await twin.readHoldingRegisters(1, 1)).data, [0x00c0], 'reads stay open, the connection stays');
});

test('modbus server: an edge named by host name (resolved) writes the states; loopback is the default edge', async (t) => {
  const byName = createModbusServer({ port: 0, edgeHosts: 'localhost' });
  const p1 = await byName.start();
  const edge = await client(p1);
  const dflt = createModbusServer({ port: 0 });
  const p2 = await dflt.start();
  const local = await client(p2);
  t.after(async () => { edge.close(() => {}); local.close(() => {}); await byName.close(); await dflt.close(); });
  await edge.writeRegisters(codec.STATE_BLOCK.address, [0x00c0, 3, 1, 4]);
  assert.deepEqual(byName.read(1, 4), [0x00c0, 3, 1, 4]);
  await local.writeRegisters(codec.PROBE_RESPONSE_BASE, [0, 9]);
  assert.deepEqual(dflt.read(codec.PROBE_RESPONSE_BASE, 2), [0, 9]);
  assert.equal(byName.counters.writeRefused + dflt.counters.writeRefused, 0);
  assert.throws(() => createModbusServer({ edgeHosts: 'not an address!' }), { code: 'E_CONFIG' });
});

test('modbus server: a flooding connection is answered "busy" and closed; a well-behaved one keeps its answers', async (t) => {
  const srv = createModbusServer({ port: 0, edgeHosts: '192.0.2.1', ratePerS: 200, burst: 400 });
  const port = await srv.start();
  const good = await client(port);
  t.after(async () => { good.close(() => {}); await srv.close(); });
  const limited = [];
  srv.on('limited', (ev) => limited.push(ev));

  const flood = rawClient(port);
  await flood.connected;
  // Reads pipelined 300 at a time (3.6 KB, under the 4 KiB a connection may leave unread), the
  // next 300 as soon as those are answered: thousands a second, far past 200/s with a burst of 400.
  let sent = 0;
  let closedFlood = false;
  flood.closed.then(() => { closedFlood = true; });
  const batch = () => {
    if (closedFlood || sent >= 5000) return;
    const many = [];
    for (let i = 0; i < 300; i += 1) many.push(frame((sent + i) & 0xffff, fc3(0, 5)));
    sent += 300;
    flood.sock.write(Buffer.concat(many));
  };
  flood.sock.on('data', () => { if (flood.frames.length >= sent) batch(); });
  batch();
  // Meanwhile the well-behaved twin writes and reads back, round trip after round trip.
  let answered = 0;
  const rounds = (async () => {
    for (let i = 1; i <= 50; i += 1) {
      await good.writeRegister(codec.COMMAND_REGISTER, i);
      assert.deepEqual((await good.readHoldingRegisters(codec.COMMAND_REGISTER, 1)).data, [i]);
      answered += 1;
    }
  })();
  await flood.closed;
  await rounds;
  assert.equal(answered, 50, 'every round trip of the well-behaved client was answered');
  const last = flood.frames[flood.frames.length - 1];
  assert.deepEqual([...last.pdu], [0x83, 6], 'the flooder learns why: exception 06, server busy');
  assert.ok(flood.frames.length < 5000, `the flooder was cut off before 5,000 requests were served (${flood.frames.length})`);
  assert.equal(srv.counters.rateLimited, 1);
  assert.equal(limited[0].code, 'E_RATE_LIMIT');
  assert.equal(srv.clients, 1, 'the well-behaved client is still connected');
});

test('modbus server: a connection spending its error budget is closed after its last exception', async (t) => {
  const srv = createModbusServer({ port: 0, edgeHosts: '192.0.2.1', errors: 5, errorWindowMs: 60000 });
  const port = await srv.start();
  t.after(() => srv.close());
  const bad = rawClient(port);
  await bad.connected;
  for (let i = 0; i < 20; i += 1) bad.sock.write(frame(i, fc6(codec.STATE_REGISTER, 0xffff)));
  await bad.closed;
  assert.equal(bad.frames.length, 6, 'five exceptions within the budget, the sixth closes');
  assert.ok(bad.frames.every((f) => f.pdu[0] === 0x86 && f.pdu[1] === 2));
  assert.equal(srv.counters.errorBudget, 1);
  assert.equal(srv.counters.writeRefused, 6);
  assert.deepEqual(srv.read(codec.STATE_REGISTER, 1), [0]);
});
