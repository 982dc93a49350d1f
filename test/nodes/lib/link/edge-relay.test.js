'use strict';
/**
 * lib/link/edge-relay.js: requests to the plant's edge only once it is ready and holds the lease,
 * each with exactly one answer (the edge's, or E_OUTCOME_UNKNOWN when its link drops), and to the
 * fleet when the plant's edge is elsewhere.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const clock = require('../../../../nodes/lib/core/clock');
const { createEdgeRelay } = require('../../../../nodes/lib/link/edge-relay');
const { createPeer } = require('../../../../nodes/lib/link/peer');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

function setup() {
  const counters = {
    inflight: 0, unknownOutcomes: 0, lateAnswers: 0, busy: 0, leaseLost: 0, framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0, duplicateRequests: 0,
    leaseUnsure: 0,
  };
  const emitted = [];
  const relay = createEdgeRelay({
    linkTimeoutMs: 3000, graceMs: 50, probeAnswerMs: 100, lifetimeMs: 1000, sender: envelope.createSender('cloud-e'), counters,
    emit: (env, id, plant) => emitted.push({ env, id, plant }),
  });
  const edge = (plant) => {
    const conn = fakeConnection();
    const c = createPeer({
      id: `edge-${plant}`, conn, plant, limits: {}, counters, maxFrames: 10, maxTags: 10, highWaterBytes: 1e6, drainPollMs: 5, closeGraceMs: 100,
    });
    return { c, conn };
  };
  return { relay, counters, emitted, edge };
}
const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw', seq, ts: 1, d: { st: 1 }, dl: clock.now() + 5000, ...more });

test('a request goes to the edge only once it is ready and holds the plant; its answer passes once', async (t) => {
  const { relay, counters, edge, emitted } = setup();
  t.after(() => relay.close());
  const { c, conn } = edge('a');
  relay.attach(c);
  assert.equal(relay.edgeOf('a'), c);
  assert.deepEqual(relay.plants(), ['a']);
  assert.equal(relay.sendRequest(cmd(1), 'a'), 0, 'not ready: not delivered');
  c.ready = true;
  assert.equal(relay.sendRequest(cmd(2), 'a'), 1, 'the lease not held: refused here');
  assert.deepEqual(emitted.map((e) => e.env.e.code), ['E_EDGE_DOWN']);
  assert.equal(await relay.fleet.claim('a'), true);
  assert.equal(relay.liveEdge('a'), c);
  assert.equal(relay.sendRequest(cmd(3), 'a'), 1);
  assert.deepEqual(conn.frames().map((f) => f.seq), [3]);
  assert.equal(counters.inflight, 1);
  const ack = { v: 1, k: 'ack', src: 'edge-s7', seq: 1, ts: 1, ref: { src: 'tw', seq: 3 } };
  assert.equal(relay.fromEdge(c, ack), true);
  assert.equal(relay.fromEdge(c, { ...ack, seq: 2 }), false, 'a second answer is late');
  assert.equal(counters.lateAnswers, 1);
  assert.equal(counters.inflight, 0);
});

test('a request without a deadline gets the default lifetime', async (t) => {
  const { relay, edge } = setup();
  t.after(() => relay.close());
  const { c, conn } = edge('a');
  relay.attach(c);
  c.ready = true;
  await relay.fleet.claim('a');
  const before = clock.now();
  relay.sendRequest({ ...cmd(1), dl: undefined }, 'a');
  const sent = conn.frames()[0];
  assert.ok(sent.dl >= before + 1000 && sent.dl <= clock.now() + 1000);
});

test('when the edge link drops every request held for it is answered E_OUTCOME_UNKNOWN at once, and the lease is freed', async (t) => {
  const { relay, counters, emitted, edge } = setup();
  t.after(() => relay.close());
  const { c } = edge('a');
  relay.attach(c);
  c.ready = true;
  await relay.fleet.claim('a');
  relay.sendRequest(cmd(1, { cid: 'x' }), 'a');
  relay.detach(c, 1006);
  assert.equal(emitted.length, 1);
  assert.equal(emitted[0].env.e.code, 'E_OUTCOME_UNKNOWN');
  assert.equal(emitted[0].env.cid, 'x');
  assert.deepEqual([emitted[0].id, emitted[0].plant], ['edge-a', 'a']);
  assert.equal(counters.unknownOutcomes, 1);
  assert.equal(relay.edgeOf('a'), undefined);
  await waitFor(() => !relay.fleet.holds('a'));
});

test('a request for a plant with no edge anywhere is refused E_EDGE_DOWN through the fleet', async (t) => {
  const { relay, emitted } = setup();
  t.after(() => relay.close());
  assert.equal(relay.sendRequest(cmd(1), 'b'), 1, 'handed to the fleet');
  await waitFor(() => emitted.length === 1);
  assert.equal(emitted[0].env.e.code, 'E_EDGE_DOWN');
  assert.equal(emitted[0].plant, 'b');
});

test('a request with the (src, seq) of one still held is answered E_DUPLICATE, never relayed, never left without an answer', async (t) => {
  const { relay, emitted, edge } = setup();
  t.after(() => relay.close());
  const { c, conn } = edge('a');
  relay.attach(c);
  c.ready = true;
  await relay.fleet.claim('a');
  assert.equal(relay.sendRequest(cmd(1), 'a'), 1);
  assert.equal(relay.sendRequest(cmd(1, { d: { sp: 1 } }), 'a'), 1);
  assert.deepEqual(conn.frames().map((f) => f.d), [{ st: 1 }], 'the second was not relayed');
  assert.deepEqual(emitted.map((e) => [e.env.k, e.env.e && e.env.e.code, e.env.ref]), [['err', 'E_DUPLICATE', { src: 'tw', seq: 1 }]]);
});

test('the backplane unreachable: once the plant\'s lease may have lapsed, a request for the edge here is refused E_EDGE_DOWN saying why', async (t) => {
  const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
  const bp = createLocalBackplane();
  let down = false;
  const lease = bp.lease.bind(bp);
  bp.lease = (...a) => (down ? Promise.reject(Object.assign(new Error('Redis: connection is closed'), { code: 'E_BACKPLANE_DOWN' })) : lease(...a));
  const counters = {
    inflight: 0, unknownOutcomes: 0, lateAnswers: 0, busy: 0, leaseLost: 0, framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0,
    duplicateRequests: 0, leaseUnsure: 0,
  };
  const emitted = [];
  const relay = createEdgeRelay({
    linkTimeoutMs: 150, graceMs: 50, probeAnswerMs: 100, lifetimeMs: 1000, sender: envelope.createSender('cloud-e'), counters, backplane: bp,
    emit: (env, id, plant) => emitted.push({ env, id, plant }),
  });
  t.after(async () => { await relay.close(); await bp.close(); });
  const conn = fakeConnection();
  const c = createPeer({
    id: 'edge-a', conn, plant: 'a', limits: {}, counters, maxFrames: 10, maxTags: 10, highWaterBytes: 1e6, drainPollMs: 5, closeGraceMs: 100,
  });
  relay.attach(c);
  c.ready = true;
  assert.equal(await relay.fleet.claim('a'), true);
  down = true;
  await relay.fleet.renew('a'); // the edge synced; the renewal fails
  await waitFor(() => !relay.fleet.holds('a'), 5000, 'the lease to lapse here');
  assert.equal(relay.sendRequest(cmd(1), 'a'), 1, 'answered here, not left to the caller');
  assert.equal(conn.frames().length, 0, 'nothing relayed');
  assert.equal(emitted[0].env.e.code, 'E_EDGE_DOWN');
  assert.match(emitted[0].env.e.msg, /lease/);
  assert.match(emitted[0].env.e.msg, /Redis: connection is closed/);
  assert.equal(counters.leaseUnsure, 1);
  down = false;
  await relay.fleet.renew('a'); // back: the lease is this instance's again
  assert.equal(relay.sendRequest(cmd(2), 'a'), 1);
  assert.deepEqual(conn.frames().map((f) => f.seq), [2]);
});
