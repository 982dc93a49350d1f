'use strict';
/**
 * lib/fleet/member.js through lib/link/endpoint.js: two cloud instances (twin + edge endpoints, relayed as
 * the cloud flow does) on one backplane, in one process, with raw WebSocket twins and edges. The
 * routing runs on a shared in-process backplane and on a real redis-server alike; the fault
 * cases (an instance that dies holding requests) on Redis.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLocalBackplane, createRedisBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { parseGrants } = require('../../../../nodes/lib/access/auth');
const { KEYS } = require('../../../../nodes/lib/fleet/member');
const clock = require('../../../../nodes/lib/core/clock');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../helpers/nodes');
const { startCloud } = require('../../../helpers/cloud');

const grants = parseGrants('ta:twin:a,tb:twin:b,va:viewer:a,ea:edge:a,eb:edge:b');
const cmd = (seq, d, more = {}) => ({ v: 1, k: 'cmd', src: 'twin-x', seq, ts: Date.now(), d, ...more });

/** Two instances on `backplanes` (one each, or the same one twice). */
async function startFleet(t, backplanes, fleet = {}) {
  const opts = (bp) => ({
    backplane: bp, fleet: { syncMs: 200, ...fleet }, twin: { tokens: [], viewerTokens: [], grants }, edge: { tokens: [], grants, linkTimeoutMs: 1500 },
  });
  const one = await startCloud(opts(backplanes[0]));
  const two = await startCloud(opts(backplanes[1]));
  t.after(async () => { await one.stop().catch(() => {}); await two.stop().catch(() => {}); });
  // Each member has a clock estimate of the other (a holder needs its origin's).
  const estimated = () => one.edge.fleet.members()[two.edge.fleet.id] && two.edge.fleet.members()[one.edge.fleet.id];
  await waitFor(estimated, 10000, 'the members to estimate each other\'s clocks');
  return [one, two];
}

/** The checks every backplane must pass: requests, answers, states and snapshots across instances. */
async function crossing(t, backplanes) {
  const [one, two] = await startFleet(t, backplanes);
  const edge = await one.edgePeer('ea');
  t.after(() => edge.ws.terminate());
  await edge.sync();
  t.after(edge.beat());
  edge.send(edge.frame('snap', { d: { grn: 1, ng: 7 } }));

  // A twin on the other instance: its snapshot comes from the latest state kept in the backplane.
  const twin = await two.twin('ta');
  t.after(() => twin.ws.terminate());
  assert.deepEqual((await twin.next((f) => f.k === 'snap')).d, { grn: 1, ng: 7 });
  assert.ok(two.edge.fleet.counters.snapsFromStore >= 1);

  // Its command crosses to the edge with a deadline no later than the one its instance gave it.
  const before = clock.now();
  twin.send(cmd(1, { st: 1 }, { ttl: 2000 }));
  const atEdge = await edge.next((f) => f.k === 'cmd' && f.src === 'twin-x');
  const originDl = two.toEdge.find((e) => e.seq === 1).dl;
  assert.ok(originDl >= before + 2000);
  assert.ok(atEdge.dl <= originDl, `the holder's deadline ${atEdge.dl} is not later than the origin's ${originDl}`);
  assert.ok(atEdge.dl > originDl - 100, 'and not much earlier either (one machine: a tight clock bound)');
  edge.send(edge.frame('ack', { ref: { src: 'twin-x', seq: 1 }, dl: atEdge.dl }));
  const ack = await twin.next((f) => f.k === 'ack');
  assert.equal(ack.dl, originDl, 'the twin sees its own instance\'s deadline');

  // States cross to the twins of the plant on every instance, once each.
  const local = await one.twin('ta');
  t.after(() => local.ws.terminate());
  await local.next((f) => f.k === 'snap');
  edge.send(edge.frame('state', { d: { c1: 1 } }));
  await twin.next((f) => f.k === 'state' && f.d.c1 === 1);
  await local.next((f) => f.k === 'state' && f.d.c1 === 1);
  // A viewer on the other instance watches and may not drive.
  const viewer = await two.twin('va');
  t.after(() => viewer.ws.terminate());
  assert.deepEqual((await viewer.next((f) => f.k === 'snap')).d, { grn: 1, ng: 7, c1: 1 });
  viewer.send(cmd(1, { st: 1 }, { src: 'twin-v' }));
  assert.equal((await viewer.next((f) => f.k === 'err')).e.code, 'E_READ_ONLY');
  edge.send(edge.frame('state', { d: { c1: 0 } }));
  await viewer.next((f) => f.k === 'state' && f.d.c1 === 0);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(twin.frames.filter((f) => f.k === 'state' && f.d.c1 === 1).length, 1, 'each state once');
  assert.equal(edge.frames.filter((f) => f.k === 'cmd').length, 1, 'the viewer\'s command went nowhere');

  // A plant whose edge is nowhere: refused at once, nothing delivered.
  const twinB = await two.twin('tb');
  t.after(() => twinB.ws.terminate());
  twinB.send(cmd(1, { st: 1 }));
  assert.equal((await twinB.next((f) => f.k === 'err')).e.code, 'E_EDGE_DOWN');
  assert.ok(two.edge.fleet.counters.forwardRefused >= 1);
  return { one, two, edge, twin };
}

test('on one in-process backplane: requests, answers, states and snapshots cross instances', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  await crossing(t, [bp, bp]);
});

let redis;
test.before(async () => { redis = await startRedis(); });
test.after(async () => { if (redis) await redis.stop(); });

const redisPair = async (t, { ready = true } = {}) => {
  // A clean database: the instances of an earlier test may have left a lease to expire.
  const raw = new (require('ioredis'))(redis.url);
  await raw.flushall();
  await raw.quit();
  const a = createRedisBackplane({ url: redis.url });
  const b = createRedisBackplane({ url: redis.url });
  t.after(() => Promise.all([a.close(), b.close()]));
  if (ready) await Promise.all([a.ready(), b.ready()]);
  return [a, b];
};

test('on Redis: requests, answers, states and snapshots cross instances', async (t) => {
  const { one, two } = await crossing(t, await redisPair(t));
  // The keys and channels are the documented ones.
  const Redis = require('ioredis');
  const r = new Redis(redis.url);
  t.after(() => r.quit());
  assert.equal(await r.get(KEYS.lease('a')), one.edge.fleet.id);
  assert.equal(JSON.parse(await r.hget(KEYS.latest('a'), 'grn')), 1);
  assert.ok(Number(await r.hget(KEYS.latest('a'), '~v')) >= 3);
  assert.ok(two.edge.fleet.watching().includes('a'));
});

test('on Redis: one edge per plant across instances; a silent edge loses the plant to a live one', async (t) => {
  // Instances made before their Redis connection is up (as Node-RED starts them) join once it is.
  const [one, two] = await startFleet(t, await redisPair(t, { ready: false }));
  const first = await one.edgePeer('ea');
  t.after(() => first.ws.terminate());
  await first.sync();
  const stopBeat = first.beat(100);
  await assert.rejects(two.edgePeer('ea'), (e) => e.statusCode === 409, 'the plant is held on the other instance');
  assert.equal(two.edge.counters.edgeRefused, 1);
  stopBeat();
  first.ws._socket.pause(); // silent: its lease is not renewed
  const second = await waitFor(() => two.edgePeer('ea').catch(() => null), 20000, 'the second instance to take the plant');
  t.after(() => second.ws.terminate());
  await second.sync();
  t.after(second.beat());
  // A twin on the first instance now reaches the edge on the second.
  const twin = await one.twin('ta');
  t.after(() => twin.ws.terminate());
  await waitFor(() => !one.edge.edgePlants().includes('a'), 10000, 'the silent edge to be dropped');
  twin.send(cmd(1, { st: 1 }));
  await second.next((f) => f.k === 'cmd');
  second.send(second.frame('ack', { ref: { src: 'twin-x', seq: 1 } }));
  assert.equal((await twin.next((f) => f.ref && f.ref.seq === 1)).k, 'ack');
  assert.equal(first.frames.filter((f) => f.k === 'cmd').length, 0);
});

test('on Redis: an instance that dies holding a request costs its twin exactly one E_OUTCOME_UNKNOWN; a late answer is dropped', async (t) => {
  const [bpOne, bpTwo] = await redisPair(t);
  const [one, two] = await startFleet(t, [bpOne, bpTwo], { hopMs: 100 });
  const edge = await one.edgePeer('ea');
  t.after(() => edge.ws.terminate());
  await edge.sync();
  t.after(edge.beat());
  const twin = await two.twin('ta');
  t.after(() => twin.ws.terminate());
  twin.send(cmd(1, { st: 1 }, { ttl: 300 }));
  await edge.next((f) => f.k === 'cmd');
  // The holding instance is cut off from the fleet (as if killed): nothing it says arrives.
  await bpOne.close();
  const answer = await twin.next((f) => f.ref && f.ref.seq === 1, 10000);
  assert.equal(answer.e.code, 'E_OUTCOME_UNKNOWN');
  assert.equal(two.edge.fleet.counters.unknownOutcomes, 1);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(twin.frames.filter((f) => f.ref && f.ref.seq === 1).length, 1, 'one answer');

  // An answer that comes after the origin gave up is dropped there.
  const raw = new (require('ioredis'))(redis.url);
  t.after(() => raw.quit());
  const late = { v: 1, k: 'ack', src: 'edge-s7', seq: 99, ts: 1, ref: { src: 'twin-x', seq: 1 } };
  await raw.publish(KEYS.member(two.edge.fleet.id), JSON.stringify({ t: 'ans', p: 'a', e: late }));
  await raw.publish(KEYS.member(two.edge.fleet.id), 'not json');
  await waitFor(() => two.edge.fleet.counters.lateAnswers === 1 && two.edge.fleet.counters.badMessages === 1);
  assert.equal(twin.frames.filter((f) => f.ref && f.ref.seq === 1).length, 1, 'still one answer');
});

test('on Redis: a request is delivered by the holder only; a member that is not sure it holds the plant stays silent', async (t) => {
  const [one, two] = await startFleet(t, await redisPair(t));
  const edge = await one.edgePeer('ea');
  t.after(() => edge.ws.terminate());
  await edge.sync();
  t.after(edge.beat());
  // A forged request for plant a from a member no one knows: the holder cannot judge its deadline.
  const raw = new (require('ioredis'))(redis.url);
  t.after(() => raw.quit());
  const forged = { o: 'stranger', p: 'a', e: { ...cmd(5, { st: 1 }), dl: clock.now() + 1000 } };
  assert.equal(await raw.publish(KEYS.req('a'), JSON.stringify(forged)), 1, 'only the holder listens');
  await waitFor(() => one.edge.fleet.counters.noClock === 1);
  await raw.publish(KEYS.req('a'), JSON.stringify({ ...forged, e: { ...forged.e, k: 'state' } }));
  await waitFor(() => one.edge.fleet.counters.badMessages === 1);
  assert.equal(edge.frames.filter((f) => f.k === 'cmd').length, 0, 'nothing reached the edge');
  assert.equal(two.edge.fleet.counters.notHolder, 0);
});
