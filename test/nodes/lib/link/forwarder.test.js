'use strict';
/**
 * lib/link/forwarder.js over an in-memory connection and a real journal on disk: the journal goes
 * out in order as backfill once the live side is through and the clock is known, paced (window,
 * burst, the connection's unsent bytes; the first frame of a connection alone), dropped only as
 * answered, sent again after a drop; the cloud's refusals counted, a cloud that takes no backfill
 * pauses it, and one whose history failed to file a record has it again from the last answer.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createJournal } = require('../../../../nodes/lib/link/journal');
const { createForwarder } = require('../../../../nodes/lib/link/forwarder');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const counters = () => ({ sent: 0, bytes: 0, answered: 0, inflight: 0, refused: 0, paused: 0, retries: 0 });

function setup(t, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-forward-'));
  const journal = createJournal({ dir });
  const c = counters();
  const live = { ready: true, offset: 250 };
  const paused = [];
  const fw = createForwarder({
    journal,
    counters: c,
    pollMs: 5,
    ...opts,
    write(conn, env) { const text = envelope.stringify(env); conn.send(text); return text.length; },
    ready: () => live.ready,
    offset: () => live.offset,
    onPause: (code) => paused.push(code),
  });
  t.after(() => { fw.close(); journal.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  return { journal, fw, c, live, paused };
}
const backfills = (conn) => conn.frames().filter((f) => f.k === 'backfill');
const answer = (fw, src, seq) => fw.take({ v: 1, k: 'backfill-res', src: 'cloud-e', seq: 1, ts: 1, ref: { src, seq } });

test('the journal goes out in order as valid backfill frames once the live side is through and the clock is known', async (t) => {
  const { journal, fw, c, live } = setup(t);
  journal.append({ ts: 1000, ct: 1300, d: { c1: 1 } });
  journal.append({ ts: 2000, ct: null, d: { c1: 0 }, of: { src: 'edge-s7', seq: 9 } });
  live.ready = false;
  live.offset = null;
  const conn = fakeConnection();
  fw.attach(conn);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(conn.sent.length, 0, 'the snapshot first');
  live.ready = true;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(conn.sent.length, 0, 'the clock first');
  live.offset = 250.4;
  await waitFor(() => backfills(conn).length === 1);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(backfills(conn).length, 1, 'the first frame of a connection goes alone, until its answer');
  assert.deepEqual([c.sent, c.inflight, journal.pending], [1, 1, 2], 'nothing dropped before its answer');
  assert.equal(answer(fw, journal.src, 1), true);
  await waitFor(() => backfills(conn).length === 2);
  const [a, b] = backfills(conn);
  assert.deepEqual(a, { v: 1, k: 'backfill', src: journal.src, seq: 1, ts: 1000, ct: 1300, d: { c1: 1 } }, 'its journalled time on the cloud\'s clock');
  assert.deepEqual(b, { v: 1, k: 'backfill', src: journal.src, seq: 2, ts: 2000, ct: 2250, d: { c1: 0 }, of: { src: 'edge-s7', seq: 9 } },
    'none journalled: from the estimate now');
  for (const f of backfills(conn)) envelope.validate(f);
  assert.deepEqual([c.sent, c.inflight, journal.pending], [2, 1, 1]);
  assert.equal(answer(fw, journal.src, 2), true);
  assert.deepEqual([journal.pending, c.inflight, c.answered], [0, 0, 2]);
  assert.equal(answer(fw, 'journal-other', 5), false, 'not this journal\'s: for the flow');
});

test('paced: at most `window` unanswered and `burst` a turn, only below the connection\'s high-water mark', async (t) => {
  const { journal, fw, c } = setup(t, { window: 30, burst: 10, highWaterBytes: 1000 });
  for (let i = 0; i < 100; i++) journal.append({ ts: i, ct: i, d: { nb: i } });
  const conn = fakeConnection();
  conn.buffered = 5000;
  fw.attach(conn);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(conn.sent.length, 0, 'a congested connection takes no backfill');
  conn.buffered = 0;
  await waitFor(() => c.sent === 1);
  answer(fw, journal.src, 1);
  await waitFor(() => c.sent === 31);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(c.sent, 31, 'the window is full');
  answer(fw, journal.src, 26);
  await waitFor(() => c.sent === 56);
  assert.deepEqual(backfills(conn).map((f) => f.seq), Array.from({ length: 56 }, (x, i) => i + 1), 'in order, each once');
});

test('a drop mid-forward: what was not answered goes again on the next link, from the journal', async (t) => {
  const { journal, fw, c } = setup(t, { window: 10 });
  for (let i = 1; i <= 25; i++) journal.append({ ts: i, ct: i, d: { nb: i } });
  const first = fakeConnection();
  fw.attach(first);
  await waitFor(() => c.sent === 1);
  answer(fw, journal.src, 1);
  await waitFor(() => c.sent === 11);
  answer(fw, journal.src, 4);
  await waitFor(() => c.sent === 14);
  fw.detach();
  assert.equal(journal.pending, 21, 'answered records only are gone');
  const second = fakeConnection();
  fw.attach(second);
  await waitFor(() => backfills(second).length === 1);
  answer(fw, journal.src, 5);
  await waitFor(() => backfills(second).length === 11);
  assert.deepEqual(backfills(second).map((f) => f.seq), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  answer(fw, journal.src, 15); // an answer covers every record before it
  await waitFor(() => backfills(second).length === 21);
  answer(fw, journal.src, 25);
  await waitFor(() => journal.pending === 0 && c.inflight === 0);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(backfills(second).map((f) => f.seq), Array.from({ length: 21 }, (x, i) => i + 5), 'nothing more once the journal is empty');
});

test('times on the cloud\'s clock keep the journal\'s order when the estimate falls between links; a record sent again keeps its time', async (t) => {
  // A dialer test failed once: the estimate fell a few ms between two links, and the records sent
  // again on the second were filed before the ones answered on the first (the history files by time).
  const { journal, fw, c, live } = setup(t, { window: 10 });
  for (let i = 1; i <= 10; i++) journal.append({ ts: 1000, ct: null, d: { nb: i } }); // all in one ms, the link down
  const first = fakeConnection();
  fw.attach(first);
  await waitFor(() => c.sent === 1);
  answer(fw, journal.src, 1);
  await waitFor(() => c.sent === 10);
  answer(fw, journal.src, 4);
  fw.detach();
  live.offset = 240; // the next link's estimate: 10 ms less
  journal.append({ ts: 1000, ct: null, d: { nb: 11 } });
  journal.append({ ts: 1001, ct: null, d: { nb: 12 } });
  journal.append({ ts: 1020, ct: null, d: { nb: 13 } });
  journal.append({ ts: 900, ct: null, d: { nb: 14 } }); // the edge's clock stepped back: its time as it is
  const second = fakeConnection();
  fw.attach(second);
  await waitFor(() => backfills(second).length === 1);
  answer(fw, journal.src, 5);
  await waitFor(() => backfills(second).length === 10);
  const cts = (conn) => Object.fromEntries(backfills(conn).map((f) => [f.seq, f.ct]));
  assert.deepEqual(cts(first), Object.fromEntries(Array.from({ length: 10 }, (x, i) => [i + 1, 1250])));
  assert.deepEqual(cts(second), {
    5: 1250, 6: 1250, 7: 1250, 8: 1250, 9: 1250, 10: 1250, // sent again: with the time they first went with
    11: 1250, 12: 1250, // 1240 and 1241 would go before the records filed from the first link
    13: 1260, // far enough on: from the estimate now
    14: 1140,
  });
});

test('an err about one record is counted; E_NO_HISTORY or E_KIND pauses forwarding until the next link', async (t) => {
  const { journal, fw, c, paused } = setup(t, { window: 5 });
  for (let i = 1; i <= 12; i++) journal.append({ ts: i, ct: i, d: { nb: i } });
  const conn = fakeConnection();
  fw.attach(conn);
  await waitFor(() => c.sent === 1);
  answer(fw, journal.src, 1);
  await waitFor(() => c.sent === 6);
  const err = (code, seq) => ({ v: 1, k: 'err', src: 'cloud-e', seq: 1, ts: 1, ref: { src: journal.src, seq }, e: { code, msg: code } });
  assert.equal(fw.take(err('E_RANGE', 2)), true);
  assert.equal(c.refused, 1);
  assert.equal(fw.take({ ...err('E_EXPIRED', 2), ref: { src: 'twin-1', seq: 2 } }), false, 'another sender\'s answer: the flow\'s');
  answer(fw, journal.src, 6);
  await waitFor(() => c.sent === 11);
  assert.equal(fw.take(err('E_NO_HISTORY', 7)), true);
  assert.deepEqual([c.paused, paused], [1, ['E_NO_HISTORY']]);
  answer(fw, journal.src, 8);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(c.sent, 11, 'paused');
  assert.equal(journal.pending, 4, 'the journal keeps the rest');
  fw.detach();
  fw.attach(fakeConnection());
  await waitFor(() => c.sent === 12);
  answer(fw, journal.src, 9);
  await waitFor(() => c.sent === 15);
});

const errOf = (journal, code, seq) => ({ v: 1, k: 'err', src: 'cloud-e', seq: 1, ts: 1, ref: { src: journal.src, seq }, e: { code, msg: code } });

test('E_HISTORY_STORE (the cloud failed to file a record): counted; after retryMs the forward starts again from the last answer, one first', async (t) => {
  const { journal, fw, c } = setup(t, { window: 5, retryMs: 400 });
  for (let i = 1; i <= 8; i++) journal.append({ ts: i, ct: i, d: { nb: i } });
  const conn = fakeConnection();
  fw.attach(conn);
  await waitFor(() => c.sent === 1);
  answer(fw, journal.src, 1);
  await waitFor(() => c.sent === 6);
  answer(fw, journal.src, 3);
  await waitFor(() => c.sent === 8);
  assert.equal(fw.take(errOf(journal, 'E_HISTORY_STORE', 4)), true);
  assert.equal(fw.take(errOf(journal, 'E_HISTORY_STORE', 4)), true);
  assert.deepEqual([c.retries, c.refused], [1, 0], 'one retry for the run, nothing counted refused');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(c.sent, 8, 'nothing sent while it waits');
  assert.equal(journal.pending, 5, 'nothing dropped: records 4 to 8 wait in the journal');
  await waitFor(() => c.sent === 9);
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(backfills(conn).map((f) => f.seq).slice(8), [4], 'again from the record after the last answer, on the same link, alone');
  answer(fw, journal.src, 4);
  await waitFor(() => c.sent === 13);
  assert.deepEqual(backfills(conn).map((f) => f.seq).slice(8), [4, 5, 6, 7, 8], 'the rest once it is answered');
  answer(fw, journal.src, 8);
  await waitFor(() => journal.pending === 0);
});

test('a cloud of a version before backfill (E_SCHEMA for an unknown kind) gets one frame a connection, not a burst that trips its error budget', async (t) => {
  const { journal, fw, c } = setup(t, { window: 50, burst: 50 });
  for (let i = 1; i <= 100; i++) journal.append({ ts: i, ct: i, d: { nb: i } });
  for (let n = 1; n <= 2; n++) {
    const conn = fakeConnection();
    fw.attach(conn);
    await waitFor(() => backfills(conn).length === 1);
    fw.take(errOf(journal, 'E_SCHEMA', 1));
    await new Promise((r) => setTimeout(r, 40));
    assert.deepEqual(backfills(conn).map((f) => f.seq), [1], `link ${n}: the first record only, and nothing after the refusal`);
    fw.detach();
  }
  assert.deepEqual([c.sent, journal.pending], [2, 100], 'the journal keeps everything');
});
