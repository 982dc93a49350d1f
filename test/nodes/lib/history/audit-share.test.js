'use strict';
/**
 * lib/history/audit-share.js against a real redis-server on an ephemeral port: a command log's
 * entries copied to its chain's stream as written (ids = entry numbers, lines as in the file), a
 * restarted instance going on where the copy ends, a Redis that was away (or came back empty)
 * caught up from the file, and a file edited after it was copied found and no longer copied.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createAuditShare, chainId } = require('../../../../nodes/lib/history/audit-share');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../../system/wait');

function tmpFile(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-share-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'audit.jsonl');
}

/** A redis-server of the test's own, and a client of it to look at what was copied. */
async function redisFor(t) {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const raw = new Redis(redis.url);
  t.after(() => raw.quit());
  return { redis, raw };
}

/** A log and its copy, as lib/history/audit-store.js wires them. */
function open(t, file, url, o = {}) {
  let share = null;
  const log = createAuditLog({ file, onWritten: () => share && share.poke() });
  share = createAuditShare({ file, url, host: 'test-host', intervalMs: 100, retryMaxMs: 100, ...o });
  t.after(async () => { await log.close(); await share.close(); });
  return { log, share };
}

/** The stream of a chain: [[id, line]]. */
async function streamOf(raw, chain) {
  return (await raw.xrange(KEYS.auditChain(chain), '-', '+')).map(([id, f]) => [id, f[1]]);
}

const fileLines = (file) => fs.readFileSync(file, 'utf8').trimEnd().split('\n');

test('entries are copied as they are written; a restarted instance goes on where the copy ends; nothing twice', async (t) => {
  const { redis, raw } = await redisFor(t);
  const file = tmpFile(t);
  const a = open(t, file, redis.url);
  for (let i = 1; i <= 3; i += 1) a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i });
  await a.log.flushed();
  await waitFor(() => a.share.copied === 3, 10000, 'three entries copied');
  const first = JSON.parse(fileLines(file)[0]);
  assert.equal(a.share.chain, chainId(first));
  assert.match(a.share.chain, /^[0-9a-f]{16}$/);
  assert.deepEqual(await streamOf(raw, a.share.chain), fileLines(file).map((l, i) => [`${i + 1}-0`, l]), 'the lines as in the file, ids the entry numbers');
  const info = JSON.parse(await raw.hget(KEYS.auditChains, a.share.chain));
  assert.deepEqual([info.host, info.file, info.since], ['test-host', file, first.t]);
  await a.log.close();
  await a.share.close();

  // The instance restarted: the same file goes on, and so does its copy.
  const b = open(t, file, redis.url);
  b.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: 4 });
  await b.log.flushed();
  await waitFor(() => b.share.copied === 4, 10000, 'the fourth entry copied');
  assert.equal(b.share.chain, a.share.chain, 'the same chain');
  assert.deepEqual((await streamOf(raw, b.share.chain)).map(([id]) => id), ['1-0', '2-0', '3-0', '4-0']);
  assert.equal(b.share.counters.shipped, 1, 'only what the copy lacked');
});

test('Redis away: the failure is counted and reported once; the copy catches up from the file, also into a Redis that came back empty', async (t) => {
  const { redis } = await redisFor(t);
  const file = tmpFile(t);
  const errors = [];
  const a = open(t, file, redis.url, { onError: (e) => errors.push(e) });
  a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: 1 });
  await waitFor(() => a.share.copied === 1, 10000, 'the first entry copied');
  await redis.stop();
  for (let i = 2; i <= 5; i += 1) a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i });
  await a.log.flushed();
  await waitFor(() => a.share.counters.shipErrors >= 2, 10000, 'failed copies');
  assert.equal(errors.length, 1, 'reported once per run of failures');
  assert.equal(a.log.counters.written, 5, 'the file is written all the same');
  const again = await startRedis({ port: redis.port });
  t.after(() => again.stop());
  await waitFor(() => a.share.copied === 5 && a.share.counters.failing === 0, 15000, 'caught up once Redis is back');
  const raw = new Redis(again.url);
  t.after(() => raw.quit());
  assert.deepEqual(await streamOf(raw, a.share.chain), fileLines(file).map((l, i) => [`${i + 1}-0`, l]), 'the whole chain, from entry 1');
  assert.equal(errors.length, 1);
});

test('a file edited after it was copied is found: reported E_AUDIT_TAMPERED, and the copy keeps what the file said', async (t) => {
  const { redis, raw } = await redisFor(t);
  const file = tmpFile(t);
  const a = open(t, file, redis.url);
  for (let i = 1; i <= 3; i += 1) a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i, d: { st: 1 } });
  await a.log.flushed();
  await waitFor(() => a.share.copied === 3, 10000, 'copied');
  await a.log.close();
  await a.share.close();
  const before = await streamOf(raw, a.share.chain);
  // Someone changes entry 3 in the file: the copy has the original.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"seq":3', '"seq":3,"x":1'));
  const errors = [];
  const b = open(t, file, redis.url, { onError: (e) => errors.push(e) });
  b.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: 4 });
  await b.log.flushed();
  await waitFor(() => b.share.broken !== null, 10000, 'the disagreement found');
  assert.deepEqual(errors.map((e) => e.code), ['E_AUDIT_TAMPERED']);
  assert.match(b.share.broken, /entry 3 .* is not what its shared copy .* holds: the file was edited/);
  assert.equal(b.share.counters.mismatch, 1);
  assert.deepEqual(await streamOf(raw, a.share.chain), before, 'nothing more copied');
});

test('Redis restarted empty during a quiet spell (no copy failed): the whole chain is copied again and the chain listed again', async (t) => {
  const { redis } = await redisFor(t);
  const file = tmpFile(t);
  const a = open(t, file, redis.url);
  for (let i = 1; i <= 2; i += 1) a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i });
  await a.log.flushed();
  await waitFor(() => a.share.copied === 2, 10000, 'two entries copied');
  await redis.stop();
  await waitFor(() => a.share.redis.status !== 'ready', 10000, 'the connection lost');
  const again = await startRedis({ port: redis.port });
  t.after(() => again.stop());
  await waitFor(() => a.share.redis.status === 'ready', 15000, 'connected again');
  a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: 3 });
  await a.log.flushed();
  const raw = new Redis(again.url);
  t.after(() => raw.quit());
  await waitFor(async () => (await raw.xlen(KEYS.auditChain(a.share.chain))) >= 3, 10000, 'the chain copied again');
  assert.deepEqual(await streamOf(raw, a.share.chain), fileLines(file).map((l, i) => [`${i + 1}-0`, l]), 'from entry 1, not from entry 3');
  assert.equal(JSON.parse(await raw.hget(KEYS.auditChains, a.share.chain)).host, 'test-host', 'listed again');
  assert.ok(a.share.counters.resyncs >= 1);
});

test('a first line torn by a crash during the very first write: the chain is named by entry 1 on the next line, and copied', async (t) => {
  const { redis, raw } = await redisFor(t);
  const file = tmpFile(t);
  fs.writeFileSync(file, '{"n":1,"t":17000000'); // the crash: no line end
  const a = open(t, file, redis.url);
  for (let i = 1; i <= 2; i += 1) a.log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i });
  await a.log.flushed();
  const lines = fileLines(file);
  assert.equal(JSON.parse(lines[1]).n, 1, 'entry 1 on line 2');
  await waitFor(() => a.share.copied === 2, 10000, 'both entries copied');
  assert.equal(a.share.chain, chainId(JSON.parse(lines[1])));
  assert.deepEqual(await streamOf(raw, a.share.chain), lines.slice(1).map((l, i) => [`${i + 1}-0`, l]));
  assert.equal(a.share.counters.skippedLines, 1, 'the torn line');
});
