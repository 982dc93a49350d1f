'use strict';
/**
 * lib/link/edge-endpoint.js: what the edge may send, its syncs answered and its first one making
 * it ready, a silent edge dropped (in-memory connections; one edge per plant and the exactly-one
 * answer over real sockets are in endpoint.test.js).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const clock = require('../../../../nodes/lib/core/clock');
const { createEdgeEndpoint, edgeRefusal } = require('../../../../nodes/lib/link/edge-endpoint');
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
