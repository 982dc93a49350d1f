'use strict';
/**
 * nodes/lib/stream/reader.js: the edge's reader of a signal's ring. On the virtual PLC over the
 * edge's own S7 connection: every sample handed on once, in order, with the value the signal
 * gives it and its PLC time. On a ring the test writes itself (so it can fall behind on purpose):
 * blocks overwritten before they were read are counted lost and skipped, the reader catches up
 * and goes on in order, and a PLC that restarted starts the stream again.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPlc, waitFor } = require('../../../helpers/plc');
const { createS7Connection } = require('../../../../nodes/lib/s7/connection');
const { demoTable } = require('../../../../nodes/lib/core/io-table');
const { createRingReader, blockRanges } = require('../../../../nodes/lib/stream/reader');
const { createSignal } = require('../../../../nodes/lib/stream/signal');
const { ringLayout, ringWriter } = require('../../../../nodes/lib/stream/ring');
const clock = require('../../../../nodes/lib/core/clock');

/** Runs handed on, checked to follow each other. */
function collector() {
  const runs = [];
  return {
    runs,
    onSamples: (r) => runs.push(r),
    samples: () => runs.reduce((s, r) => s + r.values.length, 0),
    inOrder() {
      for (let i = 1; i < runs.length; i++) if (runs[i].i !== runs[i - 1].i + runs[i - 1].values.length) return false;
      return true;
    },
  };
}

test('on the virtual PLC over S7: every sample once, in order, its value the signal\'s, its time the PLC\'s', { timeout: 60000 }, async (t) => {
  const plc = await startPlc({ opcua: false, modbus: false, signal: { rateHz: 2000 } });
  t.after(() => plc.stop());
  const layout = ringLayout(plc.signal);
  const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, ranges: demoTable().readRanges() });
  t.after(() => conn.close());
  const got = collector();
  const errors = [];
  const reader = createRingReader({ layout, read: (r) => conn.readOnce(r), onSamples: got.onSamples, onError: (e) => errors.push(e) });
  t.after(() => reader.stop());
  conn.on('connect', () => reader.start());
  conn.start();
  await waitFor(() => got.samples() >= 3000, 30000, '3,000 samples');
  reader.stop();
  assert.deepEqual(errors, []);
  assert.ok(got.inOrder(), 'each run starts where the last ended');
  assert.equal(reader.counters.lost + reader.counters.torn, 0);
  const signal = createSignal();
  for (const r of got.runs) {
    assert.equal(r.hz, 2000);
    assert.equal(r.i % layout.blockSamples, 0, 'runs start at a block');
    for (let j = 0; j < r.values.length; j++) assert.equal(r.values[j], signal.value(r.i + j));
  }
  // The PLC's times: sample i at start + i/rate, in the past when it was read, by less than a second.
  const last = got.runs[got.runs.length - 1];
  const t0 = got.runs[0].t - (got.runs[0].i * 1000) / 2000;
  assert.ok(Math.abs(last.t - (t0 + (last.i * 1000) / 2000)) < 0.01, 'one sampling clock');
  assert.ok(last.t < clock.now() && last.t > clock.now() - 1000);
  assert.ok(conn.counters.onceReads >= reader.counters.polls - 1 && conn.counters.reads > 0, 'ring reads and the cyclic I/O reads on one connection');
});

/** A ring the test writes, read through a function that slices it (ranges as the S7 connection takes them). */
function memoryRing(o) {
  const layout = ringLayout({ db: 100, rateHz: 1000, blockSamples: 10, blocks: 4, ...o });
  const buf = Buffer.alloc(layout.size);
  const w = ringWriter(layout, buf);
  let k = 0;
  return {
    layout,
    write(n) { for (const end = k + n; k < end; k++) w.sample(k, k, () => k); w.setWriteIndex(k); },
    restart() { buf.fill(0); const fresh = ringWriter(layout, buf); Object.assign(w, fresh); k = 0; },
    read: async (ranges) => ({ buffers: ranges.map((r) => Buffer.from(buf.subarray(r.start, r.start + r.length))), pdus: 1 }),
  };
}

test('a reader more than the ring behind counts the overwritten blocks lost, skips them and goes on in order', async (t) => {
  const m = memoryRing();
  m.write(25); // blocks 0, 1 whole
  const got = collector();
  const reader = createRingReader({ layout: m.layout, read: m.read, onSamples: got.onSamples, pollMs: 5 });
  t.after(() => reader.stop());
  reader.start();
  await waitFor(() => reader.nextIndex !== null, 2000, 'the first header');
  assert.equal(reader.nextIndex, 20, 'it starts at the block being written');
  m.write(15); // block 2 and 3 whole
  await waitFor(() => got.samples() === 20, 2000, 'blocks 2 and 3');
  reader.stop();
  m.write(100); // 10 more blocks while it does not read: the ring holds 4
  reader.start();
  await waitFor(() => got.samples() >= 40, 2000, 'the blocks still in the ring');
  assert.ok(got.runs.every((r) => r.i % 10 === 0));
  const after = got.runs.filter((r) => r.i >= 40);
  assert.equal(after[0].i, 110, 'the first block not being overwritten');
  assert.equal(reader.counters.lost, 70, 'blocks 4..10 lost');
  for (const r of got.runs) for (let j = 0; j < r.values.length; j++) assert.equal(r.values[j], r.i + j);
  assert.equal(got.samples(), 20 + 30, 'blocks 11, 12 and 13');
});

test('a PLC whose write index went back (it restarted) starts the stream again', async (t) => {
  const m = memoryRing();
  m.write(15);
  const got = collector();
  const reader = createRingReader({ layout: m.layout, read: m.read, onSamples: got.onSamples, pollMs: 5 });
  t.after(() => reader.stop());
  reader.start();
  await waitFor(() => reader.nextIndex === 10, 2000);
  m.write(20);
  await waitFor(() => got.samples() === 20, 2000);
  m.restart();
  m.write(12);
  await waitFor(() => reader.counters.restarts === 1, 2000, 'the restart seen');
  m.write(10);
  await waitFor(() => got.runs.some((r) => r.i === 10), 2000, 'block 1 of the new start');
  assert.equal(reader.counters.lost, 0);
});

test('a ring that is not the one expected is reported (E_RING) and polled again', async (t) => {
  const m = memoryRing();
  const errors = [];
  const other = ringLayout({ db: 100, rateHz: 500, blockSamples: 10, blocks: 4 });
  const reader = createRingReader({ layout: other, read: m.read, onSamples: () => {}, onError: (e) => errors.push(e.code), retryMs: 5 });
  t.after(() => reader.stop());
  reader.start();
  await waitFor(() => errors.length >= 2, 2000);
  assert.ok(errors.every((c) => c === 'E_RING'));
});

test('block ranges: one per run of slots, two where the ring wraps', () => {
  const l = ringLayout({ db: 7, rateHz: 1000, blockSamples: 10, blocks: 4 });
  assert.deepEqual(blockRanges(l, 1, 3), [{ db: 7, start: l.blockOffset(1), length: 2 * l.blockBytes, first: 1, count: 2 }]);
  assert.deepEqual(blockRanges(l, 3, 6).map((r) => [r.first, r.count, r.start]), [[3, 1, l.blockOffset(3)], [4, 2, l.blockOffset(0)]]);
  assert.deepEqual(blockRanges(l, 5, 5), []);
});
