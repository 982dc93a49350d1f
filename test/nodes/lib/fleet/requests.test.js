'use strict';
/**
 * lib/fleet/requests.js on an in-process backplane: an origin forwards a request to the plant's
 * holder and gets exactly one answer back (the holder's, E_EDGE_DOWN when nobody holds the
 * plant, E_OUTCOME_UNKNOWN when the holder never answers); a holder without a clock estimate for
 * the origin refuses; a member not sure it holds the plant stays silent.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const clock = require('../../../../nodes/lib/core/clock');
const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { createFleetRequests } = require('../../../../nodes/lib/fleet/requests');
const { waitFor } = require('../../../../system/wait');

const COUNTERS = {
  forwarded: 0, forwardRefused: 0, remoteRequests: 0, notHolder: 0, noClock: 0, replies: 0, unroutableReplies: 0,
  remoteAnswers: 0, lateAnswers: 0, unknownOutcomes: 0, badMessages: 0, duplicates: 0,
};

/** A member's request router, listening on its own channel (answers) and, if it holds, on the plant's. */
async function member(t, bp, id, more = {}) {
  const counters = { ...COUNTERS };
  const out = { requests: [], envs: [] };
  const r = createFleetRequests({
    bp, id, sender: envelope.createSender(`cloud-${id}`), graceMs: 20, hopMs: 20, probeAnswerMs: 50, maxForwarded: 10, counters, fail: () => {},
    holds: () => true, localDeadline: (from, dl) => dl - 5,
    onRequest: (env, plant, origin) => out.requests.push({ env, plant, origin }), onEnvelope: (env, plant) => out.envs.push({ env, plant }),
    ...more,
  });
  const onMember = (text) => { const m = JSON.parse(text); if (m.t === 'ans') r.onAnswer(m.p, m.e); };
  await bp.subscribe(KEYS.member(id), onMember);
  t.after(() => r.clear('test over'));
  return { r, counters, out, hold: (plant) => bp.subscribe(KEYS.req(plant), (text) => r.onRequest(plant, text)) };
}
const cmd = (seq, more = {}) => ({ v: 1, k: 'cmd', src: 'tw', seq, ts: 1, d: { st: 1 }, dl: clock.now() + 200, ...more });

test('forwarded to the holder (deadline on its clock), answered once back at the origin with the origin\'s deadline', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const origin = await member(t, bp, 'o');
  const holder = await member(t, bp, 'h');
  await holder.hold('a');
  const req = cmd(1, { cid: 'c1' });
  origin.r.forward(req, 'a');
  origin.r.forward(req, 'a'); // the same request twice: held once, the second refused at once
  await waitFor(() => holder.out.requests.length === 1);
  assert.deepEqual(origin.out.envs.map((e) => e.env.e.code), ['E_DUPLICATE']);
  assert.equal(origin.counters.duplicates, 1);
  origin.out.envs.length = 0;
  const got = holder.out.requests[0];
  assert.deepEqual([got.plant, got.origin, got.env.dl], ['a', 'o', req.dl - 5]);
  assert.equal(origin.r.size, 1);
  const ack = { v: 1, k: 'ack', src: 'edge-s7', seq: 9, ts: 1, ref: { src: 'tw', seq: 1 }, dl: got.env.dl };
  holder.r.reply('o', 'a', ack);
  holder.r.reply('o', 'a', { ...ack, seq: 10 });
  await waitFor(() => origin.counters.lateAnswers === 1);
  assert.equal(origin.out.envs.length, 1);
  assert.deepEqual([origin.out.envs[0].env.k, origin.out.envs[0].env.dl], ['ack', req.dl]);
  assert.equal(origin.r.size, 0);
  holder.r.reply('nobody', 'a', ack);
  await waitFor(() => holder.counters.unroutableReplies === 1);
});

test('nobody holds the plant: E_EDGE_DOWN at once; a holder that never answers: E_OUTCOME_UNKNOWN once', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const origin = await member(t, bp, 'o');
  origin.r.forward(cmd(1), 'a');
  await waitFor(() => origin.out.envs.length === 1);
  assert.equal(origin.out.envs[0].env.e.code, 'E_EDGE_DOWN');
  assert.equal(origin.counters.forwardRefused, 1);
  const silent = await member(t, bp, 's', { onRequest: () => {} });
  await silent.hold('b');
  origin.r.forward(cmd(2, { dl: clock.now() + 30 }), 'b');
  await waitFor(() => origin.out.envs.length === 2, 5000, 'the origin to give up');
  assert.equal(origin.out.envs[1].env.e.code, 'E_OUTCOME_UNKNOWN');
  assert.equal(origin.counters.unknownOutcomes, 1);
});

test('a holder with no clock estimate for the origin refuses; one not sure it holds stays silent; bad messages are counted', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const origin = await member(t, bp, 'o');
  const noClock = await member(t, bp, 'h', { localDeadline: () => null });
  await noClock.hold('a');
  origin.r.forward(cmd(1), 'a');
  await waitFor(() => origin.out.envs.length === 1);
  assert.equal(origin.out.envs[0].env.e.code, 'E_EDGE_DOWN');
  assert.match(origin.out.envs[0].env.e.msg, /no clock estimate/);
  assert.equal(noClock.counters.noClock, 1);
  assert.equal(noClock.out.requests.length, 0, 'nothing is written on a guess');
  const unsure = await member(t, bp, 'u', { holds: () => false });
  unsure.r.onRequest('a', JSON.stringify({ o: 'o', p: 'a', e: cmd(2) }));
  assert.deepEqual([unsure.counters.notHolder, unsure.out.requests.length], [1, 0]);
  unsure.r.onRequest('a', 'not json');
  unsure.r.onRequest('a', JSON.stringify({ o: 'o', p: 'other', e: cmd(3) }));
  unsure.r.onRequest('a', JSON.stringify({ o: 'o', p: 'a', e: { ...cmd(4), dl: undefined } }));
  unsure.r.onAnswer('a', { v: 1, k: 'ack', src: 'x', seq: 1, ts: 1 });
  assert.equal(unsure.counters.badMessages, 4);
});

test('more forwarded requests than maxForwarded are refused E_BUSY', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const origin = await member(t, bp, 'o', { maxForwarded: 1 });
  const holder = await member(t, bp, 'h', { onRequest: () => {} });
  await holder.hold('a');
  origin.r.forward(cmd(1), 'a');
  origin.r.forward(cmd(2), 'a');
  assert.equal(origin.out.envs[0].env.e.code, 'E_BUSY');
  assert.deepEqual(origin.out.envs[0].env.ref, { src: 'tw', seq: 2 });
});
