'use strict';
/**
 * lib/link/edge-endpoint.js: what the edge may send, its syncs answered and its first one making
 * it ready, a silent edge dropped (in-memory connections; one edge per plant and the exactly-one
 * answer over real sockets are in endpoint.test.js); a flow's own commands in the command log.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const clock = require('../../../../nodes/lib/core/clock');
const { createEdgeEndpoint, edgeRefusal } = require('../../../../nodes/lib/link/edge-endpoint');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const frame = (k, seq, more = {}) => ({ v: 1, k, src: 'edge-s7', seq, ts: clock.now(), ...more });

test('edgeRefusal: only the edge\'s kinds; its states only streamed tags of the I/O table in range', () => {
  assert.equal(edgeRefusal(frame('state', 1, { d: { grn: 1 } })), null);
  assert.equal(edgeRefusal(frame('sync', 1)), null);
  const kind = edgeRefusal(frame('cmd', 2, { d: { st: 1 } }));
  assert.deepEqual([kind.counter, kind.err.code], ['kindRefused', 'E_KIND']);
  assert.equal(edgeRefusal(frame('state', 3, { d: { hack: 1 } })).err.code, 'E_UNKNOWN_TAG');
  const range = edgeRefusal(frame('snap', 4, { d: { ng: 70000 } }));
  assert.deepEqual([range.err.code, range.err.ref], ['E_RANGE', { src: 'edge-s7', seq: 4 }]);
});

test('a sync is answered with the cloud\'s times and makes the edge ready; states pass, an err without ref is reported', async (t) => {
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 3000 });
  t.after(() => ep.close());
  const got = [];
  const ready = [];
  const invalid = [];
  ep.on('envelope', (env, id, plant) => got.push([env.k, plant]));
  ep.on('ready', (id) => ready.push(id));
  ep.on('invalid', (err) => invalid.push(err.code));
  await ep.fleet.claim('plant1');
  const conn = fakeConnection();
  ep.accept(conn, { plant: 'plant1' });
  assert.deepEqual(ep.edgePlants(), ['plant1']);
  assert.equal(ep.edgeReady(), false);
  const sync = frame('sync', 1);
  conn.receive(sync);
  const res = conn.frames()[0];
  assert.deepEqual([res.k, res.ref, res.d.t1], ['sync-res', { src: 'edge-s7', seq: 1 }, sync.ts]);
  assert.ok(res.d.t2 >= sync.ts);
  assert.deepEqual(ready, ['edge-1']);
  assert.equal(ep.edgeReady('plant1'), true);
  conn.receive(frame('state', 2, { d: { grn: 1 } }));
  conn.receive(frame('err', 3, { e: { code: 'E_JSON', msg: 'bad' } }));
  assert.deepEqual(got, [['state', 'plant1']], 'syncs and an err without ref do not reach the flow');
  assert.deepEqual(invalid, ['E_JSON']);
  assert.equal(ep.counters.edgeErrors, 1);
  assert.equal(ep.counters.syncs, 1);
});

test('an edge silent for linkTimeoutMs is dropped', async (t) => {
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 60 });
  t.after(() => ep.close());
  const conn = fakeConnection();
  ep.accept(conn, { plant: 'plant1' });
  await waitFor(() => conn.terminated, 5000, 'the silent edge to be dropped');
  assert.equal(ep.counters.timeouts, 1);
  await waitFor(() => ep.edgePlants().length === 0);
});

test('the command log: a flow\'s own command with its node as the sender and the edge\'s answer; a twin\'s passed on is not the flow\'s', async (t) => {
  const entries = [];
  const audit = createCommandAudit({ log: { append: (e) => { entries.push(e); return true; } }, now: clock.now, sweepMs: 0 });
  const ep = createEdgeEndpoint({ path: '/e', src: 'cloud-e', tokens: ['ed'], linkTimeoutMs: 3000, audit });
  t.after(() => ep.close());
  await ep.fleet.claim('plant1');
  const conn = fakeConnection();
  ep.accept(conn, { plant: 'plant1' });
  const by = { id: 'out-1', name: 'start the line' };
  // Connected, not ready (no sync yet): not delivered, refused E_EDGE_DOWN in the log.
  assert.equal(ep.send({ v: 1, k: 'cmd', src: 'flow', seq: 1, ts: clock.now(), d: { st: 1 } }, undefined, 'plant1', by), 0);
  conn.receive(frame('sync', 1));

  assert.equal(ep.send({ v: 1, k: 'cmd', src: 'flow', seq: 2, ts: clock.now(), d: { st: 1 } }, undefined, 'plant1', by), 1);
  const twinCmd = { v: 1, k: 'cmd', src: 'tw', seq: 1, ts: clock.now(), d: { sp: 1 }, dl: clock.now() + 2000 };
  audit.arrived({ via: 'ws', plant: 'plant1', at: clock.now(), env: twinCmd });
  ep.send(twinCmd, undefined, 'plant1', by); // the flow passes a twin's command on
  ep.send({ v: 1, k: 'probe', src: 'flow', seq: 3, ts: clock.now(), d: { 0: 1 } }, undefined, 'plant1', by);
  await waitFor(() => conn.frames().filter((f) => f.k === 'cmd').length === 2, 5000, 'both commands at the edge');
  conn.receive(frame('ack', 2, { ts: 12345, ref: { src: 'flow', seq: 2 } }));
  conn.receive(frame('ack', 3, { ts: 12346, ref: { src: 'tw', seq: 1 } }));

  const flow = entries.filter((e) => e.src === 'flow');
  assert.deepEqual(flow.map((e) => [e.kind, e.seq, e.via, e.user, e.node, e.outcome, e.code]), [
    ['cmd', 1, 'flow', 'start the line', 'out-1', undefined, undefined],
    ['outcome', 1, undefined, undefined, undefined, 'refused', 'E_EDGE_DOWN'],
    ['cmd', 2, 'flow', 'start the line', 'out-1', undefined, undefined],
    ['outcome', 2, undefined, undefined, undefined, 'written', undefined],
  ]);
  assert.equal(flow[3].plcAt, 12345);
  assert.ok(Number.isFinite(flow[2].dl) && flow[2].dl > flow[2].t, 'its deadline: the default lifetime');
  assert.deepEqual(entries.filter((e) => e.src === 'tw').map((e) => e.kind), ['cmd'],
    'the twin\'s command: its outcome is recorded as its answer leaves for the twin, not here');
  assert.ok(audit.answered('plant1', { k: 'ack', ts: 12346, ref: { src: 'tw', seq: 1 } }), 'still open for the twin endpoint');

  // The edge link drops with a flow command in flight: unknown.
  ep.send({ v: 1, k: 'cmd', src: 'flow', seq: 4, ts: clock.now(), d: { st: 0 } }, undefined, 'plant1', by);
  conn.terminate();
  await waitFor(() => entries.some((e) => e.kind === 'outcome' && e.src === 'flow' && e.seq === 4), 5000, 'the unknown outcome');
  assert.equal(entries.find((e) => e.kind === 'outcome' && e.seq === 4).outcome, 'unknown');
});
