'use strict';
/** The queue of the virtual PLC's own S7 writes (plc/s7-push.js): pure, no server. */
const test = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { outputMask } = require('../../plc/image');
const { createPushQueue, ownedItems } = require('../../plc/s7-push');

const mask = outputMask();
const make = (o = {}) => createPushQueue({ mask, ioDb: 1, reqDb: 2, ...o });

test('the PLC owns DB1 byte 2 (the output bits) and bytes 4-15 (counters, ScanCount), never the input bytes', () => {
  assert.deepEqual(ownedItems(mask), [{ key: 'o:2', start: 2, bit: -1, len: 1 }, { key: 'o:4', start: 4, bit: -1, len: 12 }]);
  // A byte shared with clients is written bit by bit.
  assert.deepEqual(ownedItems(Buffer.from([0b101, 0xff])), [
    { key: 'o:0.0', start: 0, bit: 0, len: 1 }, { key: 'o:0.2', start: 0, bit: 2, len: 1 }, { key: 'o:1', start: 1, bit: -1, len: 1 },
  ]);
});

test('outputs are queued only where the area differs, and a job carries only owned bytes', () => {
  const q = make();
  const native = Buffer.alloc(16);
  const desired = Buffer.alloc(16);
  desired[0] = 0xff; // input bytes: never the PLC's to write
  q.outputs(desired, native);
  assert.equal(q.queued, 0);
  desired[2] = 0b1000_0001; // c1, grn
  desired.writeInt16BE(3, 4); // ng
  q.outputs(desired, native);
  const job = q.take();
  assert.deepEqual(job.items.map((i) => [i.db, i.start, i.bit, [...i.data]]), [
    [1, 2, -1, [0b1000_0001]], [1, 4, -1, [0, 3, ...Array(10).fill(0)]],
  ]);
  assert.equal(q.take(), null, 'one job in flight at a time');
  // While it flies, the same outputs are not queued again; a change is.
  q.outputs(desired, native);
  assert.equal(q.queued, 0);
  desired[2] = 0;
  q.outputs(desired, native);
  assert.equal(q.queued, 1);
  q.done(true);
  assert.deepEqual(q.take().items.map((i) => [i.start, [...i.data]]), [[2, [0]]]);
});

test('inputs and probes from other interfaces: bits as bit items, neighbouring slots as one item, newest value wins', () => {
  const q = make();
  q.input(tags.get('p3f'), 1);
  q.input(tags.get('p3f'), 0);
  q.input(tags.get('dmg'), 1);
  for (const s of [7, 5, 6, 9]) q.probe(s, 100 + s);
  const job = q.take();
  assert.deepEqual(job.items.map((i) => [i.db, i.start, i.bit, [...i.data]]), [
    [1, 0, 6, [1]], // dmg = DB1,X0.6
    [1, 1, 1, [0]], // p3f = DB1,X1.1, the later value
    [2, 20, -1, [0, 0, 0, 105, 0, 0, 0, 106, 0, 0, 0, 107]], // slots 5-7
    [2, 36, -1, [0, 0, 0, 109]],
  ]);
  assert.equal(job.entries, 6);
});

test('a job stays within 20 items and one PDU; the rest waits for the next job', () => {
  const q = make({ pdu: 480 });
  for (let s = 0; s < 60; s += 2) q.probe(s, s); // 30 scattered slots: 30 items
  const a = q.take();
  assert.equal(a.items.length, 20);
  q.done(true);
  assert.equal(q.take().items.length, 10);
  q.done(true);
  const r = make({ pdu: 480 });
  for (let s = 0; s < 300; s++) r.probe(s, s); // one run of 1,200 bytes: more than a PDU
  const big = r.take();
  const bytes = 12 + big.items.reduce((n, i) => n + 16 + i.data.length, 0);
  assert.ok(bytes <= 480, `request of ${bytes} bytes`);
  let slots = big.items.reduce((n, i) => n + i.data.length / 4, 0);
  r.done(true);
  for (let job = r.take(); job; job = r.take()) { slots += job.items.reduce((n, i) => n + i.data.length / 4, 0); r.done(true); }
  assert.equal(slots, 300, 'every slot written once');
});

test('a failed job goes back to the queue unless a newer value came meanwhile; overlay shows what has not landed', () => {
  const q = make();
  q.input(tags.get('p1f'), 1);
  q.probe(3, 33);
  q.take();
  q.probe(3, 34); // newer, queued while the job flies
  const db1 = Buffer.alloc(16);
  const db2 = Buffer.alloc(4 * 8);
  q.overlay(db1, db2);
  assert.equal(tags.readTag(db1, tags.get('p1f')), 1);
  assert.equal(db2.readUInt32BE(12), 34, 'the queued value over the one in flight');
  q.done(false);
  const job = q.take();
  assert.deepEqual(job.items.map((i) => [i.db, i.start, [...i.data]]), [[1, 0, [1]], [2, 12, [0, 0, 0, 34]]]);
  // drain: everything not written, newest per key, and nothing left.
  q.input(tags.get('sk'), 1);
  const all = q.drain();
  assert.deepEqual(all.map((e) => e.key).sort(), ['i:p1f', 'i:sk', 'p:3']);
  assert.equal(q.queued, 0);
  assert.equal(q.busy, false);
});
