'use strict';
/**
 * lib/history/state-history.js on an Express app as Node-RED's admin API is one: viewer tokens and
 * above read the plant history of their plants, edge tokens get 403; with commands=1 the window's
 * commands from a real command log, as a timeline needs them (no addresses); where the database is
 * and how long it keeps states.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const express = require('express');
const { createStateStore } = require('../../../../nodes/lib/history/state-store');
const { installHistoryRoute, historyOptions, ownEdgeFrames, flushBeforeClose, backfillFiler } = require('../../../../nodes/lib/history/state-history');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { readCommands } = require('../../../../nodes/lib/history/audit-store');
const { parseGrants } = require('../../../../nodes/lib/access/auth');

const GRANTS = parseGrants('tw:twin:p1,vw:viewer:p1,ed:edge:p1,au:auditor:*,v2:viewer:p2');

/** A command log with a written command of p1 (a twin's, over ws), a refused one of p1 (a viewer's, over REST) and one of p2. */
async function commandLog(t, now) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-history-cmds-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  t.after(async () => { await log.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const audit = createCommandAudit({ log, now: () => now - 1400 });
  audit.arrived({ via: 'ws', plant: 'p1', who: { token: 'aaaabbbbcccc', role: 'twin' }, from: '10.0.0.7:5000', at: now - 1500,
    env: { k: 'cmd', src: 'web-1', seq: 1, cid: 'c-1', key: 'order-42', ttl: 2000, dl: now + 500, d: { st: 1 } } });
  audit.answered('p1', { k: 'ack', ts: now - 1450, ref: { src: 'web-1', seq: 1 } });
  audit.arrived({ via: 'rest', plant: 'p1', who: { token: 'ddddeeeeffff', role: 'viewer' }, from: '10.0.0.8:5001', at: now - 1200,
    env: { k: 'cmd', src: 'rest-viewer', seq: 1, d: { sp: 1 } } });
  audit.refused('p1', { src: 'rest-viewer', seq: 1 }, 'E_READ_ONLY', 'a viewer token may watch');
  audit.arrived({ via: 'ws', plant: 'p2', who: { token: '999988887777', role: 'twin' }, at: now - 1100,
    env: { k: 'cmd', src: 'web-2', seq: 1, d: { st: 1 } } });
  return { file, log };
}

async function serve(t, opts = {}) {
  const store = createStateStore({ file: ':memory:' });
  const now = Date.now();
  store.add('p1', { k: 'snap', seq: 1, d: { c1: 0, grn: 1 } }, now - 2000);
  store.add('p1', { k: 'state', seq: 2, d: { c1: 1 } }, now - 1000);
  store.add('p2', { k: 'state', seq: 1, d: { c1: 9 } }, now - 1000);
  const app = express();
  const log = opts.commands === false ? null : await commandLog(t, now);
  const handler = installHistoryRoute(app, {
    store: () => store, grants: () => GRANTS, adminAuth: false, commands: log ? (q) => readCommands(log, q) : undefined,
  });
  assert.equal(installHistoryRoute(app, {}), null, 'mounted once per app');
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(async () => { store.close(); await new Promise((r) => server.close(r)); });
  const get = async (query, token) => {
    const res = await fetch(`http://127.0.0.1:${server.address().port}/s7twin/history${query}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: await res.json() };
  };
  return { get, handler, now };
}

test('viewer, twin and auditor tokens read their plants\' history; edge tokens 403, strangers 401', async (t) => {
  const s = await serve(t);
  for (const tok of ['vw', 'tw', 'au']) {
    const r = await s.get('?plant=p1', tok);
    assert.equal(r.status, 200, tok);
    assert.deepEqual(r.body.states.map((f) => [f.seq, f.k, f.d]), [[1, 'snap', { c1: 0, grn: 1 }], [2, 'state', { c1: 1 }]], tok);
  }
  assert.deepEqual((await s.get('?plant=p1&tags=grn', 'vw')).body.states.map((f) => f.d), [{ grn: 1 }]);
  assert.deepEqual((await s.get('', 'v2')).body.states.map((f) => f.d), [{ c1: 9 }], 'its only plant when none is named');
  const edge = await s.get('?plant=p1', 'ed');
  assert.deepEqual([edge.status, edge.body.error.code], [403, 'E_FORBIDDEN']);
  assert.equal((await s.get('?plant=p2', 'vw')).status, 403, 'another plant\'s');
  assert.equal((await s.get('?plant=p1', 'nobody')).status, 401);
  assert.equal((await s.get('?plant=p1')).status, 200, 'no editor login at all: the admin API is open, and so is this');
  for (const q of ['?from=soon', '?tags=a;b', `?from=${Date.now() + 3600000}`, '?plant=../x']) {
    const r = await s.get(q, 'vw');
    assert.deepEqual([r.status, r.body.error.code], [400, 'E_HISTORY_QUERY'], q);
  }
  assert.equal(s.handler.counters.forbidden, 2);
});

test('commands=1: the window\'s commands of the reader\'s plants, with sender and outcome, never an address', async (t) => {
  const s = await serve(t);
  for (const tok of ['vw', 'tw', 'au']) {
    const r = await s.get('?plant=p1&commands=1', tok);
    assert.equal(r.status, 200, tok);
    assert.deepEqual(r.body.states.map((f) => f.seq), [1, 2], 'the states as before');
    assert.equal(r.body.commandsTruncated, false);
    assert.deepEqual(r.body.commands, [
      { n: 1, arrived: s.now - 1500, plant: 'p1', via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'web-1', seq: 1, values: { st: 1 },
        outcome: 'written', answered: s.now - 1400, plcAt: s.now - 1450 },
      { n: 3, arrived: s.now - 1200, plant: 'p1', via: 'rest', token: 'ddddeeeeffff', role: 'viewer', src: 'rest-viewer', seq: 1, values: { sp: 1 },
        outcome: 'refused', code: 'E_READ_ONLY', answered: s.now - 1400 },
    ], tok);
    assert.doesNotMatch(JSON.stringify(r.body), /10\.0\.0|order-42|c-1|may watch/, 'no address, key, correlation id or message');
  }
  assert.equal((await s.get('?plant=p1', 'vw')).body.commands, undefined, 'only when asked');
  assert.deepEqual((await s.get('?commands=1', 'v2')).body.commands.map((c) => c.src), ['web-2'], 'its only plant\'s');
  const later = await s.get(`?plant=p1&commands=1&from=${s.now - 1300}`, 'vw');
  assert.deepEqual(later.body.commands.map((c) => c.src), ['rest-viewer'], 'by arrival in the window');
  for (const [q, tok, status, code] of [['?plant=p1&commands=1', 'ed', 403, 'E_FORBIDDEN'], ['?plant=p1&commands=1', 'nobody', 401, 'E_UNAUTHORIZED'],
    ['?plant=p2&commands=1', 'vw', 403, 'E_FORBIDDEN'], ['?plant=p1&commands=yes', 'vw', 400, 'E_HISTORY_QUERY']]) {
    const r = await s.get(q, tok);
    assert.deepEqual([r.status, r.body.error.code, r.body.commands], [status, code, undefined], `${q} ${tok}`);
  }
  const none = await serve(t, { commands: false });
  const r = await none.get('?plant=p1&commands=1', 'vw');
  assert.deepEqual([r.status, r.body.error.code], [400, 'E_HISTORY_QUERY'], 'an instance without a command log says so');
  assert.equal((await none.get('?plant=p1', 'vw')).status, 200);
});

test('historyOptions: the user directory by default, S7T_HISTORY_FILE and the retention in hours', () => {
  assert.deepEqual(historyOptions({ userDir: '/u' }, {}), { store: 'sqlite', file: path.resolve('/u/s7twin-history.sqlite'), retentionMs: 168 * 3600000 });
  assert.deepEqual(historyOptions({ userDir: '/u' }, { S7T_HISTORY_FILE: 'h/x.db', S7T_HISTORY_RETENTION_H: '2' }),
    { store: 'sqlite', file: path.resolve('/u/h/x.db'), retentionMs: 7200000 });
  assert.throws(() => historyOptions({ userDir: '/u' }, { S7T_HISTORY_RETENTION_H: '0' }), (e) => e.code === 'E_CONFIG');
});

test('historyOptions: in a fleet (S7T_REDIS_URL) the shared Redis store, unless S7T_HISTORY_STORE says otherwise', () => {
  const fleet = { S7T_REDIS_URL: 'redis://r:6379' };
  assert.deepEqual(historyOptions({ userDir: '/u' }, fleet), { store: 'redis', url: 'redis://r:6379', retentionMs: 168 * 3600000 });
  assert.deepEqual(historyOptions({ userDir: '/u' }, { ...fleet, S7T_HISTORY_REDIS_URL: 'redis://h:6379', S7T_HISTORY_RETENTION_H: '24' }),
    { store: 'redis', url: 'redis://h:6379', retentionMs: 24 * 3600000 }, 'a Redis of its own for the history');
  assert.equal(historyOptions({ userDir: '/u' }, { ...fleet, S7T_HISTORY_STORE: 'sqlite' }).store, 'sqlite', 'each instance its own database');
  assert.throws(() => historyOptions({ userDir: '/u' }, { S7T_HISTORY_STORE: 'redis' }), (e) => e.code === 'E_CONFIG' && /S7T_REDIS_URL/.test(e.message));
  assert.throws(() => historyOptions({ userDir: '/u' }, { S7T_HISTORY_STORE: 'postgres' }), (e) => e.code === 'E_CONFIG');
});

test('ownEdgeFrames: the frames of the endpoint\'s own edges are filed; frames relayed from another instance are not', () => {
  const filed = [];
  const listener = ownEdgeFrames({ add: (plant, env) => filed.push([plant, env.seq]) });
  listener({ k: 'state', seq: 1, d: { c1: 1 } }, 'peer-7', 'p1'); // from this endpoint's edge of p1
  listener({ k: 'state', seq: 2, d: { c1: 2 } }, undefined, 'p2'); // another instance's edge, relayed for the twins here
  listener({ k: 'snap', d: { c1: 2 } }, undefined, 'p2'); // a snapshot made here from the fleet's latest state
  assert.deepEqual(filed, [['p1', 1]]);
});

test('flushBeforeClose: what waits is written; a store that does not answer holds the close up only so long, and never fails it', async () => {
  const store = createStateStore({ file: ':memory:', flushMs: 60000 });
  store.add('p1', { k: 'state', seq: 1, d: { c1: 1 } }, 1);
  await flushBeforeClose(store);
  assert.equal(store.counters.written, 1);
  store.close();
  const started = Date.now();
  await flushBeforeClose({ flush: () => new Promise(() => {}) }, 50);
  await flushBeforeClose({ flush: () => Promise.reject(new Error('Redis gone')) });
  await flushBeforeClose({ flush: () => { throw new Error('closed'); } });
  assert.ok(Date.now() - started < 1000);
});

test('backfillFiler: a record that was a live frame the history holds (another instance\'s, or from before a restart) is known, not filed', async (t) => {
  const store = createStateStore({ file: ':memory:', flushMs: 5 });
  const alive = setInterval(() => {}, 50); // the store's flush timer does not hold the process open
  t.after(() => clearInterval(alive));
  const file = backfillFiler(store);
  // The edge sent state 41 live at 10,000 (its clock) and instance 1 filed it at 10,030; the link
  // died before the cloud confirmed it, so the edge journalled it with `of` and forwards it here.
  store.add('p1', { k: 'state', src: 'edge-9', seq: 41, ts: 10000, d: { c1: 1, grn: 0 } }, 10030);
  const record = (over) => ({ k: 'backfill', src: 'journal-x', seq: 1, ts: 10000, ct: 10020, of: { src: 'edge-9', seq: 41 }, d: { c1: 1, grn: 0 }, ...over });
  assert.equal(await file('p1', record()), 'known');
  // Not the same frame: another seq, another edge timestamp, another plant, or found too far away.
  assert.equal(await file('p1', record({ seq: 2, of: { src: 'edge-9', seq: 42 } })), 'filed');
  assert.equal(await file('p1', record({ seq: 3, ts: 10001 })), 'filed');
  assert.equal(await file('p2', record({ seq: 4 })), 'filed');
  assert.equal(await file('p1', record({ seq: 5, ct: 60000 })), 'filed');
  // Without `of` (read while the link was down) or without a time on the cloud's clock: filed.
  assert.equal(await file('p1', record({ seq: 6, of: undefined })), 'filed');
  assert.equal(await file('p1', record({ seq: 7, ct: undefined })), 'filed');
  const kinds = store.query({ plant: '*', from: 0, to: Date.now() + 1000 }).frames.map((f) => `${f.plant}:${f.k}:${f.seq}`);
  assert.deepEqual(kinds.sort(), ['p1:backfill:2', 'p1:backfill:3', 'p1:backfill:5', 'p1:backfill:6', 'p1:backfill:7', 'p1:state:41', 'p2:backfill:4'].sort());
  store.close();
  await assert.rejects(file('p1', record({ seq: 8, of: undefined })), (e) => e.code === 'E_HISTORY_STORE', 'a closed store: refused');
});
