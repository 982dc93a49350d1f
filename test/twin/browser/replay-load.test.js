'use strict';
/**
 * twin/browser/replay-load.js against the real `GET /s7twin/history` (lib/history/state-history.js
 * on an Express app as the admin API is one, a real SQLite store with a small row limit so answers
 * are cut, a real command log): a window with its lead-in, page by page without losing or doubling
 * a frame; the state at the lead-in's start looked up further back, the newest value even where a
 * back window is cut; the window's commands; refusals and bad windows as coded errors.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const express = require('express');
const { createStateStore } = require('../../../nodes/lib/history/state-store');
const { installHistoryRoute } = require('../../../nodes/lib/history/state-history');
const { createAuditLog } = require('../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../nodes/lib/history/command-audit');
const { readCommands } = require('../../../nodes/lib/history/audit-store');
const { parseGrants } = require('../../../nodes/lib/access/auth');
const { historyClient, loadWindow, lastValues, onEdgeTiming } = require('../../../twin/browser/replay-load');
const { freePort } = require('../../../plc/net');

const GRANTS = parseGrants('vw:viewer:plant1,ed:edge:plant1');
const MIN = 60000;
const NOW = Date.now();
const FROM = NOW - 10 * MIN; // the window: the 5 minutes from 10 minutes ago
const TO = NOW - 5 * MIN;

/** The history server with `fill(store, audit)` done, rows cut at `maxRows`. */
async function server(t, fill, maxRows = 50) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-replay-load-'));
  const store = createStateStore({ file: path.join(dir, 'history.sqlite'), maxRows });
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  let at = 0;
  const audit = createCommandAudit({ log, now: () => at });
  fill(store, (t0, src, d, outcome) => {
    at = t0;
    audit.arrived({ via: 'ws', plant: 'plant1', who: { token: 'aaaabbbbcccc', role: 'twin' }, from: '10.1.2.3:4', at: t0, env: { k: 'cmd', src, seq: t0, d } });
    at = t0 + 20;
    if (outcome) audit.answered('plant1', { k: 'ack', ts: t0 + 15, ref: { src, seq: t0 } });
  });
  const app = express();
  installHistoryRoute(app, { store: () => store, grants: () => GRANTS, adminAuth: false, commands: (q) => readCommands({ file, log }, q) });
  const srv = app.listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  t.after(async () => { store.close(); await log.close(); await new Promise((r) => srv.close(r)); fs.rmSync(dir, { recursive: true, force: true }); });
  const client = (token = 'vw', o = {}) => historyClient({ fetch, path: `http://127.0.0.1:${srv.address().port}/s7twin/history`, token, plant: 'plant1', ...o });
  return { client };
}

test('a window with its lead-in, page by page: every frame once and whole, the commands of the window only', async (t) => {
  const { client } = await server(t, (store, cmd) => {
    // 3 tags a frame every second from 2 minutes before the window to its end: a page of 50 rows cuts a frame in two.
    for (let ts = FROM - 2 * MIN; ts <= TO; ts += 1000) store.add('plant1', { k: 'state', seq: ts, d: { c1: ts % 2, c2: 1, nb: ts } }, ts);
    store.add('plant1', { k: 'backfill', seq: 1, ct: FROM + 500, d: { grn: 1 } }, TO + 1000); // came after the outage, filed at its own time
    cmd(FROM - 30000, 'web-early', { st: 1 }, true); // in the lead-in: not the window's
    cmd(FROM + 60000, 'web-a', { st: 1 }, true);
    cmd(FROM + 61000, 'rest-b', { sp: 1 }, false);
  });
  const w = await loadWindow(client(), { from: FROM, to: TO, tags: ['c1', 'c2', 'nb', 'grn'], leadMs: MIN, maxPages: 100 });
  assert.equal(w.start, FROM - MIN);
  const expected = (TO - (FROM - MIN)) / 1000 + 1 + 1;
  assert.equal(w.frames.length, expected, 'every frame of the lead-in and the window');
  assert.ok(w.pages > 2, `in pages (${w.pages})`);
  assert.ok(w.frames.every((f, i) => i === 0 || f.t >= w.frames[i - 1].t), 'oldest first');
  assert.ok(w.frames.filter((f) => f.k === 'state').every((f) => Object.keys(f.d).length === 3), 'no frame cut in two');
  assert.equal(new Set(w.frames.map((f) => `${f.k}${f.t}`)).size, w.frames.length, 'none twice');
  assert.deepEqual(w.frames.find((f) => f.k === 'backfill'), { plant: 'plant1', t: FROM + 500, ets: null, seq: 1, k: 'backfill', d: { grn: 1 } });
  assert.deepEqual(w.commands.map((c) => [c.src, c.outcome, c.role, c.token]),
    [['web-a', 'written', 'twin', 'aaaabbbbcccc'], ['rest-b', null, 'twin', 'aaaabbbbcccc']]);
  assert.equal('from' in w.commands[0], false, 'no address');
  assert.deepEqual([w.truncated, w.to], [false, TO]);
  assert.deepEqual(w.initial, {}, 'the lead-in set c1, c2 and nb; grn is not in the history before the window');
  assert.deepEqual(w.unknown, ['grn']);

  // Too few pages: the replay ends where they end, and says so.
  const cut = await loadWindow(client(), { from: FROM, to: TO, tags: ['c1'], leadMs: MIN, maxPages: 6 });
  assert.equal(cut.truncated, true);
  assert.equal(cut.pages, 6);
  assert.equal(cut.to, cut.coveredTo);
  assert.ok(cut.to > FROM && cut.to < TO && cut.frames.every((f) => f.t <= cut.to), `covered to ${cut.to}`);
  assert.ok(cut.frames.filter((f) => f.k === 'state').every((f) => Object.keys(f.d).length === 3));
});

test('the state at the lead-in\'s start: looked up further back, the newest value even where a back window is cut', async (t) => {
  const { client } = await server(t, (store) => {
    store.add('plant1', { k: 'snap', seq: 1, d: { ng: 3, nr: 1, grn: 0 } }, FROM - 5 * 3600000); // five hours before
    store.add('plant1', { k: 'state', seq: 2, d: { ng: 7 } }, FROM - 20 * MIN); // 20 minutes before: in the first back window
    // 200 changes of c1 between 50 and 10 minutes before the window: the back window's answer is cut.
    for (let i = 0; i < 200; i += 1) store.add('plant1', { k: 'state', seq: 10 + i, d: { c1: i % 2, c2: i } }, FROM - 50 * MIN + i * 12000);
    store.add('plant1', { k: 'state', seq: 300, d: { c2: 1 } }, FROM + MIN); // in the window
  }, 40);
  const get = client();
  const w = await loadWindow(get, { from: FROM, to: TO, tags: ['ng', 'nr', 'grn', 'c1', 'c2', 'sd'], leadMs: MIN });
  assert.deepEqual(w.initial, { ng: 7, nr: 1, grn: 0, c1: 1, c2: 199 }, 'the newest of each');
  assert.deepEqual(w.unknown, ['sd'], 'a tag the history never had');
  assert.deepEqual(await lastValues(get, ['c1'], FROM - 50 * MIN, FROM - MIN, 0), { c1: 1 }, 'no halving: the cut answer\'s newest row only (rows 0..39)');
});

test('refusals and windows that cannot be replayed are coded errors', async (t) => {
  const { client } = await server(t, () => {});
  const fails = async (get, q, code) => assert.rejects(loadWindow(get, { from: FROM, to: TO, tags: ['c1'], ...q }), (e) => e.code === code, code);
  await fails(client('nobody'), {}, 'E_UNAUTHORIZED');
  await fails(client('ed'), {}, 'E_FORBIDDEN');
  await fails(client('vw', { plant: 'plant2' }), {}, 'E_FORBIDDEN');
  await fails(client(), { from: TO, to: FROM }, 'E_REPLAY_WINDOW');
  await fails(client(), { from: NaN }, 'E_REPLAY_WINDOW');
  await fails(client(), { from: TO - 7 * 3600000 }, 'E_REPLAY_WINDOW');
  const closed = await freePort();
  await fails(historyClient({ fetch, path: `http://127.0.0.1:${closed}/s7twin/history`, token: 'vw', plant: 'plant1' }), {}, 'E_NETWORK');
  const empty = await loadWindow(client(), { from: FROM, to: TO, tags: ['c1'] });
  assert.deepEqual([empty.frames, empty.commands, empty.unknown, empty.truncated], [[], [], ['c1'], false], 'an empty window is a replay of nothing');
});

test('onEdgeTiming: live frames spaced as the edge read them, one offset per stretch between snapshots, never later than they came', () => {
  const f = (t, ets, k, seq) => ({ plant: 'plant1', t, ets, seq, k, d: { c1: seq % 2 } });
  // The edge's clock is 1,000 ms behind the cloud's; frames 3 and 4 waited 60 and 45 ms in a held-up cloud.
  const frames = [
    f(2005, 1000, 'snap', 1), f(2105, 1100, 'state', 2), f(2260, 1200, 'state', 3), f(2263, 1218, 'state', 4),
    f(2250, null, 'state', 5), f(2280, 1250, 'backfill', 1),
    // The edge restarted (a new snapshot): its own offset, here 3 ms of link.
    f(9003, 8000, 'snap', 1), f(9090, 8030, 'state', 2),
  ];
  const out = onEdgeTiming(frames);
  assert.deepEqual(out.map((x) => [x.k, x.seq, x.t]), [
    ['snap', 1, 2005], ['state', 2, 2105], ['state', 3, 2205], ['state', 4, 2223],
    ['state', 5, 2250], ['backfill', 1, 2280], ['snap', 1, 9003], ['state', 2, 9033],
  ]);
  assert.ok(out.every((x) => x.t <= frames.find((y) => y.k === x.k && y.seq === x.seq && y.ets === x.ets).t), 'none later than it arrived');
  assert.equal(frames[2].t, 2260, 'the frames given are left as they were');
  assert.deepEqual(onEdgeTiming([]), []);
});
