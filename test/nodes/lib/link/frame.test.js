'use strict';
/**
 * lib/link/frame.js: one frame read the same at both ends of the link (size, then text, then a
 * valid envelope), and its sequence number checked against its sender's last.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { readFrame, trackFrame } = require('../../../../nodes/lib/link/frame');

const frame = (o) => Buffer.from(JSON.stringify({ v: 1, k: 'state', src: 'edge-1', seq: 1, ts: 1, d: { grn: 1 }, ...o }));

test('readFrame: a valid frame is its envelope; too large, binary and malformed frames are refused with their codes', () => {
  assert.deepEqual(readFrame(frame(), false, 1000).d, { grn: 1 });
  const big = frame({ d: { x: 'y'.repeat(200) } });
  assert.throws(() => readFrame(big, false, 100), (e) => e.code === 'E_TOO_LARGE' && e.message === `frame of ${big.length} bytes exceeds the 100-byte limit`);
  assert.throws(() => readFrame(big, true, 100), (e) => e.code === 'E_TOO_LARGE', 'the size is judged first, binary or not');
  assert.throws(() => readFrame(frame(), true, 1000), (e) => e.code === 'E_SCHEMA' && /binary/.test(e.message));
  assert.throws(() => readFrame(Buffer.from('{oops'), false, 1000), (e) => e.code === 'E_JSON');
  assert.throws(() => readFrame(frame({ k: 'nope' }), false, 1000), (e) => e.code === 'E_SCHEMA');
});

test('trackFrame: a repeated or older seq is a duplicate (counted), a jump is a gap (counted)', () => {
  const tracker = envelope.createTracker();
  const counters = { duplicates: 0, gaps: 0 };
  assert.equal(trackFrame(tracker, 'a', 1, counters), 'accept');
  assert.equal(trackFrame(tracker, 'a', 2, counters), 'accept');
  assert.equal(trackFrame(tracker, 'a', 2, counters), 'duplicate');
  assert.equal(trackFrame(tracker, 'a', 5, counters), 'accept');
  assert.equal(trackFrame(tracker, 'b', 2, counters), 'accept', 'senders are apart');
  assert.deepEqual(counters, { duplicates: 1, gaps: 1 });
});
