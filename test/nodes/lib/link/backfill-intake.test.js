'use strict';
/**
 * lib/link/backfill-intake.js in the cloud's edge endpoint (lib/link/edge-endpoint.js, in-memory
 * connections) filing into a real plant history (lib/history/state-store.js on SQLite): backfill
 * goes into the history only, answered in order once on the disk, filed once, checked against the
 * plant's table; a cloud without a history refuses it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createEdgeEndpoint } = require('../../../../nodes/lib/link/edge-endpoint');
const { createStateStore } = require('../../../../nodes/lib/history/state-store');
const { backfillFiler } = require('../../../../nodes/lib/history/state-history');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const SRC = 'journal-0a1b2c3d4e5f';
const T0 = Date.now() - 60000;
const bf = (seq, d, more = {}) => ({ v: 1, k: 'backfill', src: SRC, seq, ts: T0 + seq, ct: T0 + seq + 500, d, ...more });

async function setup(t, { keeps = true, flushMs = 20, file } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-backfill-'));
  const store = keeps ? createStateStore({ file: path.join(dir, 'h.sqlite'), flushMs }) : null;
  const fileBackfill = file || (store ? backfillFiler(store) : undefined);
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 60000, fileBackfill });
  const passed = [];
  ep.on('envelope', (env) => passed.push(env));
  if (store) ep.on('envelope', (env, id, plant) => store.add(plant, env));
  t.after(async () => { await ep.close(); if (store) store.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  await ep.fleet.claim('plant1');
  const connect = () => { const conn = fakeConnection(); ep.accept(conn, { plant: 'plant1' }); return conn; };
  const history = () => store.query({ plant: 'plant1', from: 0, to: Date.now() + 1000 }).frames;
  return { ep, store, passed, connect, history };
}
const answers = (conn) => conn.frames().filter((f) => f.k === 'backfill-res').map((f) => f.ref.seq);

test('backfill goes into the history under its time on the cloud\'s clock, never to the flow, answered once on the disk', async (t) => {
  const s = await setup(t, { flushMs: 60000 });
  const conn = s.connect();
  conn.receive(bf(1, { c1: 1 }));
  conn.receive(bf(2, { c1: 0, grn: 1 }));
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(answers(conn), [], 'not answered before the rows are written');
  s.store.flush();
  await waitFor(() => answers(conn).length === 1);
  assert.deepEqual(answers(conn), [2], 'one answer for both, naming the newest');
  assert.deepEqual(s.passed, [], 'never passed on');
  assert.deepEqual(s.history().map((f) => [f.k, f.t - T0, f.ets - T0, f.seq, f.d]), [
    ['backfill', 501, 1, 1, { c1: 1 }], ['backfill', 502, 2, 2, { c1: 0, grn: 1 }]]);
  assert.deepEqual([s.ep.counters.backfillIn, s.ep.counters.backfillFiled], [2, 2]);
});

test('filed once: a record sent again (on a new connection), or one that reached the cloud live before its link died', async (t) => {
  const s = await setup(t);
  const first = s.connect();
  first.receive(bf(1, { c1: 1 }));
  await waitFor(() => answers(first).includes(1));
  const second = s.connect();
  const live = { v: 1, k: 'state', src: 'edge-s7', seq: 40, ts: T0 + 2, d: { red: 1 } };
  second.receive(live); // the live frame that reached the cloud
  second.receive(bf(1, { c1: 1 })); // its answer was lost with the link
  second.receive(bf(2, { red: 1 }, { of: { src: 'edge-s7', seq: 40 } })); // the same frame, journalled as unconfirmed
  second.receive(bf(3, { red: 0 }, { of: { src: 'edge-s7', seq: 41 } })); // one that never arrived
  await waitFor(() => answers(second).includes(3));
  assert.deepEqual([s.ep.counters.backfillKnown, s.ep.counters.backfillFiled], [2, 2]);
  assert.deepEqual(s.history().map((f) => [f.k, f.d]), [['backfill', { c1: 1 }], ['backfill', { red: 0 }], ['state', { red: 1 }]]);
  assert.deepEqual(s.passed.map((f) => f.k), ['state'], 'the live frame, and only it, went to the flow');
});

test('a record the plant\'s table refuses is told to the edge (not against its error budget) and answered in order', async (t) => {
  const s = await setup(t);
  const conn = s.connect();
  for (let i = 1; i <= 60; i++) conn.receive(bf(i, i % 2 ? { hack: 1 } : { c1: 1 })); // half of them with a tag the table lacks
  await waitFor(() => answers(conn).includes(60));
  const errs = conn.frames().filter((f) => f.k === 'err');
  assert.equal(errs.length, 30);
  assert.deepEqual([errs[0].e.code, errs[0].ref], ['E_UNKNOWN_TAG', { src: SRC, seq: 1 }]);
  assert.equal(conn.closes.length, 0, 'the edge is not sent away');
  assert.deepEqual([s.ep.counters.backfillRefused, s.ep.counters.backfillFiled], [30, 30]);
});

test('a cloud without a plant history answers E_NO_HISTORY and files nothing', async (t) => {
  const s = await setup(t, { keeps: false });
  const conn = s.connect();
  conn.receive(bf(1, { c1: 1 }));
  const [err] = conn.frames().filter((f) => f.k === 'err');
  assert.deepEqual([err.e.code, err.ref], ['E_NO_HISTORY', { src: SRC, seq: 1 }]);
  assert.deepEqual(answers(conn), []);
  assert.equal(s.ep.counters.backfillUnfiled, 1);
});

test('a filing that fails leaves that record and every later one of the connection unanswered', async (t) => {
  const s = await setup(t, { flushMs: 60000 });
  const conn = s.connect();
  conn.receive(bf(1, { c1: 1 }));
  s.store.flush();
  await waitFor(() => answers(conn).includes(1));
  conn.receive(bf(2, { c1: 0 }));
  s.store.close(); // its rows are written as it closes, but the store is gone for what comes next
  conn.receive(bf(3, { c1: 1 }));
  conn.receive(bf(4, { c1: 0 }));
  await waitFor(() => s.ep.counters.backfillUnanswered === 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(answers(conn), [1, 2]);
  const errs = conn.frames().filter((f) => f.k === 'err');
  assert.deepEqual(errs.map((f) => [f.e.code, f.ref.seq]), [['E_HISTORY_STORE', 3]], 'the edge is told where to start again, once');
  assert.equal(conn.closes.length, 0, 'the edge is not sent away');
});

test('after a failed filing: the old run\'s records go unanswered, the edge\'s resend from its last answer starts afresh, '
  + 'and a later record filed first never covers the failed one', async (t) => {
  const failOnce = new Set([5]);
  const stored = [];
  const file = (plant, env) => {
    if (failOnce.delete(env.seq)) return Promise.reject(Object.assign(new Error('disk full'), { code: 'E_HISTORY_STORE' }));
    // record 6 is filed before record 5's failure is known: a later record settles first
    return new Promise((resolve) => setTimeout(() => { stored.push(env.seq); resolve(); }, env.seq === 6 ? 0 : 15));
  };
  const s = await setup(t, { keeps: false, file });
  const conn = s.connect();
  for (let i = 1; i <= 4; i++) conn.receive(bf(i, { c1: i % 2 }));
  await waitFor(() => answers(conn).includes(4));
  conn.receive(bf(5, { c1: 1 }));
  conn.receive(bf(6, { c1: 0 }));
  await waitFor(() => conn.frames().some((f) => f.k === 'err'));
  conn.receive(bf(7, { c1: 1 })); // still on its way from the old run
  await new Promise((r) => setTimeout(r, 40));
  // One answer per turn of the event loop, so how many came depends on timing; what they name does not.
  const first = answers(conn);
  assert.equal(first.at(-1), 4, `nothing answered past the failed record: ${first}`);
  // The edge sends again from its last answer: a new run, and 5 is filed, not taken as known.
  for (let i = 5; i <= 7; i++) conn.receive(bf(i, { c1: i % 2 }));
  await waitFor(() => answers(conn).includes(7));
  assert.ok(stored.includes(5), 'record 5 is filed, never passed over because 6 was filed first');
  const after = answers(conn).slice(first.length); // the new run's: 7 alone, or 6 then 7
  assert.equal(after.at(-1), 7);
  assert.ok(after.every((a, i) => a >= 5 && (i === 0 || a > after[i - 1])), `in order, none before 5: ${after}`);
  assert.equal(s.ep.counters.backfillUnanswered, 1);
  // A new connection that sends 5 again (its answer lost with the link) finds it filed now.
  const again = s.connect();
  again.receive(bf(5, { c1: 1 }));
  await waitFor(() => answers(again).includes(5));
  assert.equal(s.ep.counters.backfillKnown > 0, true);
});
