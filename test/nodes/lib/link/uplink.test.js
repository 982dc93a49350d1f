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

/** An uplink with a real journal in a temporary folder, and a settable sync number. */
function withJournal(t) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { createJournal } = require('../../../../nodes/lib/link/journal');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-uplink-'));
  const journal = createJournal({ dir });
  const c = { ...counters(), backfill: { unconfirmed: 0, unconfirmedJournalled: 0, unconfirmedDropped: 0 } };
  const sync = { seq: 0, offset: 100 };
  const up = createUplink({
    maxFrames: 10, maxTags: 100, highWaterBytes: 100, drainPollMs: 5, snapWaitMs: 60000, counters: c, journal, maxUnconfirmed: 5,
    cloudTime: (ts) => (sync.offset === null ? null : ts + sync.offset),
    mark: () => sync.seq,
  });
  t.after(() => { up.close(); journal.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  return { up, journal, c, sync };
}

test('with a journal: every state of an outage goes into it whole, with its time on the cloud\'s clock; answers do not', (t) => {
  const { up, journal, sync } = withJournal(t);
  up.send(env('state', 1, { grn: 1 }, { ts: 1000 }));
  sync.offset = null; // a journal opened before any link: no estimate yet
  up.send(env('snap', 2, { grn: 0, red: 1 }, { ts: 2000 }));
  up.send(env('ack', 3, undefined, { ref: { src: 'tw', seq: 1 } }));
  assert.deepEqual(journal.read(0, 10), [
    { j: 1, ts: 1000, ct: 1100, d: { grn: 1 } },
    { j: 2, ts: 2000, d: { grn: 0, red: 1 } },
  ]);
  const conn = fakeConnection();
  up.attach(conn);
  assert.equal(up.idle, false, 'the live side waits for its snapshot');
  up.send(env('snap', 4, { grn: 1, red: 0 }));
  assert.deepEqual(conn.frames()[0].d, { grn: 1, red: 0 }, 'the live view still gets the present, at once');
  assert.equal(up.idle, true);
  assert.equal(journal.pending, 2, 'nothing journalled while the link is up');
});

test('states written on a link that dies before a sync answer confirms them go into the journal, marked with the frame they were', (t) => {
  const { up, journal, c, sync } = withJournal(t);
  const conn = fakeConnection();
  up.attach(conn);
  up.send(env('state', 1, { c1: 1 }, { ts: 1000 }));
  sync.seq = 1; // a sync written after state 1
  up.send(env('state', 2, { c1: 0 }, { ts: 1100 }));
  up.confirm(1); // its answer: state 1 surely read
  assert.equal(c.backfill.unconfirmed, 1);
  conn.buffered = 1000; // congested: state 3 waits in the outbox, unwritten
  up.send(env('state', 3, { red: 1 }, { ts: 1200 }));
  sync.seq = 2; // sync 2 goes past the outbox, before state 3 is written
  conn.buffered = 0;
  up.send(env('ack', 4, undefined, { ref: { src: 'tw', seq: 1 } })); // drains the outbox: state 3 written after sync 2
  up.confirm(2);
  assert.equal(c.backfill.unconfirmed, 1, 'state 2 confirmed; state 3 was written after sync 2');
  up.detach(); // the link died (a black hole found by the heartbeat)
  up.send(env('state', 5, { red: 0 }, { ts: 1500 }));
  assert.deepEqual(journal.read(0, 10).map((r) => [r.ts, r.ct, r.of]), [
    [1200, 1300, { src: 'edge-s7', seq: 3 }],
    [1500, 1600, undefined],
  ], 'the unconfirmed tail first, then the outage');
  assert.deepEqual([c.backfill.unconfirmed, c.backfill.unconfirmedJournalled], [0, 1]);
});

test('unconfirmed states are bounded: the oldest are forgotten and counted', (t) => {
  const { up, journal, c } = withJournal(t);
  up.attach(fakeConnection());
  for (let i = 1; i <= 8; i++) up.send(env('state', i, { nb: i }));
  assert.deepEqual([c.backfill.unconfirmed, c.backfill.unconfirmedDropped], [5, 3]);
  up.detach();
  assert.deepEqual(journal.read(0, 10).map((r) => r.d.nb), [4, 5, 6, 7, 8]);
});
