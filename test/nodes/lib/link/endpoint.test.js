'use strict';
/**
 * lib/link/endpoint.js over real sockets on 127.0.0.1, access and command safety: viewer
 * tokens, what twins may send, deadlines, per-peer limits, one edge per endpoint, and exactly one
 * answer per request relayed to the edge whatever happens to the edge link.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const clock = require('../../../../nodes/lib/core/clock');
const { waitFor } = require('../../../helpers/nodes');
const { startCloud } = require('../../../helpers/cloud');

const cmd = (seq, d, more = {}) => ({ v: 1, k: 'cmd', src: 'twin-a', seq, ts: Date.now(), d, ...more });

test('a viewer gets the plant state but may not drive it; twins send only cmd and probe', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  cloud.twins.send({ v: 1, k: 'state', src: 'edge-s7', seq: 1, ts: Date.now(), d: { grn: 1 } });
  const viewer = await cloud.twin('view');
  t.after(() => viewer.ws.terminate());
  assert.deepEqual((await viewer.next((f) => f.k === 'snap')).d, { grn: 1 });
  viewer.send(cmd(1, { st: 1 }, { cid: 'v1' }));
  const err = await viewer.next((f) => f.k === 'err');
  assert.equal(err.e.code, 'E_READ_ONLY');
  assert.equal(err.cid, 'v1');
  const twin = await cloud.twin();
  t.after(() => twin.ws.terminate());
  twin.send({ v: 1, k: 'state', src: 'twin-b', seq: 1, ts: Date.now(), d: { grn: 1 } });
  assert.equal((await twin.next((f) => f.k === 'err')).e.code, 'E_KIND');
  assert.equal(cloud.toEdge.length, 0, 'nothing was relayed');
  assert.equal(cloud.twins.counters.readOnly, 1);
  await assert.rejects(cloud.twin('nope'), /401/);
});

test('every request gets a deadline on the cloud clock; a ttl past the maximum is refused', async (t) => {
  const cloud = await startCloud({ twin: { lifetimeMs: 700, maxLifetimeMs: 5000 } });
  t.after(() => cloud.stop());
  const twin = await cloud.twin();
  t.after(() => twin.ws.terminate());
  const before = clock.now();
  twin.send(cmd(1, { st: 1 }, { dl: 1 }));
  twin.send(cmd(2, { st: 1 }, { ttl: 3000 }));
  twin.send(cmd(3, { st: 1 }, { ttl: 6000 }));
  await waitFor(() => cloud.toEdge.length === 2);
  const [a, b] = cloud.toEdge;
  assert.ok(a.dl >= before + 700 && a.dl <= clock.now() + 700, 'default lifetime, the twin\'s own dl ignored');
  assert.ok(b.dl >= before + 3000 && b.dl <= clock.now() + 3000);
  assert.equal((await twin.next((f) => f.k === 'err' && f.ref.seq === 3)).e.code, 'E_RANGE');
});

test('a flooding twin and a twin sending bad frames are told why and closed; the others are still served', async (t) => {
  const cloud = await startCloud({ twin: { ratePerS: 50, burst: 100, errors: 5, errorWindowMs: 10000 } });
  t.after(() => cloud.stop());
  const edge = await cloud.edgePeer();
  t.after(() => edge.ws.terminate());
  await edge.sync();
  const good = await cloud.twin();
  const flood = await cloud.twin();
  const bad = await cloud.twin();
  t.after(() => { good.ws.terminate(); flood.ws.terminate(); bad.ws.terminate(); });
  for (let i = 1; i <= 300; i += 1) flood.send({ ...cmd(i, { se: i % 2 }), src: 'twin-flood' });
  for (let i = 0; i < 10; i += 1) bad.send('{oops');
  assert.equal((await flood.closed).code, 1008);
  assert.ok(flood.frames.some((f) => f.k === 'err' && f.e.code === 'E_RATE_LIMIT'));
  assert.equal((await bad.closed).code, 1008);
  assert.ok(bad.frames.some((f) => f.k === 'err' && f.e.code === 'E_ERROR_BUDGET'));
  assert.ok(cloud.twins.counters.rateLimited >= 1 && cloud.twins.counters.errorBudget >= 1);
  // The well-behaved twin's command still goes through and is answered.
  good.send(cmd(1, { st: 1 }));
  const relayed = await edge.next((f) => f.src === 'twin-a' && f.seq === 1);
  edge.send(edge.frame('ack', { ref: { src: relayed.src, seq: relayed.seq } }));
  await good.next((f) => f.k === 'ack');
});

test('one edge at a time: a second is refused while the first heartbeats, taken once the first is silent', async (t) => {
  const cloud = await startCloud({ edge: { linkTimeoutMs: 400 } });
  t.after(() => cloud.stop());
  const first = await cloud.edgePeer();
  t.after(() => first.ws.terminate());
  await first.sync();
  const beat = setInterval(() => first.sync().catch(() => {}), 100);
  await assert.rejects(cloud.edgePeer(), (err) => err.statusCode === 409);
  assert.equal(cloud.edge.counters.edgeRefused, 1);
  clearInterval(beat);
  first.ws._socket.pause(); // silent from now on
  const second = await waitFor(() => cloud.edgePeer().catch(() => null), 20000, 'the second edge to be taken');
  t.after(() => second.ws.terminate());
  await second.sync();
  assert.equal(cloud.edge.counters.connections, 1);
  assert.ok(cloud.edge.edgeReady());
});

test('a request goes to the edge only after its first sync; each gets exactly one answer when the edge link drops', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const twin = await cloud.twin();
  t.after(() => twin.ws.terminate());
  const edge = await cloud.edgePeer();
  twin.send(cmd(1, { st: 1 }));
  assert.equal((await twin.next((f) => f.k === 'err' && f.ref.seq === 1)).e.code, 'E_EDGE_DOWN', 'no request before the first sync');
  await edge.sync();
  twin.send(cmd(2, { st: 1 }));
  twin.send(cmd(3, { sp: 1 }));
  await edge.next((f) => f.src === 'twin-a' && f.seq === 3);
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 2 } }));
  await twin.next((f) => f.k === 'ack' && f.ref.seq === 2);
  edge.ws.terminate(); // the link dies with seq 3 unanswered
  const unknown = await twin.next((f) => f.k === 'err' && f.ref.seq === 3);
  assert.equal(unknown.e.code, 'E_OUTCOME_UNKNOWN');
  await waitFor(() => cloud.edge.counters.connections === 0);
  const answers = twin.frames.filter((f) => f.ref && [2, 3].includes(f.ref.seq));
  assert.equal(answers.length, 2, 'one answer each');
  assert.equal(cloud.edge.counters.inflight, 0);
});

test('a request not answered by its deadline is answered E_OUTCOME_UNKNOWN once; the late answer is dropped', async (t) => {
  const cloud = await startCloud({ edge: { graceMs: 50 } });
  t.after(() => cloud.stop());
  const twin = await cloud.twin();
  const edge = await cloud.edgePeer();
  t.after(() => { twin.ws.terminate(); edge.ws.terminate(); });
  await edge.sync();
  twin.send(cmd(1, { st: 1 }, { ttl: 100 }));
  await edge.next((f) => f.src === 'twin-a');
  const err = await twin.next((f) => f.k === 'err' && f.ref.seq === 1);
  assert.equal(err.e.code, 'E_OUTCOME_UNKNOWN');
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 1 } }));
  await waitFor(() => cloud.edge.counters.lateAnswers === 1);
  assert.equal(twin.frames.filter((f) => f.ref && f.ref.seq === 1).length, 1);
});

test("the edge's state may carry only streamed tags of the I/O table", async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const twin = await cloud.twin();
  const edge = await cloud.edgePeer();
  t.after(() => { twin.ws.terminate(); edge.ws.terminate(); });
  edge.send(edge.frame('state', { d: { red: 1, hack: 1 } }));
  edge.send(edge.frame('state', { d: { ng: 70000 } }));
  edge.send(edge.frame('cmd', { d: { st: 1 } }));
  edge.send(edge.frame('state', { d: { grn: 1 } }));
  assert.deepEqual((await twin.next((f) => f.k === 'state')).d, { grn: 1 });
  await waitFor(() => edge.frames.filter((f) => f.k === 'err').length === 3);
  assert.deepEqual(edge.frames.filter((f) => f.k === 'err').map((f) => f.e.code), ['E_UNKNOWN_TAG', 'E_RANGE', 'E_KIND']);
  assert.equal(twin.frames.filter((f) => f.k === 'state').length, 1);
});

test('two live twins with the same id: the second\'s request with a (src, seq) still in flight is refused E_DUPLICATE, and answers never cross', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const a = await cloud.twin();
  const b = await cloud.twin();
  const edge = await cloud.edgePeer();
  t.after(() => { a.ws.terminate(); b.ws.terminate(); edge.ws.terminate(); });
  await edge.sync();
  a.send(cmd(1, { st: 1 }, { ttl: 5000 }));
  await edge.next((f) => f.k === 'cmd' && f.seq === 1);
  b.send(cmd(1, { sp: 1 }, { ttl: 5000 }));
  const dup = await b.next((f) => f.k === 'err' && f.ref.seq === 1);
  assert.equal(dup.e.code, 'E_DUPLICATE', 'told at once, not lost');
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 1 } }));
  await a.next((f) => f.k === 'ack' && f.ref.seq === 1);
  // B's own numbers are its own: a seq below A's last is a new request of B's.
  a.send(cmd(5, { st: 0 }));
  await edge.next((f) => f.k === 'cmd' && f.seq === 5);
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 5 } }));
  await a.next((f) => f.k === 'ack' && f.ref.seq === 5);
  b.send(cmd(3, { sp: 1 }));
  await edge.next((f) => f.k === 'cmd' && f.seq === 3);
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 3 } }));
  await b.next((f) => f.k === 'ack' && f.ref.seq === 3);
  assert.equal(b.frames.filter((f) => f.k === 'ack' && f.ref.seq !== 3).length, 0, 'B never got A\'s acks');
  assert.equal(a.frames.filter((f) => f.ref && f.ref.seq === 3).length, 0, 'A never got B\'s');
});

test('a twin restarted with a fixed id within a lifetime: its new seq 1 is refused E_DUPLICATE while the old one is in flight', async (t) => {
  const cloud = await startCloud();
  t.after(() => cloud.stop());
  const edge = await cloud.edgePeer();
  t.after(() => edge.ws.terminate());
  await edge.sync();
  const before = await cloud.twin();
  before.send(cmd(1, { st: 1 }, { ttl: 5000 }));
  await edge.next((f) => f.k === 'cmd' && f.seq === 1);
  before.ws.terminate();
  await waitFor(() => cloud.twins.counters.connections === 0);
  const after = await cloud.twin();
  t.after(() => after.ws.terminate());
  after.send(cmd(1, { sp: 1 }, { ttl: 5000 }));
  const dup = await after.next((f) => f.k === 'err' && f.ref.seq === 1);
  assert.equal(dup.e.code, 'E_DUPLICATE');
  edge.send(edge.frame('ack', { ref: { src: 'twin-a', seq: 1 } })); // the OLD command's answer
  await waitFor(() => cloud.twins.counters.unroutable === 1);
  assert.equal(after.frames.filter((f) => f.k === 'ack').length, 0, 'no false ack');
  after.send(cmd(2, { sp: 1 }));
  await edge.next((f) => f.k === 'cmd' && f.seq === 2 && f.d.sp === 1);
});

test('a stepped wall clock changes nothing: an edge that goes silent as the clock steps back is dropped, and a new edge taken', async (t) => {
  const realNow = Date.now;
  t.after(() => { Date.now = realNow; });
  const cloud = await startCloud({ edge: { linkTimeoutMs: 300 } });
  t.after(() => cloud.stop());
  const first = await cloud.edgePeer();
  t.after(() => first.ws.terminate());
  await first.sync();
  Date.now = () => realNow() - 600000; // the cloud's clock is stepped back 10 minutes; the edge goes silent
  await waitFor(() => cloud.edge.counters.timeouts === 1, 5000, 'the silent edge to be dropped');
  const second = await cloud.edgePeer();
  t.after(() => second.ws.terminate());
  await second.sync();
  assert.ok(cloud.edge.edgeReady());
});
