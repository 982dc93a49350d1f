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
    tokens: ['tw'], viewerTokens: ['vw'], src: 'cloud-rest',
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
  return { rest, relayed, call, base, down: () => { reach = 0; } };
}
const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw-r', seq, ts: 1, d: { st: 1 }, ...more });
const edge = envelope.createSender('edge-s7');

test('errorStatus: the HTTP status of each err code, 400 for bad input, 502 for the rest', () => {
  assert.deepEqual(['E_UNAUTHORIZED', 'E_READ_ONLY', 'E_EDGE_DOWN', 'E_TIMEOUT', 'E_RANGE', 'E_PLC_WHATEVER'].map(errorStatus), [401, 403, 503, 504, 400, 502]);
});

/** The edge's answer to relayed command i (the endpoint relays under its own ref). */
const refOf = (s, i) => ({ src: s.relayed[i].src, seq: s.relayed[i].seq });

test('a command is relayed with the endpoint\'s deadline and answered with the edge\'s ack; a repeat is E_DUPLICATE', async (t) => {
  const s = await serve(t, { lifetimeMs: 700 });
  const pending = s.call('POST', '/cmd', 'tw', cmd(1, { dl: 1 }));
  await waitFor(() => s.relayed.length === 1);
  assert.ok(s.relayed[0].dl > 1000, 'a dl the client sent means nothing');
  assert.deepEqual(refOf(s, 0), { src: 'cloud-rest:c', seq: 1 }, 'relayed under the endpoint\'s own sender id');
  s.rest.fromEdge(edge.make('ack', { ref: { src: 'tw-r', seq: 1 } }));
  assert.equal(s.rest.counters.pending, 1, 'an answer to the client\'s ref is not the edge\'s to this command');
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0) }));
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

test('a command waits for its answer as long as its lifetime allows, not a fixed 5 s; one never answered is E_OUTCOME_UNKNOWN (504)', async (t) => {
  const s = await serve(t);
  const slow = s.call('POST', '/cmd', 'tw', cmd(1, { ttl: 9000 }));
  await waitFor(() => s.relayed.length === 1);
  await new Promise((r) => setTimeout(r, 5300)); // the edge answers late in the command's 9 s lifetime
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0) }));
  const res = await slow;
  assert.deepEqual([res.status, res.body.k], [200, 'ack']);
  const never = await s.call('POST', '/cmd', 'tw', cmd(2, { ttl: 100 }));
  assert.deepEqual([never.status, never.body.e.code], [504, 'E_OUTCOME_UNKNOWN'], 'past its deadline and the link\'s grace: unknown, never E_TIMEOUT');
});

test('the Idempotency-Key header is the command\'s key; a body key that differs from it is refused', async (t) => {
  const s = await serve(t);
  const post = (env, key) => fetch(`${s.base}/cmd`, {
    method: 'POST', headers: { Authorization: 'Bearer tw', ...(key ? { 'Idempotency-Key': key } : {}) }, body: JSON.stringify(env),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const first = post(cmd(1), 'order-42');
  await waitFor(() => s.relayed.length === 1);
  assert.equal(s.relayed[0].key, 'order-42');
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0), key: 'order-42' }));
  assert.equal((await first).body.key, 'order-42');
  const clash = await post(cmd(2, { key: 'other' }), 'order-42');
  assert.deepEqual([clash.status, clash.body.e.code], [400, 'E_SCHEMA']);
  const bad = await post(cmd(3), 'has space');
  assert.deepEqual([bad.status, bad.body.e.code], [400, 'E_SCHEMA']);
  assert.equal(s.relayed.length, 1);
});

test('the same request sent again with its key is relayed again, not refused E_DUPLICATE; each copy gets its own answer with the client\'s ref', async (t) => {
  const s = await serve(t);
  const post = (env, key) => fetch(`${s.base}/cmd`, {
    method: 'POST', headers: { Authorization: 'Bearer tw', ...(key ? { 'Idempotency-Key': key } : {}) }, body: JSON.stringify(env),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
  // The client gave up waiting on the first and sends the very same request while it is still on its way.
  const first = post(cmd(7), 'k-7');
  await waitFor(() => s.relayed.length === 1);
  const second = post(cmd(7), 'k-7');
  await waitFor(() => s.relayed.length === 2);
  assert.notDeepEqual(refOf(s, 0), refOf(s, 1), 'two requests downstream');
  assert.deepEqual(s.relayed.map((e) => e.key), ['k-7', 'k-7']);
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 1), key: 'k-7', repeat: true }));
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0), key: 'k-7' }));
  const [a, b] = await Promise.all([first, second]);
  assert.deepEqual([a.status, a.body.ref, a.body.repeat], [200, { src: 'tw-r', seq: 7 }, undefined]);
  assert.deepEqual([b.status, b.body.ref, b.body.repeat], [200, { src: 'tw-r', seq: 7 }, true]);
  assert.deepEqual([s.rest.counters.keyed, s.rest.counters.repeats, s.rest.counters.duplicates], [2, 1, 0]);
  const plain = await post(cmd(7));
  assert.deepEqual([plain.status, plain.body.e.code], [409, 'E_DUPLICATE'], 'without a key a (src, seq) is taken once');
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
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0) }));
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
  s.rest.fromEdge(edge.make('ack', { ref: refOf(s, 0) }));
  assert.equal((await ok).status, 200);
});
