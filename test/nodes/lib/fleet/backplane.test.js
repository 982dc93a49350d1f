'use strict';
/**
 * lib/fleet/backplane.js: the local implementation and the Redis one (against a real redis-server on an
 * ephemeral port) pass the same checks, so lib/fleet/member.js may run on either.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLocalBackplane, createRedisBackplane, acquireBackplane, parseStateMessage } = require('../../../../nodes/lib/fleet/backplane');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../helpers/nodered');

/** The same contract for both kinds. `make()` returns two handles on ONE backplane (two instances). */
function contract(kind, make) {
  test(`${kind}: publish reaches subscribers (and says how many), unsubscribe stops it`, async (t) => {
    const [a, b] = await make(t);
    const got = [];
    const fn = (text) => got.push(text);
    assert.equal(await a.publish('ch1', 'nobody'), 0, 'no subscriber: 0 receivers');
    await b.subscribe('ch1', fn);
    assert.equal(await a.publish('ch1', 'hello'), 1);
    await waitFor(() => got.length === 1);
    assert.deepEqual(got, ['hello']);
    await b.unsubscribe('ch1', fn);
    assert.equal(await a.publish('ch1', 'again'), 0);
  });

  test(`${kind}: a lease is held by one owner until it expires or is given up`, async (t) => {
    const [a, b] = await make(t);
    assert.equal(await a.lease('k', 'A', 400), true);
    assert.equal(await b.lease('k', 'B', 400), false, 'held by A');
    assert.equal(await a.lease('k', 'A', 400), true, 'renewed by its owner');
    assert.equal(await b.holder('k'), 'A');
    await b.unlease('k', 'B'); // not B's to give up
    assert.equal(await b.holder('k'), 'A');
    await waitFor(async () => (await b.lease('k', 'B', 5000)) === true, 5000, 'the lease to expire');
    assert.equal(await a.lease('k', 'A', 400), false, 'taken by B once expired');
    await b.unlease('k', 'B');
    assert.equal(await a.holder('k'), null);
  });

  test(`${kind}: mergeState merges, counts versions and publishes atomically`, async (t) => {
    const [a, b] = await make(t);
    const got = [];
    await b.subscribe('st', (text) => got.push(text));
    assert.deepEqual(await b.readState('h'), { epoch: null, version: 0, values: {} });
    assert.equal(await a.mergeState('h', 'st', { c1: 1, ng: 3 }, 'm1'), 1);
    assert.equal(await a.mergeState('h', 'st', { c1: 0 }, 'm2'), 2);
    const st = await b.readState('h');
    assert.match(st.epoch, /^[0-9a-f]{12}$/, 'set once, when the hash is made');
    assert.deepEqual(st, { epoch: st.epoch, version: 2, values: { c1: 0, ng: 3 } });
    await waitFor(() => got.length === 2);
    assert.deepEqual(got, [`1:${st.epoch} m1`, `2:${st.epoch} m2`]);
    assert.deepEqual(parseStateMessage(got[1]), { version: 2, epoch: st.epoch, text: 'm2' });
    assert.equal(parseStateMessage('7 old-format'), null);
  });
}

contract('local', async () => {
  const bp = createLocalBackplane();
  return [bp, bp];
});

let redis;
test.before(async () => { redis = await startRedis(); });
test.after(async () => { if (redis) await redis.stop(); });

contract('redis', async (t) => {
  const a = createRedisBackplane({ url: redis.url });
  const b = createRedisBackplane({ url: redis.url });
  t.after(() => Promise.all([a.close(), b.close()]));
  await Promise.all([a.ready(), b.ready()]);
  // Fresh keys per test: a clean database.
  const raw = new (require('ioredis'))(redis.url);
  await raw.flushall();
  await raw.quit();
  return [a, b];
});

test('redis: a command while Redis is unreachable fails at once with E_BACKPLANE_DOWN, and the backplane comes back by itself', async (t) => {
  const r = await startRedis();
  t.after(() => r.stop());
  const bp = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  t.after(() => bp.close());
  await bp.ready();
  const downs = [];
  const ups = [];
  bp.on('down', () => downs.push(1));
  bp.on('up', () => ups.push(1));
  await r.stop();
  await waitFor(() => downs.length > 0, 10000, 'the backplane to see Redis gone');
  await assert.rejects(bp.publish('c', 'x'), (e) => e.code === 'E_BACKPLANE_DOWN');
  const again = await startRedis({ port: r.port });
  t.after(() => again.stop());
  await waitFor(() => ups.length > 0, 15000, 'the backplane to reconnect');
  assert.equal(await bp.publish('c', 'x'), 0);
});

test('acquireBackplane: local without a URL, one shared Redis backplane per URL, closed with its last user', async () => {
  const l = acquireBackplane(undefined);
  assert.equal(l.backplane.kind, 'local');
  await l.release();
  const a = acquireBackplane(redis.url);
  const b = acquireBackplane(redis.url);
  assert.equal(a.backplane, b.backplane);
  await a.backplane.ready();
  await a.release();
  assert.equal(await b.backplane.publish('c', 'x'), 0, 'still open for its other user');
  await b.release();
  assert.throws(() => createRedisBackplane({ url: 'localhost:6379' }), (e) => e.code === 'E_BACKPLANE_CONFIG');
});

test('redis: concurrent subscribes to one channel share one outcome; after a reconnect every channel with a handler gets its messages', async (t) => {
  const r = await startRedis();
  t.after(() => r.stop());
  const bp = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  const other = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  t.after(() => Promise.all([bp.close(), other.close()]));
  const got = [];
  const f1 = (x) => got.push(`1:${x}`);
  const f2 = (x) => got.push(`2:${x}`);
  // Before the connections are up: both callers are told, neither handler is left behind.
  const early = await Promise.allSettled([bp.subscribe('ch', f1), bp.subscribe('ch', f2)]);
  if (early.every((e) => e.status === 'rejected')) {
    for (const e of early) assert.equal(e.reason.code, 'E_BACKPLANE_DOWN');
  }
  await Promise.all([bp.ready(), other.ready()]);
  await Promise.all([bp.subscribe('ch', f1), bp.subscribe('ch', f2)]);
  assert.equal(await other.publish('ch', 'a'), 1, 'one SUBSCRIBE: one receiver connection');
  await waitFor(() => got.length === 2);
  assert.deepEqual(got.sort(), ['1:a', '2:a']);
  // Redis restarted: the channel is subscribed again when the backplane is back.
  const downs = [];
  const ups = [];
  bp.on('down', () => downs.push(1));
  bp.on('up', () => ups.push(1));
  await r.stop();
  await waitFor(() => downs.length > 0, 10000, 'the backplane to see Redis gone');
  const again = await startRedis({ port: r.port });
  t.after(() => again.stop());
  await waitFor(() => ups.length > 0 && other.connected, 15000, 'both back');
  await waitFor(async () => (await other.publish('ch', 'b')) === 1, 10000, 'the channel subscribed again');
  await waitFor(() => got.includes('1:b') && got.includes('2:b'));
});

test('connected follows the connections (a getter, not a value copied at creation)', async (t) => {
  const local = createLocalBackplane();
  assert.equal(local.connected, true);
  await local.close();
  assert.equal(local.connected, false);
  const r = await startRedis();
  t.after(() => r.stop());
  const bp = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  t.after(() => bp.close());
  await bp.ready();
  assert.equal(bp.connected, true);
  await r.stop();
  await waitFor(() => bp.connected === false, 10000, 'connected false once Redis is gone');
});
