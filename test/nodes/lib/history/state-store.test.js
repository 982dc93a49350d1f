'use strict';
/**
 * lib/history/state-store.js and lib/history/sqlite.js: states kept per plant and tag, read back
 * as frames of a window, pruned past the retention, failures counted; node:sqlite loads without
 * its ExperimentalWarning.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { createStateStore } = require('../../../../nodes/lib/history/state-store');

function tmp(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-states-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'db', 'history.sqlite');
}

test('states go in per tag and come back as the frames of a window, oldest first, per plant and tag', (t) => {
  let clock = 10000;
  const store = createStateStore({ file: tmp(t), now: () => clock, flushMs: 60000 });
  t.after(() => store.close());
  store.add('p1', { k: 'snap', seq: 1, ts: 9990, d: { c1: 0, grn: false } }, 1000);
  store.add('p1', { k: 'state', seq: 2, ts: 10990, d: { c1: 1 } }, 2000);
  store.add('p2', { k: 'state', seq: 1, d: { c1: 7 } }, 2000);
  store.add('p1', { k: 'state', seq: 3, d: { grn: true, msg: 'box 7 rejected' } }, 3000);
  store.add('p1', { k: 'ack', ref: {} }, 3000);
  store.add(undefined, { k: 'state', d: { c1: 1 } });
  assert.equal(store.counters.written, 0, 'queued, not written yet');
  const all = store.query({ plant: 'p1', from: 0, to: 5000 });
  assert.deepEqual(all.frames, [
    { plant: 'p1', t: 1000, ets: 9990, seq: 1, k: 'snap', d: { c1: 0, grn: 0 } },
    { plant: 'p1', t: 2000, ets: 10990, seq: 2, k: 'state', d: { c1: 1 } },
    { plant: 'p1', t: 3000, ets: null, seq: 3, k: 'state', d: { grn: 1, msg: 'box 7 rejected' } },
  ]);
  assert.equal(store.counters.written, 6, 'a query writes what waits first');
  assert.deepEqual(store.query({ plant: 'p1', from: 1500, to: 2500 }).frames.map((f) => f.seq), [2]);
  assert.deepEqual(store.query({ plant: 'p1', from: 0, to: 5000, tags: ['grn'] }).frames.map((f) => f.d), [{ grn: 0 }, { grn: 1 }]);
  assert.deepEqual(store.query({ plant: ['p2'], from: 0, to: 5000 }).frames.map((f) => f.d), [{ c1: 7 }]);
  assert.equal(store.query({ plant: '*', from: 0, to: 5000 }).frames.length, 4);
  const capped = store.query({ plant: 'p1', from: 0, to: 5000, limit: 2 });
  assert.deepEqual([capped.rows, capped.truncated], [2, true]);

  clock = 2500 + 7 * 24 * 3600 * 1000; // a week later: the first two frames are past the retention
  store.prune();
  assert.deepEqual(store.query({ plant: 'p1', from: 0, to: 5000 }).frames.map((f) => f.seq), [3]);
  assert.equal(store.counters.pruned, 4, 'of every plant');
  assert.equal(typeof store.query({ plant: 'p1', from: 0, to: 5000 }).frames[0].d.msg, 'string', 'a STRING tag\'s text stays text');
});

test('rows written in the background and kept across a reopen', async (t) => {
  const file = tmp(t);
  const store = createStateStore({ file, flushMs: 10 });
  store.add('p1', { k: 'state', seq: 1, d: { c1: 5 } }, Date.now());
  const { waitFor } = require('../../../../system/wait');
  await waitFor(() => store.counters.written === 1, 5000, 'the batch written');
  store.close();
  const again = createStateStore({ file });
  t.after(() => again.close());
  assert.deepEqual(again.query({ plant: 'p1', from: 0, to: Date.now() + 1000 }).frames.map((f) => f.d), [{ c1: 5 }]);
});

test('a write that fails (the database locked by another writer) is counted, reported once, and its rows go in with the next batch', (t) => {
  const file = tmp(t);
  const errors = [];
  const store = createStateStore({ file, flushMs: 60000, onError: (e) => errors.push(e) });
  t.after(() => store.close());
  const { DatabaseSync } = require('../../../../nodes/lib/history/sqlite').loadSqlite();
  const other = new DatabaseSync(file);
  other.exec('BEGIN EXCLUSIVE');
  store.add('p1', { k: 'state', seq: 1, d: { c1: 1 } }, 1);
  store.flush();
  store.add('p1', { k: 'state', seq: 2, d: { c1: 2 } }, 2);
  store.flush();
  assert.equal(store.counters.writeErrors, 2);
  assert.equal(errors.length, 1, 'reported once per run of failures');
  assert.equal(store.counters.pending, 2);
  other.exec('ROLLBACK');
  other.close();
  store.add('p1', { k: 'state', seq: 3, d: { c1: Number.NaN } }, 3);
  assert.deepEqual(store.query({ plant: 'p1', from: 0, to: 10 }).frames.map((f) => f.seq), [1, 2], 'in order; a value that is no finite number is no row');
  assert.equal(store.counters.failing, 0);
});

test('node:sqlite loads with no ExperimentalWarning in the log; other warnings still show', () => {
  const code = "require('./nodes/lib/history/sqlite').loadSqlite(); process.emitWarning('still here', 'ExperimentalWarning');";
  const r = spawnSync(process.execPath, ['-e', code], { cwd: path.join(__dirname, '..', '..', '..', '..'), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /SQLite/);
  assert.match(r.stderr, /ExperimentalWarning: still here/);
});

test('a backfilled record is filed once, under its time on the cloud\'s clock; whenWritten settles once it is on the disk', async (t) => {
  const file = tmp(t);
  const store = createStateStore({ file, flushMs: 60000 });
  const b = Date.now() - 10000; // within the retention: a reopen keeps it
  const bf = { k: 'backfill', src: 'journal-abc', seq: 7, ts: b, ct: b + 400, d: { c1: 1, grn: 0 } };
  assert.equal(store.add('p1', bf, b + 4000), true);
  let settled = false;
  const written = store.whenWritten().then(() => { settled = true; });
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'not before its transaction');
  store.flush();
  await written;
  store.add('p1', bf, b + 4500); // sent again: its answer was lost with the link
  store.add('p1', { ...bf, ts: b + 1000, ct: b + 1400 }, b + 4600); // another journal's record 7 (a new journal numbers from 1 again)
  store.add('p1', { k: 'state', seq: 7, ts: b, d: { c1: 1 } }, b + 4700); // live rows are never taken for one
  store.add('p1', { k: 'state', seq: 7, ts: b, d: { c1: 1 } }, b + 4710);
  store.flush();
  assert.deepEqual([store.counters.written, store.counters.ignored], [6, 2]);
  const frames = store.query({ plant: 'p1', from: b, to: b + 5000 }).frames;
  assert.deepEqual(frames.map((f) => [f.k, f.t - b, f.ets - b, f.seq]), [
    ['backfill', 400, 0, 7], ['backfill', 1400, 1000, 7], ['state', 4700, 0, 7], ['state', 4710, 0, 7]]);
  await store.whenWritten(); // nothing waits: at once
  store.close();
  const again = createStateStore({ file, flushMs: 60000 });
  t.after(() => again.close());
  again.add('p1', bf, b + 4800);
  again.flush();
  assert.equal(again.counters.ignored, 2, 'filed once across a restart of the cloud');
});

test('add says when rows were dropped (past maxPending, or closed); a close writes what waits; whenWritten of a closed store rejects', async () => {
  const store = createStateStore({ file: ':memory:', flushMs: 60000, maxPending: 3 });
  assert.equal(store.add('p1', { k: 'state', seq: 1, d: { a: 1, b: 2 } }, 1), true);
  const waiting = store.whenWritten();
  assert.equal(store.add('p1', { k: 'state', seq: 2, d: { a: 1, b: 2 } }, 2), false);
  assert.equal(store.counters.dropped, 1);
  store.close();
  await waiting;
  assert.equal(store.counters.written, 3);
  await assert.rejects(store.whenWritten(), { code: 'E_HISTORY_STORE' });
  assert.equal(store.add('p1', { k: 'state', seq: 3, d: { a: 1 } }, 3), false);
});

test('a failed write is tried again every retryMs with nothing new added (a quiet plant), and its waiters settle then', async (t) => {
  const file = tmp(t);
  const store = createStateStore({ file, flushMs: 60000, retryMs: 20 });
  t.after(() => store.close());
  const { DatabaseSync } = require('../../../../nodes/lib/history/sqlite').loadSqlite();
  const other = new DatabaseSync(file);
  other.exec('BEGIN EXCLUSIVE');
  store.add('p1', { k: 'backfill', seq: 1, ts: 5, d: { c1: 1 } }, 5);
  const written = store.whenWritten();
  store.flush();
  assert.equal(store.counters.writeErrors, 1);
  other.exec('ROLLBACK');
  other.close();
  const { waitFor } = require('../../../../system/wait');
  await waitFor(() => store.counters.written === 1, 5000, 'retried with no add() and no flush()');
  await written;
  assert.equal(store.counters.pending, 0);
});

test('rows queued are never cut when a write fails: a waiter resolves only for rows written; an add the queue has no room for says false', async (t) => {
  const file = tmp(t);
  const { DatabaseSync } = require('../../../../nodes/lib/history/sqlite').loadSqlite();
  let store = null;
  let lateAdd = null;
  let lateWritten = null;
  // The failure's report adds rows (a flow that files what it logs): they go behind the waiting ones.
  store = createStateStore({
    file, flushMs: 60000, retryMs: 60000, maxPending: 3,
    onError: () => { lateAdd = store.add('p1', { k: 'backfill', seq: 2, ts: 2, d: { c: 3, d: 4 } }, 2); lateWritten = store.whenWritten(); },
  });
  t.after(() => store.close());
  const locker = new DatabaseSync(file);
  locker.exec('BEGIN EXCLUSIVE');
  assert.equal(store.add('p1', { k: 'backfill', seq: 1, ts: 1, d: { a: 1, b: 2 } }, 1), true);
  const firstWritten = store.whenWritten();
  store.flush();
  assert.equal(store.counters.writeErrors, 1);
  assert.equal(lateAdd, false, 'no room for both rows of the late frame: refused, not accepted and cut later');
  assert.deepEqual([store.counters.pending, store.counters.dropped], [3, 1]);
  locker.exec('ROLLBACK');
  locker.close();
  store.flush();
  await firstWritten;
  await lateWritten;
  const frames = store.query({ plant: 'p1', from: 0, to: 10 }).frames;
  assert.deepEqual(frames.map((f) => [f.seq, f.d]), [[1, { a: 1, b: 2 }], [2, { c: 3 }]], 'every row queued is written');
});
