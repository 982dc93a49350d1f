'use strict';
/**
 * lib/link/endpoint-core.js with a minimal role and in-memory connections (accept(), the way in
 * for any transport): frames to the flow with their plant, routing out (to one peer, an answer to
 * the peer that asked, the rest to every peer of the plant), the latest state, close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { DEFAULTS, createEndpointCore } = require('../../../../nodes/lib/link/endpoint-core');
const { parseGrants } = require('../../../../nodes/lib/access/auth');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

function setup(role = {}) {
  const calls = { accepted: [], closed: [], abandoned: [], stray: 0, onClosed: 0 };
  const asked = new Map(); // the role's book of requests: where each answer goes
  const core = createEndpointCore({ ...DEFAULTS, path: '/x', src: 'cloud-x', grants: parseGrants('ta:twin:a,tab:twin:a|b') }, {
    name: 'twin', counters: {}, tickMs: 1000, limits: { ratePerS: 0, errors: 0 },
    admit: (ticket) => ticket.accept(), onAccept: (c) => calls.accepted.push(c.id), tick() {},
    onFrame: (c, e) => { asked.set(`${c.plant} ${e.src} ${e.seq}`, c.id); return true; },
    answerTo: (plant, ref) => asked.get(`${plant} ${ref.src} ${ref.seq}`),
    onClose: (c, code) => calls.closed.push([c.id, code]), onAbandon: (p) => calls.abandoned.push(p),
    strayAnswer: () => { calls.stray += 1; }, onClosed: async () => { calls.onClosed += 1; },
    ...role,
  });
  const ep = core.api({ extra: 42 });
  const got = [];
  ep.on('envelope', (env, id, plant) => got.push({ env, id, plant }));
  return { core, ep, calls, got };
}
const env = (k, src, seq, more = {}) => ({ v: 1, k, src, seq, ts: 1, ...more });

test('frames from a peer go to the flow with its id and plant; answers go back to the peer that asked', async (t) => {
  const { ep, calls, got } = setup();
  t.after(() => ep.close());
  const a1 = fakeConnection();
  const a2 = fakeConnection();
  const b1 = fakeConnection();
  ep.accept(a1, { plant: 'a' });
  ep.accept(a2, { plant: 'a' });
  ep.accept(b1, { plant: 'b' });
  assert.deepEqual(calls.accepted, ['twin-1', 'twin-2', 'twin-3']);
  assert.equal(ep.extra, 42);
  assert.equal(ep.role, 'twin');
  a2.receive(env('cmd', 'tw', 1, { d: { st: 1 } }));
  b1.receive(env('cmd', 'tw', 1, { d: { st: 1 } }));
  assert.deepEqual(got.map((g) => [g.id, g.plant]), [['twin-2', 'a'], ['twin-3', 'b']]);
  assert.equal(ep.send(env('ack', 'edge', 1, { ref: { src: 'tw', seq: 1 } }), undefined, 'a'), 1);
  assert.deepEqual([a1.sent.length, a2.sent.length, b1.sent.length], [0, 1, 0], 'to the asker of plant a only');
  assert.equal(ep.send(env('ack', 'edge', 2, { ref: { src: 'gone', seq: 1 } }), undefined, 'a'), 0, 'an answer for a peer that is gone');
  assert.equal(calls.stray, 1);
  assert.equal(ep.send(env('state', 'edge', 3, { d: { grn: 1 } }), undefined, 'a'), 2, 'to every peer of the plant');
  assert.equal(ep.send(env('state', 'edge', 4, { d: { red: 1 } }), 'twin-3'), 1, 'to one peer by id');
  assert.deepEqual(b1.frames().map((f) => f.seq), [4]);
  assert.equal(ep.send(env('probe-res', 'edge', 6, { d: { n: 1 } }), 'twin-1'), 1);
  assert.deepEqual([a1.frames().at(-1).seq, a2.frames().at(-1).seq], [6, 3], 'only the peer named');
  assert.deepEqual(ep.latestState('a'), { grn: 1 });
  assert.deepEqual(ep.latestState('b'), { red: 1 }, 'kept for the plant of the peer it went to');
  assert.equal(ep.send(env('state', 'edge', 5, { d: { red: 1 } })), 0, 'serving two plants, a frame must name one');
  assert.equal(ep.counters.noPlant, 1);
  assert.deepEqual(ep.errorFor(env('cmd', 'tw', 9, { cid: 'c' }), 'E_EDGE_DOWN', 'no edge').ref, { src: 'tw', seq: 9 });
});

test('a role that takes requests gets every cmd and probe sent out', async (t) => {
  const taken = [];
  const { ep } = setup({ sendRequest: (e, plant) => { taken.push([e.seq, plant]); return 7; } });
  t.after(() => ep.close());
  const a = fakeConnection();
  ep.accept(a, { plant: 'a' });
  assert.equal(ep.send(env('cmd', 'tw', 1, { d: { st: 1 } }), undefined, 'a'), 7);
  assert.equal(ep.send(env('probe', 'tw', 2, { d: { n: 1 } }), ep.clientIds()[0]), 7);
  assert.deepEqual(taken, [[1, 'a'], [2, 'a']]);
  assert.equal(a.sent.length, 0);
});

test('close: every peer closed, the role closed; nothing is sent after; a connection accepted late is cut and the role told', async () => {
  const { ep, calls } = setup();
  const a = fakeConnection();
  ep.accept(a, { plant: 'a' });
  const disconnects = [];
  ep.on('disconnect', (id, code) => disconnects.push([id, code]));
  await ep.close();
  assert.equal(a.closes[0].code, 1001);
  assert.deepEqual(calls.closed, [['twin-1', 1001]]);
  assert.deepEqual(disconnects, [['twin-1', 1001]]);
  assert.equal(calls.onClosed, 1);
  assert.equal(ep.send(env('state', 'edge', 1, { d: { grn: 1 } }), undefined, 'a'), 0);
  const late = fakeConnection();
  ep.accept(late, { plant: 'b' });
  await waitFor(() => late.closed);
  assert.equal(late.terminated, true);
  assert.deepEqual(calls.abandoned, ['b']);
  await ep.close(); // twice: resolves
});
