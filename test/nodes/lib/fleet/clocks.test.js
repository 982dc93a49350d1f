'use strict';
/**
 * lib/fleet/clocks.js on an in-process backplane: members heartbeat, answer each other's
 * heartbeats with their clock's times, estimate each other's clocks, and forget a silent member.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const clock = require('../../../../nodes/lib/core/clock');
const { createLocalBackplane } = require('../../../../nodes/lib/fleet/backplane');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { createMemberClocks } = require('../../../../nodes/lib/fleet/clocks');
const { waitFor } = require('../../../../system/wait');

async function member(t, bp, id, more = {}) {
  const counters = { members: 0, badMessages: 0 };
  const failed = [];
  const c = createMemberClocks({ bp, id, syncMs: 50, memberTimeoutMs: 10000, counters, fail: (e) => failed.push(e), ...more });
  await bp.subscribe(KEYS.fleet, c.onFleet);
  await bp.subscribe(KEYS.member(id), (text) => {
    const m = JSON.parse(text);
    if (m.t === 'sync-res') c.onSyncRes(m, clock.now());
  });
  t.after(() => c.close());
  return { c, counters, failed };
}

test('two members estimate each other\'s clocks and turn each other\'s deadlines into their own', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const a = await member(t, bp, 'a');
  const b = await member(t, bp, 'b');
  a.c.syncAll();
  await waitFor(() => a.c.estimates().b && b.c.estimates().a, 10000, 'both estimates');
  assert.deepEqual(Object.keys(a.c.estimates()), ['b'], 'not itself');
  assert.equal(a.counters.members, 1);
  const dl = clock.now() + 1000;
  const local = a.c.localDeadline('b', dl);
  assert.ok(local !== null && local <= dl + 1, 'never later than the other clock\'s deadline (same host: same clock)');
  assert.equal(a.c.localDeadline('stranger', dl), null, 'no estimate: no deadline');
});

test('a bad heartbeat is counted; a member not heard from for memberTimeoutMs is forgotten', async (t) => {
  const bp = createLocalBackplane();
  t.after(() => bp.close());
  const a = await member(t, bp, 'a', { memberTimeoutMs: 100 });
  a.c.onFleet('not json');
  a.c.onFleet(JSON.stringify({ t: 'sync', f: 'x' }));
  assert.equal(a.counters.badMessages, 2);
  a.c.onFleet(JSON.stringify({ t: 'sync', f: 'ghost', t1: clock.now() }));
  assert.equal(a.counters.members, 1);
  await waitFor(() => a.counters.members === 0, 5000, 'the silent member to be forgotten');
  assert.equal(a.c.localDeadline('ghost', clock.now()), null);
});
