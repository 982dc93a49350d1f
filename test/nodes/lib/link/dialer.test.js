'use strict';
/**
 * The link's two ends as libraries, over real sockets on 127.0.0.1: lib/link/endpoint.js on a
 * plain HTTP server, lib/link/dialer.js dialing it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { createEndpoint } = require('../../../../nodes/lib/link/endpoint');
const { createDialer } = require('../../../../nodes/lib/link/dialer');
const { openClient, waitFor } = require('../../../helpers/nodes');

const env = (k, seq, d, more = {}) => ({ v: 1, k, src: 'edge-u', seq, ts: Date.now(), d, ...more });

/** An HTTP server with an endpoint; `accepting = false` answers upgrades with 503. */
async function startServer(epOpts = {}, port = 0) {
  const ep = createEndpoint({ path: '/s7twin/edge', role: 'edge', tokens: ['tok'], src: 'cloud-u', ...epOpts });
  const server = http.createServer((req, res) => { res.statusCode = 404; res.end(); });
  const ctl = { accepting: true, ep, server };
  server.on('upgrade', (req, socket, head) => {
    if (!ctl.accepting) { socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n'); return; }
    if (!ep.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  ctl.url = `ws://127.0.0.1:${server.address().port}/s7twin/edge`;
  ctl.got = [];
  ctl.invalid = [];
  ep.on('envelope', (e) => ctl.got.push(e));
  ep.on('invalid', (e) => ctl.invalid.push(e));
  ctl.stop = async () => {
    await ep.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return ctl;
}

test('while the cloud is unreachable: states coalesce, answers drop, back-off grows; '
  + 'after reconnect the snapshot goes first with pending values under it', async (t) => {
  const srv = await startServer();
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u', backoff: { initialMs: 20, maxMs: 200 } });
  t.after(async () => { await d.close(); await srv.stop(); });
  const connects = [];
  d.on('connect', () => connects.push(Date.now()));
  d.start();
  await waitFor(() => d.connected);
  d.send(env('state', 1, { c1: 1 }));
  await waitFor(() => srv.got.length === 1);

  srv.accepting = false;
  srv.ep.client(srv.ep.clientIds()[0]).ws.terminate();
  await waitFor(() => !d.connected);
  assert.equal(d.send(env('state', 2, { c1: 0, red: 1 })), 'queued');
  assert.equal(d.send(env('state', 3, { red: 0, grn: 1 })), 'queued');
  assert.equal(d.send(env('ack', 4, undefined, { ref: { src: 't', seq: 1 } })), 'dropped');
  await waitFor(() => d.backoffAttempt >= 3, 20000, 'several refused attempts');
  assert.equal(d.counters.coalesced, 1);
  assert.equal(d.counters.dropped, 1);

  srv.accepting = true;
  await waitFor(() => connects.length === 2, 20000, 'the reconnect');
  // What the flow does on 'connect': send a snapshot. It covers c1 and grn, not red.
  d.send(env('snap', 5, { c1: 1, grn: 1 }));
  await waitFor(() => srv.got.length === 2);
  // Pending values the snapshot does not cover (red) ride under it in the same frame.
  assert.deepEqual([srv.got[1].k, srv.got[1].seq, srv.got[1].d], ['snap', 5, { c1: 1, grn: 1, red: 0 }]);
  assert.equal(srv.ep.counters.duplicates, 0);
  assert.equal(d.counters.reconnects, 1);
});

test('without a snapshot the pending state is sent alone after snapWaitMs', async (t) => {
  const srv = await startServer();
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u', snapWaitMs: 50, backoff: { initialMs: 20, maxMs: 100 } });
  t.after(async () => { await d.close(); await srv.stop(); });
  d.send(env('state', 1, { c1: 1 }));
  d.start();
  await waitFor(() => srv.got.length === 1);
  assert.deepEqual(srv.got[0].d, { c1: 1 });
});

test('a wrong token is refused (E_AUTH counted) and retried with back-off', async (t) => {
  const srv = await startServer();
  const d = createDialer({ url: srv.url, token: 'bad', src: 'edge-link-u', backoff: { initialMs: 20, maxMs: 100 } });
  const failures = [];
  d.on('failure', (e) => failures.push(e.code));
  t.after(async () => { await d.close(); await srv.stop(); });
  d.start();
  await waitFor(() => d.counters.authFailures >= 2);
  assert.equal(failures[0], 'E_AUTH');
  assert.equal(srv.ep.counters.refused >= 2, true);
  assert.equal(srv.ep.counters.accepted, 0);
});

test('heartbeat: a cloud that stops answering syncs is dropped and redialled; the cloud drops the silent edge and takes the new one', async (t) => {
  const srv = await startServer({ linkTimeoutMs: 600 });
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u', heartbeatMs: 50, linkTimeoutMs: 300, backoff: { initialMs: 20, maxMs: 100 } });
  t.after(async () => { await d.close(); await srv.stop(); });
  d.start();
  await waitFor(() => d.connected && srv.ep.edgeReady());
  assert.ok(d.counters.syncs >= 1 && d.clockOffset() !== null, 'the first sync was answered');
  srv.ep.client(srv.ep.clientIds()[0]).ws._socket.pause(); // half-open: the cloud reads nothing
  await waitFor(() => d.counters.timeouts >= 1, 20000, 'a heartbeat timeout at the edge');
  // The cloud drops the silent edge on its own timeout, or when the edge dials again after it
  // (a newcomer is taken only once the current edge has been silent for linkTimeoutMs).
  await waitFor(() => srv.ep.counters.timeouts + srv.ep.counters.staleEdges >= 1, 20000, 'the cloud to drop the silent edge');
  await waitFor(() => d.counters.reconnects >= 1 && d.connected && srv.ep.edgeReady(), 20000, 'a new link');
  assert.equal(srv.ep.counters.connections, 1);
});

test('a restarted cloud that already used some frame numbers is heard: syncs answered, a clock estimate again', async (t) => {
  const srv = await startServer();
  const port = Number(new URL(srv.url).port);
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u', heartbeatMs: 30, backoff: { initialMs: 20, maxMs: 100 } });
  t.after(() => d.close());
  d.start();
  await waitFor(() => d.counters.syncs >= 20, 20000, 'twenty syncs answered by the first cloud');
  await srv.stop();
  const again = await startServer({}, port);
  t.after(() => again.stop());
  // Numbers the new cloud's edge endpoint used before the edge came back (E_EDGE_DOWN answers).
  for (let i = 0; i < 5; i += 1) again.ep.errorFor({ src: 'twin-x', seq: i + 1 }, 'E_EDGE_DOWN', 'no edge');
  const before = d.counters.syncs;
  await waitFor(() => d.connected && d.counters.syncs >= before + 3, 20000, 'syncs answered by the restarted cloud');
  assert.notEqual(d.clockOffset(), null);
  assert.equal(d.counters.duplicates, 0, 'its frames were not taken for duplicates of the old cloud\'s');
});

test('server keepalive: a twin that stops answering pings is terminated', async (t) => {
  const srv = await startServer({ pingMs: 100, role: 'twin' });
  t.after(() => srv.stop());
  const c = await openClient(srv.url, { token: 'tok' });
  c.ws._socket.pause();
  await waitFor(() => srv.ep.counters.timeouts === 1 && srv.ep.counters.connections === 0, 20000, 'the server to drop the silent peer');
  c.ws.terminate();
});

test('server keepalive pings only silent peers: a busy twin is never pinged, an idle one is and stays', async (t) => {
  const srv = await startServer({ pingMs: 300, role: 'twin' });
  t.after(() => srv.stop());
  const busy = await openClient(srv.url, { token: 'tok' });
  const idle = await openClient(srv.url, { token: 'tok' });
  t.after(() => { busy.ws.terminate(); idle.ws.terminate(); });
  const pings = { busy: 0, idle: 0 };
  busy.ws.on('ping', () => { pings.busy += 1; });
  idle.ws.on('ping', () => { pings.idle += 1; });
  let seq = 0;
  const timer = setInterval(() => busy.ws.send(JSON.stringify(env('cmd', ++seq, { se: 1 }, { src: 'twin-busy' }))), 20);
  t.after(() => clearInterval(timer));
  await waitFor(() => pings.idle >= 3, 20000, 'three pings to the idle peer');
  clearInterval(timer);
  assert.ok(pings.busy <= 1, `the busy peer was pinged ${pings.busy} times`);
  assert.equal(srv.ep.counters.timeouts, 0, 'an idle peer that answers pings stays');
  assert.equal(srv.ep.counters.connections, 2);
  assert.ok(srv.ep.counters.pings >= 3);
});

test('the dialer answers malformed frames from the cloud with err and drops duplicates', async (t) => {
  const srv = await startServer();
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u' });
  const got = [];
  const invalid = [];
  d.on('envelope', (e) => got.push(e));
  d.on('invalid', (e) => invalid.push(e.code));
  t.after(async () => { await d.close(); await srv.stop(); });
  d.start();
  await waitFor(() => d.connected && srv.ep.clientIds().length === 1);
  const ws = srv.ep.client(srv.ep.clientIds()[0]).ws;
  ws.send('[1,2');
  // The cloud's own frames are judged by their numbers (a relayed request's are its twin's).
  ws.send(JSON.stringify(env('state', 1, { se: 1 }, { src: 'cloud-z' })));
  ws.send(JSON.stringify(env('state', 1, { se: 1 }, { src: 'cloud-z' })));
  // The edge's err about a frame it could not read answers nothing a twin sent: counted at the
  // cloud and reported, never relayed to twins.
  await waitFor(() => srv.ep.counters.edgeErrors === 1);
  assert.equal(srv.invalid[0].code, 'E_JSON');
  assert.equal(srv.got.filter((e) => e.k === 'err').length, 0);
  await waitFor(() => d.counters.duplicates === 1);
  assert.equal(got.length, 1);
  assert.deepEqual(invalid, ['E_JSON']);
});

test('a 409 (the plant held by another edge, or a dead instance\'s lease) is retried after takenRetryMs, not the growing back-off', async (t) => {
  const attempts = [];
  const srv = http.createServer();
  srv.on('upgrade', (req, socket) => {
    attempts.push(Date.now());
    socket.end('HTTP/1.1 409 Conflict\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const d = createDialer({
    url: `ws://127.0.0.1:${srv.address().port}/s7twin/edge`, src: 'edge-t', plant: 'plant1', backoff: { initialMs: 4000, maxMs: 8000, jitter: 0 }, takenRetryMs: 150,
  });
  const failures = [];
  d.on('failure', (err) => failures.push(err.code));
  d.start();
  t.after(() => d.close());
  await waitFor(() => attempts.length >= 3, 5000, 'three attempts within the back-off\'s first step');
  assert.ok(failures.includes('E_EDGE_TAKEN'));
  assert.ok(attempts[2] - attempts[0] < 3000, `retried at once after 409s (${attempts.map((a) => a - attempts[0]).join(', ')} ms), not 4 s and 8 s apart`);
});

test('the plant\'s table goes first on every connection: the cloud learns it, or sends an edge with another table away', async (t) => {
  const path = require('node:path');
  const { loadTable, createTable, createTableRegistry, demoTable } = require('../../../../nodes/lib/core/io-table');
  const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });
  const tables = createTableRegistry({ fallback: demoTable, createTable });
  const { parseGrants } = require('../../../../nodes/lib/access/auth');
  const srv = await startServer({ tables, grants: parseGrants('any-plant:edge:*') });
  const d = createDialer({ url: srv.url, token: 'any-plant', plant: 'tank1', src: 'edge-link-t', table: tank, backoff: { initialMs: 20, maxMs: 100 } });
  t.after(async () => { await d.close(); await srv.stop(); });
  d.start();
  await waitFor(() => tables.source('tank1') === 'edge', 5000, 'the cloud learned the tank\'s table');
  d.send(env('state', 1, { lvl: 12.5, rca: 'Milk' }));
  await waitFor(() => srv.got.some((e) => e.d && e.d.rca === 'Milk'), 5000, 'a state of the tank\'s tags passes');
  // Another plant, configured with the demo table: this edge's tank table is refused, the link closed.
  tables.set('plant9', demoTable(), 'cfg');
  const failures = [];
  const d2 = createDialer({ url: srv.url, token: 'any-plant', plant: 'plant9', src: 'edge-link-9', table: tank, backoff: { initialMs: 1000, maxMs: 1000 } });
  t.after(() => d2.close());
  d2.on('disconnect', (code, reason) => failures.push([code, reason]));
  d2.start();
  await waitFor(() => failures.length > 0, 5000, 'the edge with another table sent away');
  assert.deepEqual(failures[0], [1008, 'E_TABLE_MISMATCH']);
});

/** A cloud with a real plant history filing backfill, and an edge dialer with a real journal. */
async function storeAndForward(t, encoding, forward, more = {}) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { createStateStore } = require('../../../../nodes/lib/history/state-store');
  const { backfillFiler } = require('../../../../nodes/lib/history/state-history');
  const { createJournal } = require('../../../../nodes/lib/link/journal');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-sf-'));
  const store = createStateStore({ file: path.join(dir, 'history.sqlite'), flushMs: 20 });
  const order = []; // what reached the cloud, in order: live kinds, and 'backfill'
  const file = backfillFiler(store);
  const srv = await startServer({ fileBackfill: (plant, e) => { order.push('backfill'); return file(plant, e); } });
  srv.ep.on('envelope', (e, id, plant) => { order.push(e.k); store.add(plant, e); });
  const journal = createJournal({ dir: path.join(dir, 'journal') });
  const d = createDialer({ url: srv.url, token: 'tok', src: 'edge-link-u', encoding, journal, forward, backoff: { initialMs: 20, maxMs: 100 }, ...more });
  t.after(async () => { await d.close(); journal.close(); await srv.stop(); store.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const history = () => store.query({ plant: 'plant1', from: 0, to: Date.now() + 60000 }).frames;
  return { srv, d, journal, store, order, history };
}

for (const encoding of ['compact', 'json']) {
  test(`store and forward (${encoding}): the states of an outage reach the history in order as backfill, after the live snapshot`, async (t) => {
    // One sync only (on connect): the state sent before the drop is never confirmed by an answer.
    const s = await storeAndForward(t, encoding, undefined, { heartbeatMs: 60000, linkTimeoutMs: 120000 });
    s.d.start();
    await waitFor(() => s.d.connected && s.d.clockOffset() !== null);
    assert.equal(s.d.counters.encoding, encoding === 'compact' ? 's7twin.v1+msgpack' : 's7twin.v1+json');
    s.d.send(env('state', 1, { c1: 1 }));
    await waitFor(() => s.order.length === 1);
    const offset = s.d.clockOffset().offset;
    s.srv.accepting = false;
    s.srv.ep.client(s.srv.ep.clientIds()[0]).ws.terminate();
    await waitFor(() => !s.d.connected);
    assert.equal(s.journal.pending, 1, 'the state written on the link that died, unconfirmed');
    const ts = Date.now();
    for (let i = 2; i <= 21; i++) s.d.send(env('state', i, { nb: i, c1: i % 2 }, { ts: ts + i }));
    s.d.send(env('ack', 22, undefined, { ref: { src: 't', seq: 1 } }));
    assert.equal(s.journal.pending, 21);
    s.srv.accepting = true;
    await waitFor(() => s.d.connected);
    s.d.send(env('snap', 23, { c1: 0, grn: 1 }));
    await waitFor(() => s.journal.pending === 0 && s.d.counters.backfill.inflight === 0, 10000, 'the journal forwarded and answered');
    assert.deepEqual(s.order.slice(0, 2), ['state', 'snap'], 'the live snapshot before any backfill');
    assert.equal(s.order.filter((k) => k === 'backfill').length, 20);
    const bf = s.history().filter((f) => f.k === 'backfill');
    assert.deepEqual(bf.map((f) => f.d.nb), Array.from({ length: 20 }, (x, i) => i + 2), 'every state of the outage, in order');
    assert.deepEqual(bf.map((f) => f.ets - ts), Array.from({ length: 20 }, (x, i) => i + 2), 'with the edge\'s timestamps');
    for (const f of bf) assert.ok(Math.abs(f.t - (f.ets + offset)) <= 1, 'filed under that time on the cloud\'s clock');
    assert.equal(s.srv.got.filter((e) => e.k === 'backfill').length, 0, 'never passed on to the flow');
    assert.equal(s.srv.ep.counters.backfillKnown, 1, 'the unconfirmed state had reached the cloud live: not filed again');
    assert.deepEqual(s.history().filter((f) => f.d.c1 === 1 && f.d.nb === undefined).map((f) => f.k), ['state'], 'it is in the history once');
    assert.equal(s.srv.ep.counters.errors, 0);
  });
}

test('store and forward: a link that drops again mid-forward loses nothing and files nothing twice', async (t) => {
  const s = await storeAndForward(t, 'compact', { window: 8, burst: 4, pollMs: 5 });
  for (let i = 1; i <= 60; i++) s.d.send(env('state', i, { nb: i })); // journalled: the edge started while the cloud was unreachable
  assert.equal(s.journal.pending, 60);
  s.d.start();
  await waitFor(() => s.d.counters.backfill.answered >= 2 && s.d.counters.backfill.inflight > 0, 10000, 'the forward under way, frames unanswered');
  s.srv.ep.client(s.srv.ep.clientIds()[0]).ws.terminate(); // the link drops with frames sent and unanswered
  await waitFor(() => s.d.counters.reconnects === 1);
  s.d.send(env('snap', 61, { c1: 0 }));
  await waitFor(() => s.journal.pending === 0 && s.d.counters.backfill.inflight === 0, 10000, 'the rest forwarded');
  const bf = s.history().filter((f) => f.k === 'backfill');
  assert.deepEqual(bf.map((f) => f.d.nb), Array.from({ length: 60 }, (x, i) => i + 1), 'each once, in order');
  assert.ok(s.d.counters.backfill.sent > 60, `some were sent twice (${s.d.counters.backfill.sent}) and filed once`);
});
