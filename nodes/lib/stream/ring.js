'use strict';
/**
 * The ring buffer of a high-frequency signal in a PLC data block, as the virtual PLC writes it
 * (plc/signal.js) and the edge reads it over S7 (lib/stream/reader.js): one home for its layout.
 * A non-optimized DB, big-endian as every S7 value:
 *
 *   DBD0   WriteIndex    UDINT  samples written since the start (mod 2^32); sample k is complete
 *                               once k < WriteIndex
 *   DBD4   RateHz        UDINT  samples a second
 *   DBW8   BlockSamples  UINT   samples per block (B)
 *   DBW10  Blocks        UINT   blocks in the ring (N)
 *   DBW12  Format        UINT   1: DINT samples
 *   DBW14  Version       UINT   1
 *   then N blocks, block n in slot n mod N at 16 + (n mod N)·(16 + 4·B):
 *     +0        No     UDINT   n (mod 2^32), written when the block's first sample is
 *     +4        T      LDT     the PLC's time of its first sample, ns since 1970 (S7-1500 LDT)
 *     +12       V      DINT[B] the samples n·B … n·B+B−1
 *     +12+4·B   NoEnd  UDINT   n once the block is complete; ~n (every bit flipped) while it is
 *                              being written
 *
 * Why a block number at both ends: the reader reads a block in increasing address order and
 * possibly over several S7 requests, while the PLC goes on writing. A block read whole before the
 * PLC started overwriting it has No = NoEnd = n. One the PLC started to overwrite before the
 * reader reached its end has NoEnd ≠ n (the PLC's first write of block n+N sets No = n+N and NoEnd
 * = ~(n+N), in one write), so a torn block is never taken for a whole one. (The seqlock pattern:
 * a sequence number before and after the data.)
 *
 * Sample k's PLC time is T of its block plus (k − n·B)/RateHz: the PLC samples on its own clock at
 * a fixed rate, as an analog module with oversampling delivers a block of samples per cycle.
 *
 * Pure functions over Buffers, no I/O.
 */
const { codedError } = require('../core/errors');

/** Error with a stable `code`: E_SIGNAL (a layout option), E_RING (a ring that is not the expected one). */
const RingError = codedError('RingError');

const HEADER_BYTES = 16;
const FORMAT_DINT = 1;
const VERSION = 1;
const U32 = 4294967296;
/** The most samples a block holds, and blocks a ring: each fits a UINT. */
const MAX_BLOCK_SAMPLES = 16380;
const MAX_BLOCKS = 65535;
/**
 * The largest ring: a data block with standard (non-optimized) access, whose absolute addresses an
 * S7 client reads, holds at most 64 KB on an S7-1500 as on an S7-300 (and snap7's server takes no
 * larger area). At 100 kHz that is about 160 ms of samples.
 */
const MAX_BYTES = 65535;

const isWhole = (x, lo, hi) => Number.isInteger(x) && x >= lo && x <= hi;

/**
 * The layout of one ring.
 * @param {object} o
 * @param {number} o.db the data block's number (1..65535)
 * @param {number} o.rateHz samples a second (1..10,000,000)
 * @param {number} o.blockSamples samples per block (1..16,380: a block fits the data block)
 * @param {number} o.blocks blocks in the ring (2..65,535)
 * @returns {{db: number, rateHz: number, blockSamples: number, blocks: number, blockBytes: number,
 *   size: number, capacity: number, blockOffset(n: number): number, blockMs: number}}
 * @throws {RingError} E_SIGNAL
 */
function ringLayout(o) {
  if (!isWhole(o.db, 1, 65535)) throw new RingError('E_SIGNAL', `db: a data block number 1..65535, got ${o.db}`);
  if (!isWhole(o.rateHz, 1, 1e7)) throw new RingError('E_SIGNAL', `rateHz: whole samples a second, 1..10,000,000, got ${o.rateHz}`);
  if (!isWhole(o.blockSamples, 1, MAX_BLOCK_SAMPLES)) throw new RingError('E_SIGNAL', `blockSamples: 1..${MAX_BLOCK_SAMPLES}, got ${o.blockSamples}`);
  if (!isWhole(o.blocks, 2, MAX_BLOCKS)) throw new RingError('E_SIGNAL', `blocks: 2..${MAX_BLOCKS}, got ${o.blocks}`);
  const blockBytes = 16 + 4 * o.blockSamples;
  const size = HEADER_BYTES + o.blocks * blockBytes;
  if (size > MAX_BYTES) {
    throw new RingError('E_SIGNAL', `the ring would need ${size} bytes, more than a data block holds (${MAX_BYTES}): fewer or smaller blocks`);
  }
  return Object.freeze({
    db: o.db,
    rateHz: o.rateHz,
    blockSamples: o.blockSamples,
    blocks: o.blocks,
    blockBytes,
    size,
    /** Samples the ring holds. */
    capacity: o.blocks * o.blockSamples,
    /** How long one block takes to fill, ms. */
    blockMs: (1000 * o.blockSamples) / o.rateHz,
    /** Byte offset of block n's slot. */
    blockOffset: (n) => HEADER_BYTES + (n % o.blocks) * blockBytes,
  });
}

/** An LDT (ns since 1970, unsigned 64-bit) from a time in ms since the epoch. */
const ldtOf = (ms) => BigInt(Math.round(ms * 1e6));
/** A time in ms since the epoch from an LDT. */
const msOfLdt = (ns) => Number(ns) / 1e6;

/**
 * The writer's side (the virtual PLC): header and blocks into the DB's bytes.
 * @param {ReturnType<typeof ringLayout>} layout
 * @param {Buffer} buf the DB's bytes (layout.size)
 */
function ringWriter(layout, buf) {
  const B = layout.blockSamples;
  buf.writeUInt32BE(0, 0);
  buf.writeUInt32BE(layout.rateHz, 4);
  buf.writeUInt16BE(B, 8);
  buf.writeUInt16BE(layout.blocks, 10);
  buf.writeUInt16BE(FORMAT_DINT, 12);
  buf.writeUInt16BE(VERSION, 14);
  for (let i = 0; i < layout.blocks; i++) {
    // No block yet in any slot: NoEnd ≠ No, so nothing reads as a whole block.
    const off = HEADER_BYTES + i * layout.blockBytes;
    buf.writeUInt32BE(0xffffffff, off);
    buf.writeUInt32BE(0, off + 12 + 4 * B);
  }
  return {
    /**
     * Sample k with its value; the first sample of a block opens it (No, T, NoEnd = ~No), the
     * last closes it (NoEnd = No).
     * @param {number} k
     * @param {number} v a DINT
     * @param {() => number} timeOfBlock the PLC's time of the block's first sample (ms), asked when k opens one
     */
    sample(k, v, timeOfBlock) {
      const n = Math.floor(k / B);
      const j = k - n * B;
      const off = layout.blockOffset(n);
      const no = n % U32;
      if (j === 0) {
        buf.writeUInt32BE(no, off);
        buf.writeBigUInt64BE(ldtOf(timeOfBlock()), off + 4);
        buf.writeUInt32BE((~no) >>> 0, off + 12 + 4 * B);
      }
      buf.writeInt32BE(v, off + 12 + 4 * j);
      if (j === B - 1) buf.writeUInt32BE(no, off + 12 + 4 * B);
    },
    /** Samples written so far (the header's WriteIndex, mod 2^32). */
    setWriteIndex(w) { buf.writeUInt32BE(w % U32, 0); },
  };
}

/**
 * The header as read.
 * @param {Buffer} b the first 16 bytes of the DB
 * @returns {{writeIndex: number, rateHz: number, blockSamples: number, blocks: number, format: number, version: number}}
 */
function readHeader(b) {
  return {
    writeIndex: b.readUInt32BE(0), rateHz: b.readUInt32BE(4), blockSamples: b.readUInt16BE(8), blocks: b.readUInt16BE(10),
    format: b.readUInt16BE(12), version: b.readUInt16BE(14),
  };
}

/**
 * Check that a header read from the PLC is the ring the reader was set up for.
 * @throws {RingError} E_RING naming what differs
 */
function checkHeader(layout, h) {
  const want = { rateHz: layout.rateHz, blockSamples: layout.blockSamples, blocks: layout.blocks, format: FORMAT_DINT, version: VERSION };
  const diff = Object.keys(want).filter((k) => h[k] !== want[k]);
  if (diff.length) {
    throw new RingError('E_RING', `DB${layout.db} is not the ring expected: ${diff.map((k) => `${k} ${h[k]} (expected ${want[k]})`).join(', ')}`);
  }
}

/**
 * One block as read, if it is whole and the block asked for.
 * @param {ReturnType<typeof ringLayout>} layout
 * @param {Buffer} b the block's bytes (layout.blockBytes)
 * @param {number} n the block number expected
 * @returns {{n: number, t: number, values: Int32Array}|null} t: its first sample's PLC time (ms);
 *   null: not (or no longer) block n, or torn
 */
function readBlock(layout, b, n) {
  const B = layout.blockSamples;
  const no = n % U32;
  if (b.readUInt32BE(0) !== no || b.readUInt32BE(12 + 4 * B) !== no) return null;
  const values = new Int32Array(B);
  for (let j = 0; j < B; j++) values[j] = b.readInt32BE(12 + 4 * j);
  return { n, t: msOfLdt(b.readBigUInt64BE(4)), values };
}

/**
 * Extend a 32-bit counter read now to the whole count, given the whole count read before (the
 * PLC's WriteIndex wraps after 2^32 samples: 72 minutes at 1 MHz).
 * @param {number} before the whole count last known
 * @param {number} now32 the counter as read now
 * @returns {number}
 */
function unwrap(before, now32) {
  const step = (now32 - (before % U32) + U32) % U32;
  return before + step;
}

module.exports = {
  ringLayout, ringWriter, readHeader, checkHeader, readBlock, unwrap, ldtOf, msOfLdt, RingError,
  HEADER_BYTES, FORMAT_DINT, VERSION, MAX_BLOCK_SAMPLES, MAX_BLOCKS, MAX_BYTES,
};
