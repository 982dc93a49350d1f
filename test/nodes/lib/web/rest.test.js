'use strict';
/**
 * lib/web/rest.js on a bare HTTP server: tokens and roles, one answer per command (the edge's,
 * E_EDGE_DOWN, E_DUPLICATE, E_CLOSED), and polls of the state by version.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createRestEndpoint, errorStatus } = require('../../../../nodes/lib/web/rest');
const { waitFor } = require('../../../../system/wait');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { tokenId } = require('../../../../nodes/lib/access/auth');

async function serve(t, opts = {}) {
  const relayed = [];
  let reach = 1;
  const rest = createRestEndpoint({
    tokens: ['tw'], viewerTokens: ['vw'], src: 'cloud-rest', answerTimeoutMs: 60000,
    relay: (env) => { relayed.push(env); return reach; }, ...opts,
  });
  const server = http.createServer((req, res) => rest.handle(req, res));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => { rest.close(); server.closeAllConnections(); await new Promise((r) => server.close(r)); });
  const base = `http://127.0.0.1:${server.address().port}`;
  const call = async (method, path, token, body) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { rest, relayed, call, down: () => { reach = 0; } };
}
const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw-r', seq, ts: 1, d: { st: 1 }, ...more });
const edge = envelope.createSender('edge-s7');

test('errorStatus: the HTTP status of each err code, 400 for bad input, 502 for the rest', () => {
  assert.deepEqual(['E_UNAUTHORIZED', 'E_READ_ONLY', 'E_EDGE_DOWN', 'E_TIMEOUT', 'E_RANGE', 'E_PLC_WHATEVER'].map(errorStatus), [401, 403, 503, 504, 400, 502]);
});

test('a command is relayed with the endpoint\'s deadline and answered with the edge\'s ack; a repeat is E_DUPLICATE', async (t) => {
  const s = await serve(t, { lifetimeMs: 700 });
  const pending = s.call('POST', '/cmd', 'tw', cmd(1, { dl: 1 }));
  await waitFor(() => s.relayed.length === 1);
  assert.ok(s.relayed[0].dl > 1000, 'a dl the client sent means nothing');
  s.rest.fromEdge(edge.make('ack', { ref: { src: 'tw-r', seq: 1 } }));
  const res = await pending;
  assert.deepEqual([res.status, res.body.k, res.body.ref], [200, 'ack', { src: 'tw-r', seq: 1 }]);
  const again = await s.call('POST', '/cmd', 'tw', cmd(1));
  assert.deepEqual([again.status, again.body.e.code], [409, 'E_DUPLICATE']);
  assert.equal(s.rest.counters.acks, 1);
});

test('who may do what: no token 401, a viewer may read but not command (403), wrong routes and methods refused', async (t) => {
  const s = await serve(t);
  assert.equal((await s.call('GET', '/state')).status, 401);
  const ro = await s.call('POST', '/cmd', 'vw', cmd(1));
  assert.deepEqual([ro.status, ro.body.e.code], [403, 'E_READ_ONLY']);
  assert.equal((await s.call('GET', '/state', 'vw')).body.e.code, 'E_NO_STATE', 'a viewer reads (nothing yet)');
  assert.equal((await s.call('GET', '/nope', 'tw')).status, 404);
  assert.equal((await s.call('GET', '/cmd', 'tw')).status, 405);
  assert.equal((await s.call('POST', '/cmd', 'tw', { ...cmd(2), k: 'probe' })).body.e.code, 'E_KIND');
  assert.equal((await s.call('POST', '/cmd', 'tw', cmd(3, { ttl: 999999 }))).body.e.code, 'E_RANGE');
  assert.equal(s.relayed.length, 0, 'nothing refused was relayed');
});

test('no edge: E_EDGE_DOWN at once; closing answers every command still waiting E_CLOSED', async (t) => {
  const s = await serve(t);
  s.down();
  const down = await s.call('POST', '/cmd', 'tw', cmd(1));
  assert.deepEqual([down.status, down.body.e.code], [503, 'E_EDGE_DOWN']);
  const s2 = await serve(t);
  const waiting = s2.call('POST', '/cmd', 'tw', cmd(1));
  await waitFor(() => s2.rest.counters.pending === 1);
  s2.rest.close();
  const res = await waiting;
  assert.deepEqual([res.status, res.body.e.code, res.body.ref], [503, 'E_CLOSED', { src: 'tw-r', seq: 1 }]);
});

test('polls: the state as a snap with its version, 204 when nothing is new, the state frames since a version', async (t) => {
  const s = await serve(t);
  s.rest.fromEdge(edge.make('state', { d: { grn: 1 } }));
  const first = await s.call('GET', '/state', 'tw');
  assert.deepEqual([first.status, first.body[0].k, first.body[0].d], [200, 'snap', { grn: 1 }]);
  const v = first.body[0].seq;
  assert.equal((await s.call('GET', `/state?since=${v}`, 'tw')).status, 204);
  s.rest.fromEdge(edge.make('state', { d: { red: 1 } }));
  const next = await s.call('GET', `/state?since=${v}`, 'tw');
  assert.deepEqual(next.body.map((e) => [e.k, e.d]), [['state', { red: 1 }]]);
  assert.deepEqual(s.rest.latestState(), { grn: 1, red: 1 });
  assert.equal(s.rest.version, v + 1);
});

test('the command log: every POST cmd recorded as it arrives (who, from where), and its one answer as its outcome', async (t) => {
  const entries = [];
  const audit = createCommandAudit({ log: { append: (e) => { entries.push(e); return true; } } });
  const s = await serve(t, { audit, plant: 'p7', lifetimeMs: 700 });
  const pending = s.call('POST', '/cmd', 'tw', cmd(1, { cid: 'c' }));
  await waitFor(() => s.relayed.length === 1);
  assert.equal(entries.length, 1, 'recorded before the edge answered');
  const arrived = entries[0];
  assert.deepEqual([arrived.kind, arrived.via, arrived.plant, arrived.token, arrived.role, arrived.seq, arrived.dl],
    ['cmd', 'rest', 'p7', tokenId('tw'), 'twin', 1, s.relayed[0].dl]);
  assert.match(arrived.from, /^127\.0\.0\.1:\d+$/);
  assert.ok(!JSON.stringify(entries).includes('"tw"'), 'never the token itself');
  s.rest.fromEdge(edge.make('ack', { ref: { src: 'tw-r', seq: 1 } }));
  await pending;
  await s.call('POST', '/cmd', 'tw', cmd(1));
  await s.call('POST', '/cmd', 'vw', cmd(2));
  s.down();
  await s.call('POST', '/cmd', 'tw', cmd(3));
  const outcomes = entries.filter((e) => e.kind === 'outcome').map((e) => [e.src, e.seq, e.outcome, e.code]);
  assert.deepEqual(outcomes, [
    ['tw-r', 1, 'written', undefined], ['tw-r', 1, 'refused', 'E_DUPLICATE'],
    ['rest-viewer', 0, 'refused', 'E_READ_ONLY'], ['tw-r', 3, 'refused', 'E_EDGE_DOWN'],
  ]);
  assert.equal(entries.filter((e) => e.kind === 'cmd').find((e) => e.src === 'rest-viewer').role, 'viewer');
});

test('a command is checked against the plant\'s table before it is relayed: 400 and its code, nothing relayed', async (t) => {
  const path = require('node:path');
  const file = path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json');
  const tank = require('../../../../nodes/lib/core/io-table').loadTable({ file });
  const s = await serve(t, { table: () => tank });
  for (const [seq, d, code] of [[1, { st: 1 }, 'E_UNKNOWN_TAG'], [2, { lvl: 1 }, 'E_NOT_WRITABLE'], [3, { sp: 101 }, 'E_RANGE'], [4, { rcp: 5 }, 'E_TYPE']]) {
    const res = await s.call('POST', '/cmd', 'tw', cmd(seq, { d }));
    assert.deepEqual([res.status, res.body.e.code], [400, code], JSON.stringify(d));
  }
  assert.equal(s.relayed.length, 0);
  const ok = s.call('POST', '/cmd', 'tw', cmd(5, { d: { sp: 42.5, rcp: 'Milk' } }));
  await waitFor(() => s.relayed.length === 1);
  s.rest.fromEdge(edge.make('ack', { ref: { src: 'tw-r', seq: 5 } }));
  assert.equal((await ok).status, 200);
});
