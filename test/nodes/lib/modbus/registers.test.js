'use strict';
/** nodes/lib/modbus/registers.js: requests answered from the bank, whole or not at all, edge-only registers kept. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createRegisterBank } = require('../../../../nodes/lib/modbus/registers');

function setup() {
  const counters = { reads: 0, writes: 0, exceptions: 0, writeRefused: 0 };
  const refused = [];
  const bank = createRegisterBank({ registers: 10, twinWritable: [{ from: 0, to: 0 }, { from: 5, to: 6 }], counters, onRefused: (r) => refused.push(r) });
  return { bank, counters, refused };
}
const fc3 = (a, n) => Buffer.from([3, a >> 8, a & 0xff, n >> 8, n & 0xff]);
const fc6 = (a, v) => Buffer.from([6, a >> 8, a & 0xff, v >> 8, v & 0xff]);
function fc16(a, words) {
  const b = Buffer.alloc(6 + 2 * words.length);
  b[0] = 16; b.writeUInt16BE(a, 1); b.writeUInt16BE(words.length, 3); b[5] = 2 * words.length;
  words.forEach((w, i) => b.writeUInt16BE(w, 6 + 2 * i));
  return b;
}
const EDGE = { edge: true, from: '127.0.0.1' };
const TWIN = { edge: false, from: '10.0.0.9' };

test('reads and writes from the edge go anywhere in the bank, and a write is reported', () => {
  const s = setup();
  const w = s.bank.handle(fc16(1, [7, 8]), EDGE);
  assert.deepEqual(w.write, { address: 1, words: [7, 8] });
  assert.deepEqual([...w.res], [16, 0, 1, 0, 2]);
  const r = s.bank.handle(fc3(0, 3), TWIN);
  assert.deepEqual([...r.res], [3, 6, 0, 0, 0, 7, 0, 8]);
  assert.equal(r.write, undefined);
  assert.deepEqual(s.bank.read(1, 2), [7, 8]);
  assert.deepEqual([s.counters.reads, s.counters.writes], [1, 1]);
});

test('a twin may write its registers only; elsewhere exception 02, nothing written, counted and reported', () => {
  const s = setup();
  assert.ok(s.bank.handle(fc6(0, 1), TWIN).write);
  assert.ok(s.bank.handle(fc16(5, [1, 2]), TWIN).write);
  const out = s.bank.handle(fc16(6, [9, 9]), TWIN); // 6 is open, 7 is not: refused whole
  assert.equal(out.exception, true);
  assert.deepEqual([...out.res], [0x90, 2]);
  assert.deepEqual(s.bank.read(6, 2), [2, 0]);
  assert.deepEqual(s.refused, [{ address: 6, qty: 2, from: '10.0.0.9' }]);
  assert.deepEqual([s.counters.writeRefused, s.counters.exceptions], [1, 1]);
});

test('bad requests get their exception: address 02, function 01, quantity 03', () => {
  const s = setup();
  assert.deepEqual([...s.bank.handle(fc3(9, 2), EDGE).res], [0x83, 2]);
  assert.deepEqual([...s.bank.handle(Buffer.from([1, 0, 0, 0, 1]), EDGE).res], [0x81, 1]);
  assert.deepEqual([...s.bank.handle(fc3(0, 0), EDGE).res], [0x83, 3]);
  assert.equal(s.counters.exceptions, 3);
});

test('local read and write check their arguments', () => {
  const s = setup();
  s.bank.write(9, [65535]);
  assert.deepEqual(s.bank.read(9), [65535]);
  assert.throws(() => s.bank.write(9, [1, 2]), { code: 'E_MODBUS_ADDRESS' });
  assert.throws(() => s.bank.write(0, [70000]), { code: 'E_MODBUS_WORDS' });
  assert.throws(() => s.bank.write(0, []), { code: 'E_MODBUS_ADDRESS' });
  assert.throws(() => s.bank.read(-1), { code: 'E_MODBUS_ADDRESS' });
  assert.throws(() => s.bank.read(0, 11), { code: 'E_MODBUS_ADDRESS' });
});
