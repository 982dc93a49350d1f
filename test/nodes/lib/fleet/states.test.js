'use strict';
/**
 * lib/fleet/states.js on an in-process backplane: the holder's states into the plant's hash and
 * out to the watchers; a watcher starts from the hash as a snap, then takes newer states in order,
 * and skips its own edge's.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { createStateWatch } = require('../../../../nodes/lib/fleet/states');
const { waitFor } = require('../../../../system/wait');

function watcher(bp, id) {
  const counters = { statesPublished: 0, statesIn: 0, snapsFromStore: 0, badMessages: 0 };
  const envs = [];
  const w = createStateWatch({
    bp, id, sender: envelope.createSender(`cloud-${id}`), counters, fail: () => {}, closed: () => false,
    onEnvelope: (env, plant) => envs.push([env.k, env.d, plant]),
  });
  return { w, counters, envs };
}
const state = (seq, d, k = 'state') => ({ v: 1, k, src: 'edge-s7', seq, ts: 1, d });

test('a watcher starts from the latest state as one snap, then takes newer states in order', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const holder = watcher(bp, 'h');
  const other = watcher(bp, 'o');
  holder.w.publishState(state(1, { grn: 1 }), 'a');
  holder.w.publishState(state(2, { red: 1 }), 'a');
  holder.w.publishState({ ...state(3), d: undefined }, 'a'); // nothing to store
  assert.equal(holder.counters.statesPublished, 2);
  await other.w.watch('a');
  await other.w.watch('a'); // once
  assert.deepEqual(other.envs, [['snap', { grn: 1, red: 1 }, 'a']]);
  holder.w.publishState(state(4, { grn: 0 }), 'a');
  await waitFor(() => other.envs.length === 2);
  assert.deepEqual(other.envs[1], ['state', { grn: 0 }, 'a']);
  assert.deepEqual(other.w.plants(), ['a']);
  assert.deepEqual([other.counters.snapsFromStore, other.counters.statesIn], [1, 1]);
});

test('a member watching its own plant skips its own edge\'s states (its flow has them); bad messages are counted', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const h = watcher(bp, 'h');
  await h.w.watch('a');
  h.w.publishState(state(1, { grn: 1 }), 'a');
  await bp.publish(KEYS.states('a'), 'x not json');
  await bp.publish(KEYS.states('a'), `7:e1 ${JSON.stringify({ o: 'z', e: { v: 1, k: 'ack', src: 'e', seq: 1, ts: 1 } })}`);
  await waitFor(() => h.counters.badMessages === 2);
  assert.deepEqual(h.envs, []);
  await Promise.all(h.w.unsubscribeAll());
  h.w.clear();
  assert.deepEqual(h.w.plants(), []);
});

test('up(): after an outage the hash is read again, so what was published meanwhile is not lost', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const holder = watcher(bp, 'h');
  const other = watcher(bp, 'o');
  await other.w.watch('a');
  await Promise.all(other.w.unsubscribeAll()); // as if the subscription had been lost meanwhile
  holder.w.publishState(state(1, { grn: 1 }), 'a');
  assert.deepEqual(other.envs, []);
  other.w.up();
  await waitFor(() => other.envs.length === 1);
  assert.deepEqual(other.envs[0], ['snap', { grn: 1 }, 'a']);
});

test('on Redis restarted empty: the versions start again, and the watcher still takes every new state (an epoch beside the version)', async (t) => {
  const { startRedis } = require('../../../../system/redis');
  const { createRedisBackplane } = require('../../../../nodes/lib/fleet/backplane');
  const r = await startRedis();
  t.after(() => r.stop());
  const bpH = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  const bpO = createRedisBackplane({ url: r.url, retryMaxMs: 100 });
  t.after(() => Promise.all([bpH.close(), bpO.close()]));
  await Promise.all([bpH.ready(), bpO.ready()]);
  const holder = watcher(bpH, 'h');
  const other = watcher(bpO, 'o');
  bpO.on('up', () => other.w.up());
  await other.w.watch('a');
  for (let i = 1; i <= 40; i += 1) holder.w.publishState(state(i, { ng: i }), 'a');
  await waitFor(() => other.envs.length === 40, 10000, 'the 40 states');
  // Redis restarts with nothing in it (the fleet keeps nothing that must survive: no persistence).
  await r.stop();
  await waitFor(() => !bpO.connected && !bpH.connected, 10000, 'both to see Redis gone');
  const again = await startRedis({ port: r.port });
  t.after(() => again.stop());
  await waitFor(() => bpO.connected && bpH.connected, 15000, 'both back');
  await waitFor(async () => (await bpH.publish(KEYS.states('a'), 'ping')) === 1, 10000, 'the watcher subscribed again');
  const before = other.envs.length;
  holder.w.publishState(state(41, { ng: 41 }), 'a');
  await waitFor(() => other.envs.slice(before).some(([, d]) => d.ng === 41), 10000, 'the first state after the restart');
});

test('a new epoch starts the watcher\'s count afresh; a message of an epoch it has left is dropped', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const o = watcher(bp, 'o');
  await o.w.watch('a');
  const msg = (v, epoch, d) => `${v}:${epoch} ${JSON.stringify({ o: 'h', e: state(v, d) })}`;
  await bp.publish(KEYS.states('a'), msg(40, 'old', { ng: 40 }));
  await bp.publish(KEYS.states('a'), msg(1, 'new', { ng: 1 }));
  await bp.publish(KEYS.states('a'), msg(41, 'old', { ng: 41 }));
  await bp.publish(KEYS.states('a'), msg(2, 'new', { ng: 2 }));
  await waitFor(() => o.envs.length === 3);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(o.envs.map(([, d]) => d.ng), [40, 1, 2]);
  assert.equal(o.counters.epochs, 1);
});
