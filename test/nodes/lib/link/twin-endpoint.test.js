'use strict';
/**
 * lib/link/twin-endpoint.js: what twins may send, the deadline every request gets, the keepalive
 * that pings only silent twins, and a fresh twin's snapshot (in-memory connections; the same over
 * real sockets in endpoint.test.js).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createTwinEndpoint, twinRefusal, deadlineOf, pingSilent } = require('../../../../nodes/lib/link/twin-endpoint');
const { fakeConnection } = require('../../../helpers/cloud');

const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw', seq, ts: 1, d: { st: 1 }, ...more });

test('twinRefusal: only cmd and probe, nothing from a viewer, no ttl past the maximum', () => {
  const o = { maxLifetimeMs: 5000 };
  assert.equal(twinRefusal(cmd(1), { viewer: false }, o), null);
  assert.equal(twinRefusal(cmd(1, { k: 'probe', d: { n: 1 } }), { viewer: false }, o), null);
  const kind = twinRefusal(cmd(1, { k: 'state' }), { viewer: false }, o);
  assert.deepEqual([kind.counter, kind.err.code, kind.err.ref], ['kindRefused', 'E_KIND', { src: 'tw', seq: 1 }]);
  const ro = twinRefusal(cmd(2, { cid: 'c2' }), { viewer: true }, o);
  assert.deepEqual([ro.counter, ro.err.code, ro.err.cid], ['readOnly', 'E_READ_ONLY', 'c2']);
  const range = twinRefusal(cmd(3, { ttl: 6000 }), { viewer: false }, o);
  assert.deepEqual([range.counter, range.err.code], [undefined, 'E_RANGE']);
});

test('deadlineOf: arrival plus the ttl asked for, else the default lifetime', () => {
  assert.equal(deadlineOf({ ttl: 300 }, 1000, 700), 1300);
  assert.equal(deadlineOf({}, 1000, 700), 1700);
});

test('pingSilent: a twin heard from is left alone, a silent one pinged, one silent after its ping terminated', () => {
  const counters = { pings: 0, timeouts: 0 };
  const conn = fakeConnection();
  const c = { heard: true, pinged: false, conn };
  pingSilent(c, counters);
  assert.deepEqual([conn.pings, c.heard], [0, false]);
  pingSilent(c, counters);
  assert.deepEqual([conn.pings, counters.pings, c.pinged], [1, 1, true]);
  c.heard = true; // it answered
  pingSilent(c, counters);
  assert.equal(c.pinged, false);
  pingSilent(c, counters);
  pingSilent(c, counters);
  assert.deepEqual([conn.terminated, counters.timeouts], [true, 1]);
});

test('a twin gets the plant state as a snap on connect; the first twin of a plant is announced once; its requests get a deadline', async (t) => {
  const ep = createTwinEndpoint({ path: '/t', src: 'cloud-t', tokens: ['tw'], viewerTokens: ['vw'], lifetimeMs: 700 });
  t.after(() => ep.close());
  const plants = [];
  const got = [];
  ep.on('plant', (p) => plants.push(p));
  ep.on('envelope', (env) => got.push(env));
  ep.send({ v: 1, k: 'state', src: 'edge', seq: 1, ts: 1, d: { grn: 1 } });
  const viewer = fakeConnection();
  const twin = fakeConnection();
  ep.accept(viewer, { plant: 'plant1', viewer: true });
  ep.accept(twin, { plant: 'plant1' });
  assert.deepEqual(plants, ['plant1']);
  assert.equal(ep.counters.viewers, 1);
  assert.deepEqual(twin.frames()[0].d, { grn: 1 });
  assert.equal(twin.frames()[0].k, 'snap');
  viewer.receive(cmd(1));
  assert.equal(viewer.frames().at(-1).e.code, 'E_READ_ONLY');
  twin.receive(cmd(1, { src: 'tw-2', dl: 1 }));
  assert.equal(got.length, 1);
  assert.ok(got[0].dl > 1000, 'the twin\'s own dl is replaced by the cloud\'s');
  assert.equal(ep.send({ v: 1, k: 'ack', src: 'edge', seq: 2, ts: 1, ref: { src: 'someone', seq: 1 } }), 0);
  assert.equal(ep.counters.unroutable, 1, 'an answer for a twin that is gone goes nowhere');
  assert.equal(ep.edgeReady, undefined, 'a twin endpoint has no edge');
});
