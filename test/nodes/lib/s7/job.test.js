'use strict';
/** nodes/lib/s7/job.js: the one S7 write-job budget of the edge (s7-batch) and the virtual PLC (s7-push). */
const test = require('node:test');
const assert = require('node:assert/strict');
const job = require('../../../../nodes/lib/s7/job');

test('a job holds at most MAX_ITEMS items and one PDU; an item costs 16 bytes plus its even data', () => {
  assert.equal(job.MAX_ITEMS, 20);
  assert.equal(job.itemBytes(4), 20);
  assert.equal(job.itemBytes(1), 18, 'odd data is padded');
  const b = job.createJobBudget({ maxPdu: 100, requestBytes: job.REQUEST_BYTES.snap7 });
  assert.equal(b.bytes, 12);
  assert.equal(b.fits(1, 88), true);
  assert.equal(b.fits(1, 89), false);
  b.add(1, 80);
  assert.deepEqual([b.items, b.bytes], [1, 92]);
  assert.equal(b.fits(0, 8), true);
  assert.equal(b.fits(0, 9), false);
  const few = job.createJobBudget({ maxItems: 2, maxPdu: 1000, requestBytes: job.REQUEST_BYTES.nodes7 });
  few.add(2, 40);
  assert.equal(few.fits(1, 1), false, 'no third item');
  assert.equal(few.fits(0, 4), true, 'a merged neighbour adds bytes, not an item');
});

test('the edge and the PLC read their limits from it', () => {
  assert.equal(require('../../../../plc/s7-push').DEFAULTS.maxItems, job.MAX_ITEMS);
  assert.equal(require('../../../../nodes/lib/s7/connection').DEFAULTS.maxBatchItems, job.MAX_ITEMS);
});
