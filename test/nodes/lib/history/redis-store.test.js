'use strict';
/**
 * lib/history/redis-store.js against a real redis-server on an ephemeral port: the same answers
 * as the embedded store (frames of a window, per plant and tag, the retention), a backfilled
 * frame filed where it belongs though it came late, nothing filed twice, windows read a page at
 * a time, two instances on one store, and Redis gone: rows wait (bounded), the failure is
 * reported once, and they go in once it is back.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const { createRedisStateStore, memberOf, rowsOfMember, keepOldest } = require('../../../../nodes/lib/history/redis-store');
const { rowsOf } = require('../../../../nodes/lib/history/rows');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../../system/wait');

let redis;
test.before(async () => { redis = await startRedis(); });
test.after(async () => { if (redis) await redis.stop(); });

/** A store on the shared redis-server, with a clean database, closed after the test. */
async function fresh(t, o = {}) {
  const raw = new Redis(o.url || redis.url);
  await raw.flushall();
  const store = createRedisStateStore({ url: o.url || redis.url, flushMs: 60000, ...o });
  t.after(async () => { await store.close(); await raw.quit(); });
  return { store, raw };
}

test('states come back as the frames of a window, oldest first, per plant and tag; pruned past the retention', async (t) => {
  let clock = 10000;
  const { store, raw } = await fresh(t, { now: () => clock });
  store.add('p1', { k: 'snap', seq: 1, ts: 9990, d: { c1: 0, grn: false } }, 1000);
  store.add('p1', { k: 'state', seq: 2, ts: 10990, d: { c1: 1 } }, 2000);
  store.add('p2', { k: 'state', seq: 1, d: { c1: 7 } }, 2000);
  store.add('p1', { k: 'state', seq: 3, d: { grn: true, msg: 'box 7 rejected' } }, 3000);
  store.add('p1', { k: 'ack', ref: {} }, 3000);
  store.add(undefined, { k: 'state', d: { c1: 1 } });
  assert.equal(store.counters.written, 0, 'queued, not written yet');
  const all = await store.query({ plant: 'p1', from: 0, to: 5000 });
  assert.deepEqual(all.frames, [
    { plant: 'p1', t: 1000, ets: 9990, seq: 1, k: 'snap', d: { c1: 0, grn: 0 } },
    { plant: 'p1', t: 2000, ets: 10990, seq: 2, k: 'state', d: { c1: 1 } },
    { plant: 'p1', t: 3000, ets: null, seq: 3, k: 'state', d: { grn: 1, msg: 'box 7 rejected' } },
  ]);
  assert.equal(all.rows, 5);
  assert.equal(store.counters.written, 6, 'a query writes what waits first');
  assert.deepEqual((await store.query({ plant: 'p1', from: 1500, to: 2500 })).frames.map((f) => f.seq), [2]);
  assert.deepEqual((await store.query({ plant: 'p1', from: 0, to: 5000, tags: ['grn'] })).frames.map((f) => f.d), [{ grn: 0 }, { grn: 1 }]);
  assert.deepEqual((await store.query({ plant: ['p2'], from: 0, to: 5000 })).frames.map((f) => f.d), [{ c1: 7 }]);
  const every = await store.query({ plant: '*', from: 0, to: 5000 });
  assert.deepEqual(every.frames.map((f) => `${f.plant}#${f.seq}`), ['p1#1', 'p1#2', 'p2#1', 'p1#3'], 'every plant, merged by time');
  const capped = await store.query({ plant: 'p1', from: 0, to: 5000, limit: 2 });
  assert.deepEqual([capped.rows, capped.truncated], [2, true]);
  assert.ok((await raw.pttl(KEYS.history('p1'))) > 6 * 24 * 3600 * 1000, 'the key itself expires a retention after its last write');

  clock = 2500 + 7 * 24 * 3600 * 1000; // a week later: the first two frames of p1 and p2's are past the retention
  await store.prune();
  assert.deepEqual((await store.query({ plant: 'p1', from: 0, to: 5000 })).frames.map((f) => f.seq), [3]);
  assert.equal(store.counters.pruned, 3, 'frames of every plant');
  assert.deepEqual(await raw.smembers(KEYS.historyPlants), ['p1'], 'a plant with nothing left is no longer listed');
  assert.equal(typeof (await store.query({ plant: 'p1', from: 0, to: 5000 })).frames[0].d.msg, 'string', 'a STRING tag\'s text stays text');
});

test('a backfilled state arriving late is filed under its own time, between the frames already there; nothing is filed twice', async (t) => {
  const { store } = await fresh(t);
  store.add('p1', { k: 'state', seq: 1, ts: 100, d: { c1: 1 } }, 1000);
  store.add('p1', { k: 'snap', seq: 9, ts: 900, d: { c1: 3 } }, 9000); // the snapshot after the reconnect
  await store.flush();
  // The journal of the outage comes after the reconnect, with the edge's times put on the cloud's clock.
  store.add('p1', { k: 'backfill', seq: 5, ts: 500, ct: 5000, d: { c1: 2 } }, 9500);
  // The same frame at the same time again (a batch written again after a connection broke mid-write).
  store.add('p1', { k: 'backfill', seq: 5, ts: 500, ct: 5000, d: { c1: 2 } }, 9600);
  await store.flush();
  const r = await store.query({ plant: 'p1', from: 0, to: 10000 });
  assert.deepEqual(r.frames.map((f) => [f.t, f.k, f.d.c1]), [[1000, 'state', 1], [5000, 'backfill', 2], [9000, 'snap', 3]]);
  assert.deepEqual((await store.query({ plant: 'p1', from: 4000, to: 6000 })).frames.map((f) => f.seq), [5], 'a window of the outage');
});

test('a window longer than a page is read whole, also where many frames share one time', async (t) => {
  const { store } = await fresh(t, { page: 3 });
  let seq = 0;
  for (const at of [10, 20, 20, 20, 20, 20, 20, 20, 30, 40, 40, 40, 50]) store.add('p1', { k: 'state', seq: ++seq, d: { c1: seq } }, at);
  const r = await store.query({ plant: 'p1', from: 20, to: 40 });
  assert.deepEqual(r.frames.map((f) => f.seq).sort((a, b) => a - b), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  assert.deepEqual(r.frames.map((f) => f.t), [20, 20, 20, 20, 20, 20, 20, 30, 40, 40, 40], 'oldest first');
  assert.equal((await store.query({ plant: 'p1', from: 0, to: 100, tags: ['c1'], limit: 12 })).truncated, true);
});

test('two instances on one store: what either files, both answer', async (t) => {
  const { store: a } = await fresh(t);
  const b = createRedisStateStore({ url: redis.url, flushMs: 10 });
  t.after(() => b.close());
  a.add('p1', { k: 'state', seq: 1, d: { c1: 1 } }, 1000);
  b.add('p2', { k: 'state', seq: 1, d: { c1: 2 } }, 2000);
  await a.flush();
  await waitFor(() => b.counters.written === 1, 5000, 'b\'s batch written in the background');
  for (const s of [a, b]) {
    assert.deepEqual((await s.query({ plant: '*', from: 0, to: 3000 })).frames.map((f) => `${f.plant}:${f.d.c1}`), ['p1:1', 'p2:2']);
  }
});

test('Redis gone: adding returns at once, rows wait (bounded, the rest dropped and counted), reported once; in once it is back', async (t) => {
  const r = await startRedis();
  t.after(() => r.stop());
  const errors = [];
  const store = createRedisStateStore({ url: r.url, flushMs: 20, retryMs: 50, maxPending: 6, retryMaxMs: 100, onError: (e) => errors.push(e) });
  t.after(() => store.close());
  store.add('p1', { k: 'state', seq: 1, d: { c1: 1 } }, 1000);
  await waitFor(() => store.counters.written === 1, 10000, 'the first row written');
  await r.stop();
  for (let i = 2; i <= 5; i += 1) store.add('p1', { k: 'state', seq: i, d: { c1: i, c2: i } }, 1000 + i);
  assert.equal(store.counters.pending, 6, 'three frames of two rows wait');
  assert.equal(store.counters.dropped, 2, 'the fourth did not fit: dropped, counted');
  await waitFor(() => store.counters.writeErrors >= 3, 10000, 'failed tries, one after the other');
  assert.equal(errors.length, 1, 'reported once per run of failures');
  assert.ok(store.counters.failing >= 3);
  await assert.rejects(store.query({ plant: 'p1', from: 0, to: 5000 }), 'a read while Redis is gone fails (HTTP 500 at the route)');
  const again = await startRedis({ port: r.port });
  t.after(() => again.stop());
  await waitFor(() => store.counters.pending === 0, 15000, 'the waiting rows written once Redis is back');
  assert.equal(store.counters.failing, 0);
  // A fresh redis-server without persistence: what was written before it went is gone with it;
  // what waited is there.
  assert.deepEqual((await store.query({ plant: 'p1', from: 0, to: 5000 })).frames.map((f) => f.seq), [2, 3, 4]);
  assert.equal(errors.length, 1);
});

test('a member is a frame\'s rows, and back; a member that is not one of ours is no rows', () => {
  const rows = rowsOf('p1', { k: 'state', seq: 4, ts: 99, d: { c1: 2, msg: 'x' } }, 1234.5);
  const m = memberOf(rows);
  assert.equal(m, '[99,4,"state",{"c1":2,"msg":"x"}]');
  assert.deepEqual(rowsOfMember('p1', 1234.5, m, null).map((r) => [r.plant, r.t, r.ets, r.seq, r.kind, r.tag, r.value]), rows);
  assert.deepEqual(rowsOfMember('p1', 1, m, new Set(['msg'])).map((r) => r.tag), ['msg']);
  assert.equal(rowsOfMember('p1', 1, 'nonsense', null), null);
  assert.equal(rowsOfMember('p1', 1, '[1,2]', null), null);
});

test('a tag asked for is found as a key only, never inside a STRING tag\'s text', () => {
  const m = memberOf(rowsOf('p1', { k: 'state', seq: 1, d: { msg: '"grn": 1' } }, 1));
  assert.deepEqual(rowsOfMember('p1', 1, m, new Set(['grn'])), []);
  assert.deepEqual(rowsOfMember('p1', 1, m, new Set(['msg'])).map((r) => r.value), ['"grn": 1']);
});

test('backfill through the edge endpoint\'s filer: answered once in Redis, a frame forwarded again filed once, a dropped frame refused', async (t) => {
  const { backfillFiler } = require('../../../../nodes/lib/history/state-history');
  const { store, raw } = await fresh(t, { maxPending: 2 });
  const file = backfillFiler(store);
  const frame = { k: 'backfill', src: 'edge-1', seq: 7, ts: 5000, ct: 5020, d: { c1: 3 } };
  await file('p1', frame);
  assert.equal(await raw.zcard(KEYS.history('p1')), 1, 'in Redis once the filer resolves');
  await file('p1', { ...frame, ct: 5021 }); // forwarded again after a drop (a newer offset estimate)
  assert.equal(await raw.zcard(KEYS.history('p1')), 1, 'the same record is not filed twice');
  store.add('p1', { k: 'state', seq: 1, d: { a: 1, b: 2 } }, 6000); // two rows wait: the bound
  await assert.rejects(file('p1', { ...frame, seq: 8 }), (e) => e.code === 'E_HISTORY_STORE', 'past the bound: refused, the edge keeps it');
});

test('backfill of a live frame another instance filed in the shared store: known, not filed again', async (t) => {
  const { backfillFiler } = require('../../../../nodes/lib/history/state-history');
  const { store, raw } = await fresh(t);
  store.add('p1', { k: 'state', src: 'edge-9', seq: 41, ts: 10000, d: { c1: 1 } }, 10030); // instance 1's
  await store.flush();
  const file = backfillFiler(store); // instance 2's, on the same Redis
  const record = { k: 'backfill', src: 'journal-x', seq: 1, ts: 10000, ct: 10020, of: { src: 'edge-9', seq: 41 }, d: { c1: 1 } };
  assert.equal(await file('p1', record), 'known');
  assert.equal(await file('p1', { ...record, seq: 2, of: { src: 'edge-9', seq: 42 } }), 'filed');
  assert.equal(await raw.zcard(KEYS.history('p1')), 2, 'the live frame and the one record that was not it');
});

test('a query of many plants holds about twice its limit: each plant\'s rows joined by time and cut back to limit + 1', async (t) => {
  const plant = (p, ts) => ts.map((tt) => ({ plant: p, t: tt }));
  let rows = [];
  let most = 0;
  for (const [p, ts] of [['a', [1, 4, 7]], ['b', [2, 3, 9]], ['c', [0, 5, 8]], ['d', [10, 11, 12]]]) {
    rows = keepOldest(rows, plant(p, ts), 3);
    most = Math.max(most, rows.length);
  }
  assert.equal(most, 4, 'never more than limit + 1 kept between plants');
  assert.deepEqual(rows.map((r) => `${r.plant}${r.t}`), ['c0', 'a1', 'b2', 'b3'], 'the oldest, by time');
  assert.deepEqual(keepOldest([], plant('a', [1, 2, 3, 4, 5, 6]), 3).length, 4, 'one plant\'s too');
  assert.deepEqual(keepOldest(plant('a', [1, 1]), plant('b', [1]), 5).map((r) => r.plant), ['a', 'a', 'b'], 'stable within a time');

  // Through the store: the same answer as one sort of every row.
  const { store } = await fresh(t);
  for (const [p, ts] of [['p1', [1, 4, 7]], ['p2', [2, 3, 9]], ['p3', [0, 5, 8]]]) {
    for (const at of ts) store.add(p, { k: 'state', seq: at, d: { c1: at } }, at);
  }
  const got = await store.query({ plant: '*', from: 0, to: 100, limit: 4 });
  assert.deepEqual([got.frames.map((f) => `${f.plant}:${f.t}`), got.truncated], [['p3:0', 'p1:1', 'p2:2', 'p2:3'], true]);
  const all = await store.query({ plant: ['p1', 'p2', 'p3'], from: 0, to: 100, limit: 9 });
  assert.deepEqual([all.rows, all.truncated], [9, false]);
});

test('a failed prune is reported on its own: a write failing after it is reported too', async (t) => {
  const r = await startRedis();
  t.after(() => r.stop());
  const errors = [];
  const store = createRedisStateStore({ url: r.url, flushMs: 60000, retryMs: 60000, retryMaxMs: 100, onError: (e) => errors.push(e) });
  t.after(() => store.close());
  store.add('p1', { k: 'state', seq: 1, d: { c1: 1 } }, 1000);
  await store.flush();
  await r.stop();
  await waitFor(() => store.redis.status !== 'ready', 10000, 'the connection lost');
  await store.prune();
  await store.prune();
  assert.deepEqual([store.counters.pruneErrors, errors.length], [2, 1], 'prune failures reported once per run');
  store.add('p1', { k: 'state', seq: 2, d: { c1: 2 } }, 2000);
  await assert.rejects(store.flush());
  assert.equal(store.counters.writeErrors, 1);
  assert.equal(errors.length, 2, 'the write failure reported as well');
});
