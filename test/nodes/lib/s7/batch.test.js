'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { takeBatch } = require('../../../../nodes/lib/s7/batch');

const O = { maxItems: 20, maxPdu: 960 };
const probe = (slot, value, more = {}) => ({ items: [{ addr: `DB2,DWORD${4 * slot}`, value }], independent: true, ...more });
const cmd = (addr, value) => ({ items: [{ addr, value }] });

test('queued writes join the first one in order up to maxItems items', () => {
  const q = [];
  for (let i = 0; i < 25; i++) q.push(cmd(`DB1,X0.${i % 8}`, i));
  const { ops, items } = takeBatch(q, O);
  // X0.0-X0.7 repeat after 8 writes: a write to an address already in the job stays queued, and
  // the dependent writes behind it stay too.
  assert.equal(ops.length, 8);
  assert.equal(items.length, 8);
  assert.deepEqual(items.map((i) => i.value), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(q.length, 17);
  assert.equal(q[0].items[0].value, 8, 'the rest keep their order');
});

test('dependent writes stop at maxItems; the first write always goes, however large', () => {
  const q = [];
  for (let i = 0; i < 30; i++) q.push(cmd(`DB1,DWORD${100 + 4 * i}`, i));
  assert.equal(takeBatch(q, O).items.length, 20);
  assert.equal(q.length, 10);
  const big = { items: Array.from({ length: 30 }, (_, i) => ({ addr: `DB1,X${i}.0`, value: true })) };
  const q2 = [big, cmd('DB1,X99.0', true)];
  const r = takeBatch(q2, O);
  assert.deepEqual(r.ops, [big]);
  assert.equal(q2.length, 1);
});

test('probes to neighbouring slots become one array item, from anywhere in the queue', () => {
  // Slots 10, 50, 11, 12, 51, 9 (and a command in between): three runs.
  const q = [probe(10, 100), probe(50, 500), cmd('DB1,X0.1', true), probe(11, 110), probe(12, 120), probe(51, 510), probe(9, 90)];
  const { ops, items } = takeBatch(q, O);
  assert.equal(ops.length, 7);
  assert.equal(q.length, 0);
  assert.deepEqual(items, [
    { addr: 'DB1,X0.1', value: true },
    { addr: 'DB2,DWORD36.4', value: [90, 100, 110, 120] },
    { addr: 'DB2,DWORD200.2', value: [500, 510] },
  ]);
});

test('a full job still takes probes that extend its runs, and passes over those that do not', () => {
  const q = [];
  for (let s = 0; s < 20; s++) q.push(probe(100 * s, s)); // 20 runs: the job is full
  q.push(probe(7, 7)); // a new run: stays
  q.push(probe(101, 1001)); // extends slot 100's run: joins
  q.push(probe(199, 1990)); // extends slot 200's run from below: joins
  const { ops, items } = takeBatch(q, O);
  assert.equal(ops.length, 22);
  assert.equal(items.length, 20);
  assert.deepEqual(q.map((op) => op.items[0].value), [7]);
  assert.ok(items.some((i) => i.addr === 'DB2,DWORD400.2' && i.value.join() === '1,1001'));
  assert.ok(items.some((i) => i.addr === 'DB2,DWORD796.2' && i.value.join() === '1990,2'));
});

test('writes to the same slot go out in queue order: the second waits for the next job', () => {
  const q = [probe(5, 1), probe(6, 2), probe(5, 3), probe(4, 4)];
  const { items } = takeBatch(q, O);
  assert.deepEqual(items, [{ addr: 'DB2,DWORD16.3', value: [4, 1, 2] }]);
  assert.deepEqual(q.map((op) => op.items[0].value), [3]);
  // Nothing for a slot passes a queued write to it: slot 5 stays behind the dependent write to it.
  const q2 = [cmd('DB1,X0.0', true), cmd('DB1,X0.0', false), cmd('DB2,DWORD20', 7), probe(5, 8), probe(6, 9)];
  const r = takeBatch(q2, O);
  assert.deepEqual(r.items, [{ addr: 'DB1,X0.0', value: true }, { addr: 'DB2,DWORD24', value: 9 }]);
  assert.deepEqual(q2.map((op) => op.items[0].value), [false, 7, 8]);
});

test('a dependent write never joins ahead of one left in the queue', () => {
  const q = [cmd('DB1,X0.0', true), cmd('DB1,X0.0', false), cmd('DB1,X0.1', true), probe(3, 3)];
  const { items } = takeBatch(q, O);
  assert.deepEqual(items, [{ addr: 'DB1,X0.0', value: true }, { addr: 'DB2,DWORD12', value: 3 }]);
  assert.deepEqual(q.map((op) => op.items[0].value), [false, true]);
});

test('a job stays within one PDU', () => {
  // PDU 240 (an S7-1200): 14 bytes of request, 16 per item, 4 per DWORD. One run of n slots
  // costs 16 + 4n: 226 bytes hold a run of 52.
  const q = [];
  for (let s = 0; s < 200; s++) q.push(probe(s, s));
  const { ops, items } = takeBatch(q, { maxItems: 20, maxPdu: 240 });
  assert.equal(items.length, 1);
  assert.equal(ops.length, 52);
  assert.equal(items[0].addr, 'DB2,DWORD0.52');
  assert.equal(q.length, 148);
  // 20 scattered single slots: 14 + 20 × 20 = 414 bytes, more than 240: 11 fit.
  const q2 = [];
  for (let s = 0; s < 20; s++) q2.push(probe(10 * s, s));
  assert.equal(takeBatch(q2, { maxItems: 20, maxPdu: 240 }).items.length, 11);
});

test('a multi-slot probe joins whole or not at all', () => {
  const two = { items: [{ addr: 'DB2,DWORD0', value: 1 }, { addr: 'DB2,DWORD40', value: 2 }], independent: true };
  const q = [];
  for (let s = 0; s < 19; s++) q.push(probe(100 + 10 * s, s));
  q.push(two); // would make 21 items: stays whole
  q.push(probe(101, 7)); // extends slot 100: joins
  const { ops, items } = takeBatch(q, O);
  assert.equal(items.length, 19);
  assert.ok(!ops.includes(two));
  assert.deepEqual(q, [two]);
});

test('only scanLimit queued writes are looked at', () => {
  const q = [probe(0, 0)];
  for (let s = 0; s < 10; s++) q.push(probe(1000 + 2 * s, s)); // no neighbours
  q.push(probe(1, 1));
  const { ops } = takeBatch(q, { ...O, scanLimit: 5 });
  assert.equal(ops.length, 5);
  assert.equal(q.length, 7);
  assert.equal(q[q.length - 1].items[0].value, 1, 'the neighbour beyond the limit stays');
});
