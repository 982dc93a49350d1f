'use strict';
/**
 * lib/history/audit-http.js on an Express app as Node-RED's admin API is one: who may read the
 * command log (auditor tokens for their plants, the editor login; twins, viewers and edges 403),
 * and what a query answers (JSON with the head, CSV).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const express = require('express');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { installAuditRoute, readQuery } = require('../../../../nodes/lib/history/audit-http');
const { parseGrants } = require('../../../../nodes/lib/access/auth');

const GRANTS = parseGrants('tw:twin:p1,vw:viewer:p1,ed:edge:p1,au:auditor:*,au1:auditor:p1');

async function serve(t, o = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-audith-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log });
  for (const [plant, seq] of [['p1', 1], ['p2', 1]]) {
    const env = { k: 'cmd', src: 'a', seq, d: { se: 1 }, dl: 1 };
    audit.arrived({ via: 'ws', plant, who: { token: 'f00', role: 'twin' }, from: 'x:1', at: Date.now(), env });
    audit.answered(plant, { k: 'ack', ts: 5, ref: { src: 'a', seq } });
  }
  const app = express();
  const { share, ...rest } = o;
  const handler = installAuditRoute(app, { store: () => ({ file, log, ...(share ? { share } : {}) }), grants: () => GRANTS, adminAuth: false, ...rest });
  assert.equal(installAuditRoute(app, {}), null, 'mounted once per app');
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(async () => {
    await log.close();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${server.address().port}/s7twin/audit`;
  const get = async (query = '', token) => {
    const res = await fetch(`${base}${query}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), text, body: /json/.test(res.headers.get('content-type') || '') ? JSON.parse(text) : null };
  };
  return { get, handler };
}

test('an auditor token reads its plants\' commands; twin, viewer and edge tokens get 403; an unknown token 401', async (t) => {
  const s = await serve(t);
  const all = await s.get('', 'au');
  assert.equal(all.status, 200);
  assert.deepEqual(all.body.commands.map((c) => [c.plant, c.outcome]), [['p1', 'written'], ['p2', 'written']]);
  assert.equal(all.body.head.n, 4, 'the head to keep elsewhere');
  assert.match(all.body.head.hash, /^[0-9a-f]{64}$/);
  const one = await s.get('?plant=p1', 'au1');
  assert.deepEqual(one.body.commands.map((c) => c.plant), ['p1']);
  assert.deepEqual((await s.get('', 'au1')).body.commands.map((c) => c.plant), ['p1'], 'a scoped auditor sees its plants only');
  const other = await s.get('?plant=p2', 'au1');
  assert.deepEqual([other.status, other.body.error.code], [403, 'E_FORBIDDEN']);
  for (const tok of ['tw', 'vw', 'ed']) {
    const r = await s.get('?plant=p1', tok);
    assert.deepEqual([r.status, r.body.error.code], [403, 'E_FORBIDDEN'], tok);
  }
  const q = await s.get('?plant=p1&token=vw');
  assert.equal(q.status, 403, '?token= is read as well');
  assert.deepEqual([(await s.get('', 'nobody')).status, (await s.get('', 'nobody')).body.error.code], [401, 'E_UNAUTHORIZED']);
  assert.equal(s.handler.counters.forbidden, 5);
});

test('CSV export, and bad windows refused with E_AUDIT_QUERY', async (t) => {
  const s = await serve(t);
  const csv = await s.get('?plant=p1&format=csv', 'au');
  assert.equal(csv.status, 200);
  assert.match(csv.type, /^text\/csv/);
  assert.equal(csv.text.trimEnd().split('\r\n').length, 2);
  const from = new Date(Date.now() + 3600000).toISOString();
  assert.deepEqual((await s.get(`?from=${from}`, 'au')).body.error.code, 'E_AUDIT_QUERY', 'from after to (now)');
  assert.equal((await s.get('?from=yesterday', 'au')).status, 400);
  assert.equal((await s.get('?format=xml', 'au')).status, 400);
  assert.equal((await s.get('?plant=../x', 'au')).status, 400);
  assert.equal((await s.get(`?from=0&to=${Date.now() + 1000}`, 'au')).body.commands.length, 2);
  assert.equal((await s.get('?from=0&to=1', 'au')).body.commands.length, 0);
});

test('in a fleet whose other chains cannot be read, the CSV is refused with 503 E_AUDIT_INCOMPLETE; the JSON says complete: false', async (t) => {
  const redis = { hgetall: async () => { throw new Error('Connection is closed.'); } }; // Redis away
  const s = await serve(t, { share: { redis } });
  const csv = await s.get('?plant=p1&format=csv', 'au');
  assert.equal(csv.status, 503);
  assert.equal(csv.body.error.code, 'E_AUDIT_INCOMPLETE');
  assert.match(csv.body.error.msg, /Connection is closed/);
  assert.equal(s.handler.counters.incomplete, 1);
  const json = await s.get('?plant=p1', 'au');
  assert.equal(json.status, 200);
  assert.deepEqual([json.body.complete, json.body.commands.length], [false, 1], 'this instance\'s commands, marked incomplete');
  assert.match(json.body.error, /Connection is closed/);
});

test('the editor login: with adminAuth, Node-RED\'s check decides; without one, a request with no token is the admin', async (t) => {
  let asked = null;
  const needsPermission = (perm) => (req, res, next) => {
    asked = perm;
    if (req.headers.authorization === 'Bearer admin-session') { req.user = { username: 'admin' }; next(); return; }
    if (req.headers.authorization) { res.status(401).end(); return; }
    next(); // no credentials at all: Node-RED passes on without a user
  };
  const s = await serve(t, { adminAuth: true, needsPermission });
  assert.equal((await s.get('', 'admin-session')).status, 200);
  assert.equal(asked, 's7twin.audit');
  assert.equal((await s.get('')).status, 401, 'no login');
  assert.equal((await s.get('', 'tw')).status, 403, 'our own tokens are judged before the login');

  const open = await serve(t);
  assert.equal((await open.get('')).status, 200, 'no editor login: the admin API is open, and so is this');
});

test('readQuery: a plant in scope, a window of the last day by default', () => {
  const q = readQuery(new URLSearchParams(''), ['p1', 'p2'], 100 * 86400000);
  assert.deepEqual(q, { plant: ['p1', 'p2'], from: 99 * 86400000, to: 100 * 86400000, csv: false });
  assert.equal(readQuery(new URLSearchParams('plant=*'), ['p1'], 1e12).plant[0], 'p1', '* means all of its plants');
  assert.equal(readQuery(new URLSearchParams('from=2026-01-01T00:00:00Z&to=2026-01-02'), '*', 0).from, Date.parse('2026-01-01T00:00:00Z'));
});
