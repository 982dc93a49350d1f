'use strict';
/**
 * The HTTP polling path: the REST endpoint (nodes/lib/web/rest.js) on a real HTTP server with
 * a stand-in edge (the PLC program on a scan timer), and the headless twin's http transport
 * (twin/transports/http.js) against it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startRestHarness } = require('../../helpers/twin');
const { runTwin } = require('../../../twin/run');
const { createTransport } = require('../../../twin/transports/http');
const envelope = require('../../../nodes/lib/core/envelope');

const call = async (url, { token = 'T', method = 'GET', body } = {}) => {
  const headers = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) };
  const r = await fetch(url, { method, body, headers });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
};

test('runTwin sorts 10 boxes over HTTP polling: every command acknowledged, every timed pair recorded, bytes counted', async (t) => {
  const h = await startRestHarness();
  t.after(() => h.close());
  const r = await runTwin({ protocol: 'http', url: h.url, token: 'T', boxes: 10, damaged: '0010', seed: 1 });
  assert.equal(r.ok, true, r.reason);
  assert.equal(r.missorted, 0);
  assert.equal(r.rejected, r.damaged);
  assert.equal(r.samples.p1bw.length, 10);
  assert.equal(r.samples.p3fw.length, r.packed);
  assert.equal(r.errors, 0, JSON.stringify(r.errorCodes));
  assert.equal(r.transport.acks + r.transport.inFlight, r.transport.sent, 'one answer per command, every one an ack (the last may still be on its way)');
  assert.ok(r.transport.polls > 10);
  assert.ok(r.transport.bytesOut > r.transport.bodyBytesOut, 'socket bytes include the HTTP headers');
  assert.ok(r.transport.bytesIn > r.transport.bodyBytesIn);
  assert.equal(h.outputs.grn, 0, 'left stopped');
});

test('GET state: a snap with the version, then every state frame since, 204 when nothing is new, a snap when the version is unknown', async (t) => {
  const h = await startRestHarness({ viewerTokens: ['V'] });
  t.after(() => h.close());
  const first = await call(`${h.url}/state`, { token: 'V' });
  assert.equal(first.status, 200, 'a viewer may read');
  assert.equal(first.body.length, 1);
  assert.equal(first.body[0].k, 'snap');
  envelope.validate(first.body[0]);
  const v = first.body[0].seq;
  assert.equal((await call(`${h.url}/state?since=${v}`)).status, 204);
  const sender = envelope.createSender('twin-t1');
  assert.equal((await call(`${h.url}/cmd`, { method: 'POST', body: JSON.stringify(sender.make('cmd', { d: { st: 1 } })) })).body.k, 'ack');
  let frames = [];
  for (let i = 0; i < 200 && !frames.some((f) => f.d.grn === 1); i++) {
    const r = await call(`${h.url}/state?since=${v}`);
    if (r.status === 200) frames = r.body;
    await new Promise((res) => setTimeout(res, 10));
  }
  assert.ok(frames.every((f) => f.k === 'state' && f.seq > v), 'only the frames after the version asked for');
  assert.ok(frames.some((f) => f.d.grn === 1), 'the PLC started');
  const unknown = await call(`${h.url}/state?since=999999`);
  assert.equal(unknown.body[0].k, 'snap', 'a version from another life of the endpoint: the whole state');
  assert.equal(unknown.body[0].d.grn, 1);
  await call(`${h.url}/cmd`, { method: 'POST', body: JSON.stringify(sender.make('cmd', { d: { st: 0, sp: 1 } })) });
});

test('POST cmd refuses bad input with a status and an err envelope, and relays nothing it refused', async (t) => {
  const h = await startRestHarness({ viewerTokens: ['V'], answerSlackMs: 300 });
  t.after(() => h.close());
  const s = envelope.createSender('twin-t2');
  const post = (body, token) => call(`${h.url}/cmd`, { method: 'POST', body, token });
  let r = await call(`${h.url}/state`, { token: null });
  assert.equal(r.status, 401);
  assert.equal(r.body.e.code, 'E_UNAUTHORIZED');
  assert.equal((await call(`${h.url}/state`, { token: 'nope' })).status, 401);
  r = await post(JSON.stringify(s.make('cmd', { d: { st: 1 } })), 'V');
  assert.equal(r.status, 403);
  assert.equal(r.body.e.code, 'E_READ_ONLY');
  assert.equal(h.relayed.length, 0, 'a viewer\'s command goes nowhere');
  r = await post('{not json');
  assert.equal(r.status, 400);
  assert.equal(r.body.e.code, 'E_JSON');
  r = await post(JSON.stringify(s.make('probe', { d: { 1: 5 } })));
  assert.equal(r.body.e.code, 'E_KIND');
  r = await post(JSON.stringify({ ...s.make('cmd', { d: { st: 1 } }), v: 2 }));
  assert.equal(r.body.e.code, 'E_VERSION');
  r = await post(JSON.stringify(s.make('cmd', { d: { x: 'y'.repeat(70000) } })));
  assert.equal(r.status, 413);
  assert.equal(h.relayed.length, 0);
  // Checked by the edge: an unknown tag is answered by it, with the status of a client error.
  r = await post(JSON.stringify(s.make('cmd', { d: { c1: 1 } })));
  assert.equal(r.status, 400);
  assert.equal(r.body.e.code, 'E_NOT_WRITABLE');
  assert.deepEqual(r.body.ref, { src: 'twin-t2', seq: s.seq });
  const again = s.make('cmd', { d: { st: 0 } });
  assert.equal((await post(JSON.stringify(again))).status, 200);
  r = await post(JSON.stringify(again));
  assert.equal(r.status, 409);
  assert.equal(r.body.e.code, 'E_DUPLICATE');
  h.setEdge('down');
  r = await post(JSON.stringify(s.make('cmd', { d: { st: 0 } })));
  assert.equal(r.status, 503);
  assert.equal(r.body.e.code, 'E_EDGE_DOWN');
  h.setEdge('silent');
  r = await post(JSON.stringify(s.make('cmd', { d: { st: 0 } })));
  assert.equal(r.status, 504);
  assert.equal(r.body.e.code, 'E_OUTCOME_UNKNOWN', 'no answer by its deadline (and the way back): unknown');
  assert.equal(h.rest.counters.pending, 0);
  assert.equal((await call(`${h.url}/state`, { method: 'DELETE' })).status, 405);
  assert.equal((await call(`${h.url}/nothing`)).status, 404);
  const c = h.rest.counters;
  assert.equal(c.readOnly, 1);
  assert.equal(c.unauthorized, 2);
  assert.equal(c.duplicates, 1);
  assert.equal(c.edgeDown, 1);
  assert.equal(c.timeouts, 1);
});

test('the http transport: a refused token is final, an endpoint that is not there times out the connect', async (t) => {
  const h = await startRestHarness();
  t.after(() => h.close());
  const bad = createTransport({ url: h.url, token: 'wrong' });
  await assert.rejects(bad.connect(), { code: 'E_UNAUTHORIZED' });
  await bad.close();
  const none = createTransport({ url: 'http://127.0.0.1:9/s7twin/rest', token: 'T', connectTimeoutMs: 800, backoff: { initialMs: 50, maxMs: 100 } });
  await assert.rejects(none.connect(), { code: 'E_CONNECT_TIMEOUT' });
  await none.close();
  assert.throws(() => createTransport({ url: 'ws://x' }), { code: 'E_TRANSPORT_CONFIG' });
});

test('the http transport reconnects after the endpoint was unreachable, and sends what changed meanwhile, not its whole image', async (t) => {
  const h = await startRestHarness();
  const real = require('../../../twin/transports/http').nodeRequest({ in: 0, out: 0 }, 5000);
  let fail = false;
  const request = (r) => (fail ? Promise.reject(Object.assign(new Error('network down'), { code: 'ECONNRESET' })) : real(r));
  const tr = createTransport({ url: h.url, token: 'T', request, backoff: { initialMs: 20, maxMs: 50 } });
  t.after(async () => { await tr.close(); real.close(); await h.close(); });
  const seen = [];
  tr.onValues((d, kind) => seen.push(kind));
  await tr.connect();
  tr.send({ se: 1 });
  await waitUntil(() => tr.stats().acks === 1);
  fail = true;
  await waitUntil(() => !tr.stats().connected);
  const connects = tr.stats().connects;
  tr.send({ p1f: 1 }); // while down: kept in the image, not sent
  assert.equal(tr.stats().coalesced, 1);
  fail = false;
  await waitUntil(() => tr.stats().connects > connects && tr.stats().acks >= 2);
  const last = h.relayed[h.relayed.length - 1];
  assert.deepEqual(last.d, { p1f: 1 }, 'what changed while down; se was acknowledged');
  assert.ok(tr.stats().reconnects >= 1);
  assert.equal(seen[0], 'snap');
});

async function waitUntil(fn, ms = 10000) {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
