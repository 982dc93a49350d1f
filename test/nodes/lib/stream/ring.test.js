'use strict';
/**
 * nodes/lib/stream/ring.js: the ring buffer's layout in a data block, written as the virtual PLC
 * writes it and read back as the edge reads it: whole blocks only (their number at both ends), a
 * block being written or overwritten never taken for a whole one, the header checked, the 32-bit
 * write index unwrapped.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const ring = require('../../../../nodes/lib/stream/ring');

const layout = ring.ringLayout({ db: 100, rateHz: 1000, blockSamples: 4, blocks: 3 });

/** A ring with samples 0..n-1 written (value 1000 + k, block n's time 10·n ms). */
function written(n) {
  const buf = Buffer.alloc(layout.size);
  const w = ring.ringWriter(layout, buf);
  for (let k = 0; k < n; k++) w.sample(k, 1000 + k, () => 10 * Math.floor(k / 4));
  w.setWriteIndex(n);
  return buf;
}
const blockBytes = (buf, n) => buf.subarray(layout.blockOffset(n), layout.blockOffset(n) + layout.blockBytes);

test('the layout: a 16-byte header, then blocks of number, time, samples and number again', () => {
  assert.equal(layout.blockBytes, 16 + 4 * 4);
  assert.equal(layout.size, 16 + 3 * 32);
  assert.equal(layout.capacity, 12);
  assert.equal(layout.blockMs, 4);
  assert.deepEqual([0, 1, 2, 3, 4].map(layout.blockOffset), [16, 48, 80, 16, 48]);
  const h = ring.readHeader(written(0));
  assert.deepEqual(h, { writeIndex: 0, rateHz: 1000, blockSamples: 4, blocks: 3, format: ring.FORMAT_DINT, version: ring.VERSION });
  assert.doesNotThrow(() => ring.checkHeader(layout, h));
});

test('a whole block reads back with its samples and its first sample\'s time; a block being written does not', () => {
  const buf = written(6); // block 0 whole, block 1 half written
  assert.equal(ring.readHeader(buf).writeIndex, 6);
  const b0 = ring.readBlock(layout, blockBytes(buf, 0), 0);
  assert.deepEqual([...b0.values], [1000, 1001, 1002, 1003]);
  assert.equal(b0.t, 0);
  assert.equal(ring.readBlock(layout, blockBytes(buf, 1), 1), null, 'not complete yet');
  const later = written(8);
  const b1 = ring.readBlock(layout, blockBytes(later, 1), 1);
  assert.deepEqual([...b1.values], [1004, 1005, 1006, 1007]);
  assert.equal(b1.t, 10);
  assert.equal(ring.readBlock(layout, blockBytes(written(0), 0), 0), null, 'an empty slot is no block');
});

test('a block overwritten, or torn (its start read before the PLC overwrote it, its end after), is never taken for whole', () => {
  const old = written(4);
  const overwritten = written(13); // block 3 in block 0's slot, begun
  assert.equal(ring.readBlock(layout, blockBytes(overwritten, 0), 0), null, 'the slot holds block 3 now');
  assert.equal(ring.readBlock(layout, blockBytes(overwritten, 3), 3), null, 'and block 3 is not complete');
  // Its first half read before the overwrite, its second half after.
  const torn = Buffer.concat([blockBytes(old, 0).subarray(0, 20), blockBytes(overwritten, 0).subarray(20)]);
  assert.equal(ring.readBlock(layout, torn, 0), null);
  const done = written(16);
  assert.deepEqual([...ring.readBlock(layout, blockBytes(done, 3), 3).values], [1012, 1013, 1014, 1015]);
});

test('a header that is not the ring expected is refused with E_RING naming what differs', () => {
  const other = ring.ringLayout({ db: 100, rateHz: 2000, blockSamples: 4, blocks: 3 });
  assert.throws(() => ring.checkHeader(other, ring.readHeader(written(0))), (err) => err.code === 'E_RING' && /rateHz 1000 \(expected 2000\)/.test(err.message));
  assert.throws(() => ring.checkHeader(layout, ring.readHeader(Buffer.alloc(16))), { code: 'E_RING' });
});

test('the write index unwraps past 2^32; times survive as LDT to the nanosecond', () => {
  assert.equal(ring.unwrap(10, 15), 15);
  assert.equal(ring.unwrap(2 ** 32 - 2, 3), 2 ** 32 + 3);
  assert.equal(ring.unwrap(3 * 2 ** 32 + 7, 9), 3 * 2 ** 32 + 9);
  const t = 1764316800123.4568;
  assert.ok(Math.abs(ring.msOfLdt(ring.ldtOf(t)) - t) < 1e-5);
});

test('layouts out of range, or larger than a data block, are refused with E_SIGNAL', () => {
  const ok = { db: 100, rateHz: 1000, blockSamples: 10, blocks: 8 };
  for (const bad of [{ db: 0 }, { rateHz: 0.5 }, { blockSamples: 0 }, { blocks: 1 }, { blockSamples: 16380, blocks: 2 }]) {
    assert.throws(() => ring.ringLayout({ ...ok, ...bad }), { code: 'E_SIGNAL' }, JSON.stringify(bad));
  }
  const big = ring.ringLayout({ ...ok, blockSamples: 1000, blocks: 16 });
  assert.ok(big.size <= ring.MAX_BYTES);
});
