'use strict';
/**
 * lib/link/uplink.js: what the edge sends across the link's drops: states coalesce while down,
 * answers drop; after a reconnect the pending state goes under the first snapshot, or alone.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createUplink } = require('../../../../nodes/lib/link/uplink');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const counters = () => ({ framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0, queueDepth: 0 });
const make = (c, snapWaitMs = 60000) => createUplink({ maxFrames: 10, maxTags: 100, highWaterBytes: 100, drainPollMs: 5, snapWaitMs, counters: c });
const env = (k, seq, d, more = {}) => ({ v: 1, k, src: 'edge-s7', seq, ts: 1, d, ...more });

test('while down: states coalesce into one pending state, other frames are dropped and counted', (t) => {
  const c = counters();
  const up = make(c);
  t.after(() => up.close());
  assert.equal(up.send(env('state', 1, { grn: 1 })), 'queued');
  assert.equal(up.send(env('state', 2, { red: 1 })), 'queued');
  assert.equal(up.send(env('ack', 3, undefined, { ref: { src: 'tw', seq: 1 } })), 'dropped');
  assert.deepEqual([c.coalesced, c.dropped, c.queueDepth], [1, 1, 1]);
});

test('after a reconnect the pending state waits for the snapshot and goes under it, in its frame', (t) => {
  const c = counters();
  const up = make(c);
  t.after(() => up.close());
  up.send(env('state', 1, { grn: 1, red: 1 }));
  const conn = fakeConnection();
  up.attach(conn);
  assert.equal(up.awaitingSnap, true);
  assert.equal(up.send(env('state', 2, { yel: 1 })), 'queued', 'held behind the snapshot');
  assert.equal(conn.sent.length, 0);
  assert.equal(up.send(env('snap', 3, { red: 0 })), 'sent');
  const [snap] = conn.frames();
  assert.deepEqual([snap.k, snap.seq, snap.d], ['snap', 3, { grn: 1, red: 0, yel: 1 }], 'the snapshot\'s values win');
  assert.equal(conn.sent.length, 1);
  assert.equal(up.send(env('state', 4, { grn: 0 })), 'sent');
});

test('without a snapshot the pending state goes alone after snapWaitMs', async (t) => {
  const up = make(counters(), 20);
  t.after(() => up.close());
  up.send(env('state', 1, { grn: 1 }));
  const conn = fakeConnection();
  up.attach(conn);
  await waitFor(() => conn.sent.length === 1);
  assert.deepEqual(conn.frames()[0].d, { grn: 1 });
  assert.equal(up.awaitingSnap, false);
});

test('a congested link queues frames; the next send drains them in order; detach and close keep or forget what waits', async (t) => {
  const c = counters();
  const up = make(c);
  t.after(() => up.close());
  const conn = fakeConnection();
  up.attach(conn);
  conn.buffered = 1000;
  assert.equal(up.send(env('ack', 1, undefined, { ref: { src: 'tw', seq: 1 } })), 'queued');
  assert.equal(up.send(env('ack', 2, undefined, { ref: { src: 'tw', seq: 2 } })), 'queued');
  assert.equal(conn.sent.length, 0);
  conn.buffered = 0;
  up.send(env('ack', 3, undefined, { ref: { src: 'tw', seq: 3 } }));
  await waitFor(() => conn.sent.length === 3);
  assert.deepEqual(conn.frames().map((f) => f.seq), [1, 2, 3]);
  assert.equal(c.queueDepth, 0);
  up.detach();
  assert.equal(up.send(env('state', 3, { grn: 1 })), 'queued');
  up.close();
  const again = fakeConnection();
  up.attach(again);
  assert.equal(up.awaitingSnap, false, 'close forgot the pending state');
});
