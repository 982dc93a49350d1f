'use strict';
/**
 * plc/signal.js: the virtual PLC's high-frequency signal. Each scan writes the samples whose time
 * has come on the sampling clock, with that clock's times; a scan that comes late writes what it
 * missed, and more than the ring holds are lost and counted. Off by default: the box-sorting
 * plant is unchanged; on, its ring is a data block S7 clients read.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSampler, layoutFor } = require('../../plc/signal');
const ring = require('../../nodes/lib/stream/ring');
const { createSignal } = require('../../nodes/lib/stream/signal');
const { startPlc, s7Connect } = require('../helpers/plc');

const sampler = (o = {}) => {
  const counters = {};
  return { s: createSampler({ rateHz: 1000, ...o }, { scanMs: 10, usedDbs: [1, 2, 3], counters }), counters };
};

test('each scan writes the samples due by its time, stamped with the sampling clock\'s times', () => {
  const { s, counters } = sampler();
  assert.deepEqual({ db: s.layout.db, blockSamples: s.layout.blockSamples, blocks: s.layout.blocks }, { db: 100, blockSamples: 10, blocks: 50 });
  s.start(5000);
  assert.equal(s.advance(5009.9), 9);
  assert.equal(ring.readHeader(s.buf).writeIndex, 9);
  assert.equal(ring.readBlock(s.layout, s.buf.subarray(16, 16 + s.layout.blockBytes), 0), null, 'block 0 not complete');
  assert.equal(s.advance(5025), 16);
  const b0 = ring.readBlock(s.layout, s.buf.subarray(16, 16 + s.layout.blockBytes), 0);
  assert.equal(b0.t, 5000);
  const signal = createSignal();
  assert.deepEqual([...b0.values], Array.from({ length: 10 }, (_, k) => signal.value(k)));
  const b1 = ring.readBlock(s.layout, s.buf.subarray(16 + s.layout.blockBytes, 16 + 2 * s.layout.blockBytes), 1);
  assert.equal(b1.t, 5010, 'its first sample\'s time, not the scan\'s');
  assert.equal(s.advance(5025), 0, 'nothing new in the same millisecond');
  assert.equal(counters.signalSamples, 25);
  assert.equal(counters.signalOverflows, 0);
});

test('a scan more than the ring late loses the oldest samples, counted, and writes whole blocks from there', () => {
  const { s, counters } = sampler({ ringMs: 100 }); // 10 blocks of 10
  s.start(0);
  s.advance(10);
  assert.equal(s.advance(10 + 1000), 1000);
  assert.equal(counters.signalOverflows, 910 - 10, 'samples 10..909: the ring holds 910..1009');
  const w = ring.readHeader(s.buf).writeIndex;
  assert.equal(w, 1010);
  const n = Math.floor(w / 10) - 1; // the last whole block
  const b = ring.readBlock(s.layout, s.buf.subarray(s.layout.blockOffset(n), s.layout.blockOffset(n) + s.layout.blockBytes), n);
  assert.equal(b.t, n * 10);
});

test('the ring\'s layout: one scan\'s samples a block, about 500 ms of them, never more than a 64 KB data block; options checked', () => {
  assert.deepEqual(['blockSamples', 'blocks'].map((k) => layoutFor({ rateHz: 1000 }, 10)[k]), [10, 50]);
  const fast = layoutFor({ rateHz: 1000000 }, 10);
  assert.ok(fast.size <= ring.MAX_BYTES && fast.blocks >= 8, `${fast.blocks} blocks of ${fast.blockSamples}`);
  assert.equal(layoutFor({ rateHz: 1000, blockSamples: 25, blocks: 4 }, 10).blocks, 4);
  assert.throws(() => sampler({ db: 2 }), { code: 'E_SIGNAL' }, 'a data block of the image');
  assert.throws(() => sampler({ rateHz: 0 }), { code: 'E_SIGNAL' });
  assert.throws(() => sampler({ tones: [[0, 1]] }), { code: 'E_SIGNAL' });
});

test('off by default; on, the ring is a data block an S7 client reads as it fills', { timeout: 30000 }, async (t) => {
  const plain = await startPlc({ opcua: false, modbus: false });
  assert.equal(plain.signal, null);
  assert.equal(plain.counters.signalSamples, undefined);
  await plain.stop();
  const plc = await startPlc({ opcua: false, modbus: false, signal: { rateHz: 1000, db: 55 } });
  t.after(() => plc.stop());
  const s7 = await s7Connect(plc.ports.s7);
  t.after(() => s7.close());
  const read = async () => ring.readHeader(Buffer.from((await s7.read(['DB55,BYTE0.16']))['DB55,BYTE0.16']));
  const a = await read();
  assert.deepEqual({ rateHz: a.rateHz, blockSamples: a.blockSamples, blocks: a.blocks }, { rateHz: 1000, blockSamples: 10, blocks: 50 });
  await plc.waitScans(10);
  const b = await read();
  assert.ok(b.writeIndex > a.writeIndex + 50, `${a.writeIndex} → ${b.writeIndex} samples after 10 scans`);
  assert.equal(plc.counters.signalOverflows, 0);
});
