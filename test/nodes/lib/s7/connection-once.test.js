'use strict';
/**
 * lib/s7/connection.js readOnce, against the REAL virtual PLC (its own file: node-snap7 allows one
 * S7Server per process): byte ranges read once between the cyclic reads, on the same connection;
 * a range longer than nodes7 reads as one item (8 KiB) comes back whole, byte for byte; a range the PLC does not
 * have is refused (E_READ) without costing the connection; nothing is read while it is down.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPlc } = require('../../../../plc');
const { createS7Connection, itemParts, NODES7_MAX_ITEM_BYTES } = require('../../../../nodes/lib/s7/connection');
const { demoTable } = require('../../../../nodes/lib/core/io-table');
const ring = require('../../../../nodes/lib/stream/ring');
const { createSignal } = require('../../../../nodes/lib/stream/signal');
const { waitFor } = require('../../../helpers/nodes');

test('ranges read once on the connection that reads the I/O every scan, a 32 KB one whole; a missing one refused alone', { timeout: 60000 }, async (t) => {
  // Blocks of 1,000 samples at 1 kHz: a block fills in a second, so the blocks read are still (the
  // third straddles the first 8 KiB part and the second).
  const plc = await createPlc({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, signal: { rateHz: 1000, blockSamples: 1000 } });
  t.after(() => plc.stop());
  const conn = createS7Connection({ host: '127.0.0.1', port: plc.ports.s7, ranges: demoTable().readRanges() });
  t.after(() => conn.close());
  await assert.rejects(conn.readOnce([{ db: 100, start: 0, length: 16 }]), { code: 'E_PLC_DOWN' }, 'not connected yet');
  conn.start();
  await waitFor(() => conn.connected && conn.counters.reads > 0, 10000, 'the connection and its cyclic read');
  const l = plc.signal;
  assert.ok(l.size > 3 * NODES7_MAX_ITEM_BYTES, `the ring is ${l.size} bytes`);
  let written = 0;
  await waitFor(async () => {
    written = ring.readHeader((await conn.readOnce([{ db: 100, start: 0, length: 16 }])).buffers[0]).writeIndex;
    return written >= 3000;
  }, 20000, 'three blocks written');
  const whole = await conn.readOnce([{ db: 100, start: 0, length: 16 }, { db: 100, start: 16, length: l.size - 16 }]);
  assert.equal(whole.buffers[0].length, 16);
  assert.equal(whole.buffers[1].length, l.size - 16);
  assert.ok(whole.pdus >= Math.ceil((l.size - 16) / 960), `${whole.pdus} requests`);
  const signal = createSignal();
  for (let n = 0; n < 3; n++) {
    const off = l.blockOffset(n) - 16;
    const b = ring.readBlock(l, whole.buffers[1].subarray(off, off + l.blockBytes), n);
    assert.ok(b, `block ${n} whole`);
    assert.deepEqual([...b.values], Array.from({ length: 1000 }, (_, j) => signal.value(n * 1000 + j)), `block ${n}'s samples`);
  }
  const reads = conn.counters.reads;
  await assert.rejects(conn.readOnce([{ db: 100, start: l.size, length: 16 }]), { code: 'E_READ' }, 'past the end of the data block');
  assert.equal(conn.connected, true, 'the connection stays');
  await waitFor(() => conn.counters.reads > reads, 5000, 'the cyclic reads go on');
  assert.equal((await conn.readOnce([{ db: 100, start: 0, length: 4 }])).buffers[0].length, 4);
});

test('a range is read in parts nodes7 reads whole, in address order', () => {
  const parts = itemParts([{ db: 9, start: 100, length: 2 * NODES7_MAX_ITEM_BYTES + 5 }, { area: 'M', start: 0, length: 4 }]);
  assert.deepEqual(parts.map((p) => [p.range, p.area, p.start, p.length]), [
    [0, 'DB', 100, NODES7_MAX_ITEM_BYTES], [0, 'DB', 100 + NODES7_MAX_ITEM_BYTES, NODES7_MAX_ITEM_BYTES],
    [0, 'DB', 100 + 2 * NODES7_MAX_ITEM_BYTES, 5], [1, 'M', 0, 4],
  ]);
});
