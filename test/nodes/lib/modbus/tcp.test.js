'use strict';
/**
 * Modbus TCP framing and requests (nodes/lib/modbus/tcp.js), the one copy behind the virtual PLC's
 * server and the cloud's; and both servers answering a malformed request with exception 03
 * instead of dying (a one-byte FC16 PDU used to throw out of the cloud server's socket handler).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const mbtcp = require('../../../../nodes/lib/modbus/tcp');
const { createModbusServer } = require('../../../../nodes/lib/modbus/server');
const { startPlc } = require('../../../helpers/plc');

const mbap = (tid, pdu, unit = 1) => {
  const head = Buffer.alloc(7);
  head.writeUInt16BE(tid, 0);
  head.writeUInt16BE(pdu.length + 1, 4);
  head[6] = unit;
  return Buffer.concat([head, Buffer.from(pdu)]);
};

test('takeFrame: waits for a whole frame, splits pipelined ones, calls a foreign protocol bad', () => {
  const a = mbap(1, [3, 0, 0, 0, 2]);
  const b = mbap(2, [6, 0, 0, 0, 5]);
  assert.equal(mbtcp.takeFrame(a.subarray(0, 6)), null);
  assert.equal(mbtcp.takeFrame(a.subarray(0, a.length - 1)), null);
  const f = mbtcp.takeFrame(Buffer.concat([a, b]));
  assert.deepEqual([...f.head], [...a.subarray(0, 7)]);
  assert.deepEqual([...f.pdu], [3, 0, 0, 0, 2]);
  assert.deepEqual([...mbtcp.takeFrame(f.rest).pdu], [6, 0, 0, 0, 5]);
  assert.deepEqual(mbtcp.takeFrame(Buffer.from('GET / HTTP/1.1\r\n')), { bad: true });
  const long = Buffer.alloc(7); long.writeUInt16BE(300, 4);
  assert.deepEqual(mbtcp.takeFrame(long), { bad: true });
});

test('parseRequest: FC3, FC6, FC16 and their limits; everything else a coded exception', () => {
  assert.deepEqual(mbtcp.parseRequest(Buffer.from([3, 0, 10, 0, 2])), { fc: 3, address: 10, qty: 2 });
  assert.deepEqual(mbtcp.parseRequest(Buffer.from([6, 0, 1, 0x12, 0x34])), { fc: 6, address: 1, qty: 1, words: [0x1234] });
  assert.deepEqual(mbtcp.parseRequest(Buffer.from([16, 0, 2, 0, 2, 4, 0, 1, 0, 2])), { fc: 16, address: 2, qty: 2, words: [1, 2] });
  const ex = (pdu, exception, code) => assert.throws(() => mbtcp.parseRequest(Buffer.from(pdu)),
    (e) => e.exception === exception && e.code === code, JSON.stringify(pdu));
  ex([3, 0, 0, 0, 126], 3, 'E_MODBUS_QUANTITY');
  ex([3, 0, 0, 0, 0], 3, 'E_MODBUS_QUANTITY');
  ex([3, 0, 0], 3, 'E_MODBUS_FRAME');
  ex([6, 0, 0, 1], 3, 'E_MODBUS_FRAME');
  ex([16], 3, 'E_MODBUS_QUANTITY');
  ex([16, 0, 0], 3, 'E_MODBUS_QUANTITY');
  ex([16, 0, 0, 0, 124, 248], 3, 'E_MODBUS_QUANTITY');
  ex([16, 0, 0, 0, 2, 4, 0, 1], 3, 'E_MODBUS_QUANTITY');
  ex([1, 0, 0, 0, 1], 1, 'E_MODBUS_FUNCTION');
});

test('answer and frame: what FC3, FC6 and FC16 answer, in the request\'s header', () => {
  assert.deepEqual([...mbtcp.answer({ fc: 3, address: 0, qty: 2 }, [1, 0x0203])], [3, 4, 0, 1, 2, 3]);
  assert.deepEqual([...mbtcp.answer({ fc: 6, address: 1, qty: 1, words: [0x1234] })], [6, 0, 1, 0x12, 0x34]);
  assert.deepEqual([...mbtcp.answer({ fc: 16, address: 2, qty: 2, words: [1, 2] })], [16, 0, 2, 0, 2]);
  assert.deepEqual([...mbtcp.exceptionPdu(16, 3)], [0x90, 3]);
  const { head } = mbtcp.takeFrame(mbap(7, [3, 0, 0, 0, 1]));
  assert.deepEqual([...mbtcp.frame(head, Buffer.from([0x83, 2]))], [0, 7, 0, 0, 0, 3, 1, 0x83, 2]);
});

/** Send raw frames on one connection and collect what comes back until `n` answers or close. */
function exchange(port, frames, n) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(Buffer.concat(frames)));
    let got = Buffer.alloc(0);
    const done = () => { s.destroy(); resolve(got); };
    s.on('data', (d) => {
      got = Buffer.concat([got, d]);
      let k = 0; let off = 0;
      while (got.length >= off + 6 && got.length >= off + 6 + got.readUInt16BE(off + 4)) { off += 6 + got.readUInt16BE(off + 4); k += 1; }
      if (k >= n) done();
    });
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

test('both servers answer malformed requests with exception 03 and keep serving the connection', async (t) => {
  const srv = createModbusServer({ port: 0, registers: 10 });
  const cloudPort = await srv.start();
  t.after(() => srv.close());
  const plc = await startPlc({ s7: false, opcua: false });
  t.after(() => plc.stop());
  for (const port of [cloudPort, plc.ports.modbus]) {
    const got = await exchange(port, [mbap(1, [16]), mbap(2, [16, 0, 0]), mbap(3, [3, 0, 0, 0, 1])], 3);
    assert.deepEqual([...got.subarray(0, 9)], [0, 1, 0, 0, 0, 3, 1, 0x90, 3], `port ${port}`);
    assert.deepEqual([...got.subarray(9, 18)], [0, 2, 0, 0, 0, 3, 1, 0x90, 3], `port ${port}`);
    assert.deepEqual([...got.subarray(18, 22)], [0, 3, 0, 0], `port ${port}: the next request is served`);
    assert.equal(got[25], 3, `port ${port}: FC3 answered`);
  }
});
