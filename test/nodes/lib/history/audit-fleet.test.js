'use strict';
/**
 * lib/history/audit-fleet.js against a real redis-server on an ephemeral port: two instances'
 * command logs (each its own chain file, copied to Redis), read on either instance: every
 * command once, merged by arrival, each with its outcome, a command left in doubt on one instance
 * settled by its key's answer on the other; a copy edited in Redis found at its entry; Redis
 * away: this instance's own commands, said to be incomplete.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { createAuditShare } = require('../../../../nodes/lib/history/audit-share');
const { queryFleetCommands } = require('../../../../nodes/lib/history/audit-fleet');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../../system/wait');

/** An instance's command log, its recorder and its copy on Redis. */
function instance(t, dir, name, url) {
  const file = path.join(dir, `${name}.jsonl`);
  let share = null;
  const log = createAuditLog({ file, onWritten: () => share && share.poke() });
  share = createAuditShare({ file, url, host: name, intervalMs: 100, retryMaxMs: 100 });
  t.after(async () => { await log.close(); await share.close(); });
  let clock = 0;
  const audit = createCommandAudit({ log, now: () => clock });
  return {
    file, log, share, audit,
    cmd(plant, src, seq, at, extra = {}) {
      clock = at;
      const env = { k: 'cmd', src, seq, d: { st: 1 }, dl: at + 1000, ...extra };
      audit.arrived({ via: 'ws', plant, who: { token: 'f00', role: 'twin' }, from: `${name}:1`, at, env });
    },
    answer(plant, env, at) { clock = at; audit.answered(plant, env); },
    query: (q) => queryFleetCommands({ file, redis: share.redis, q }),
  };
}

async function twoInstances(t) {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-auditf-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const a = instance(t, dir, 'a', redis.url);
  const b = instance(t, dir, 'b', redis.url);
  // Twin x on instance a, twin y on instance b, both commanding p1; a command of p2 on b.
  a.cmd('p1', 'x', 1, 1000);
  a.answer('p1', { k: 'ack', ts: 1010, ref: { src: 'x', seq: 1 } }, 1020);
  b.cmd('p1', 'y', 1, 1500);
  b.answer('p1', { k: 'err', ref: { src: 'y', seq: 1 }, e: { code: 'E_RANGE', msg: 'too big' } }, 1510);
  b.cmd('p2', 'y', 2, 1600);
  b.answer('p2', { k: 'ack', ts: 1601, ref: { src: 'y', seq: 2 } }, 1602);
  // x's command with key K1: its instance stopped before answering (no outcome in a's log) ...
  a.cmd('p1', 'x', 2, 2000, { key: 'K1' });
  // ... x moved to instance b and asked again with the same key: the edge had written it.
  b.cmd('p1', 'x', 3, 2500, { key: 'K1' });
  b.answer('p1', { k: 'ack', ts: 2010, repeat: true, ref: { src: 'x', seq: 3 } }, 2510);
  for (const i of [a, b]) {
    await i.log.flushed();
    await waitFor(() => i.share.copied === i.log.head().n, 10000, 'every entry copied');
  }
  return { redis, a, b };
}

test('either instance answers with every instance\'s commands of the plant, once each, by arrival, with their outcomes', async (t) => {
  const { a, b } = await twoInstances(t);
  const ra = await a.query({ plant: 'p1' });
  const rb = await b.query({ plant: 'p1' });
  const view = (r) => r.rows.map((x) => [x.arrived, x.src, x.seq, x.from, x.outcome, x.code ?? null]);
  assert.deepEqual(view(ra), [
    [1000, 'x', 1, 'a:1', 'written', null],
    [1500, 'y', 1, 'b:1', 'refused', 'E_RANGE'],
    [2000, 'x', 2, 'a:1', null, null],
    [2500, 'x', 3, 'b:1', 'repeat', null],
  ]);
  assert.deepEqual(view(rb), view(ra), 'the same answer on both instances');
  assert.deepEqual(ra.rows.map((r) => r.chain), [a.share.chain, b.share.chain, a.share.chain, b.share.chain], 'each row names its chain');
  const doubt = ra.rows[2];
  assert.deepEqual(doubt.settled, { outcome: 'repeat', first: 'written', n: ra.rows[3].n, chain: b.share.chain, at: 2510 },
    'the command left in doubt on a is settled by its key\'s answer on b');
  assert.equal(ra.rows[0].settled, undefined);
  assert.equal(ra.complete, true);
  assert.deepEqual(ra.chains.map((c) => [c.chain, c.own, c.ok, c.entries]), [[a.share.chain, true, true, 3], [b.share.chain, false, true, 6]]);
  assert.equal(ra.chains[1].host, 'b');
  assert.deepEqual((await a.query({ plant: '*' })).rows.length, 5);
  assert.deepEqual((await b.query({ plant: 'p1', from: 1400, to: 2100 })).rows.map((r) => [r.src, r.seq]), [['y', 1], ['x', 2]]);
  const capped = await a.query({ plant: 'p1', limit: 3 });
  assert.deepEqual([capped.rows.length, capped.truncated], [3, true]);
});

test('a copy edited in Redis is found at its entry; rows from there on are marked unverified', async (t) => {
  const { redis, a, b } = await twoInstances(t);
  const raw = new Redis(redis.url);
  t.after(() => raw.quit());
  // Rewrite b's copy with entry 3 (y's answer) changed from refused to written.
  const key = KEYS.auditChain(b.share.chain);
  const entries = await raw.xrange(key, '-', '+');
  await raw.del(key);
  for (const [id, f] of entries) await raw.xadd(key, id, 'e', f[1].replace('"outcome":"refused"', '"outcome":"written"'));
  const r = await a.query({ plant: 'p1' });
  const bv = r.chains.find((c) => c.chain === b.share.chain);
  assert.equal(bv.ok, false);
  assert.deepEqual(bv.bad.entry, 2, 'the first bad entry of the copy');
  assert.match(bv.bad.why, /edited/);
  assert.deepEqual(r.rows.filter((x) => x.unverified).map((x) => [x.src, x.seq]), [['y', 1], ['x', 3]], 'b\'s rows from entry 2 on');
  assert.equal(r.chains.find((c) => c.own).ok, true, 'a\'s own chain is intact');
});

test('Redis away: an instance answers with its own commands and says the answer is incomplete', async (t) => {
  const { redis, a } = await twoInstances(t);
  await redis.stop();
  await waitFor(() => a.share.redis.status !== 'ready', 10000, 'the connection lost');
  const r = await a.query({ plant: 'p1' });
  assert.equal(r.complete, false);
  assert.match(r.error, /could not be read from Redis/);
  assert.deepEqual(r.rows.map((x) => [x.src, x.seq]), [['x', 1], ['x', 2]]);
});
