'use strict';
/**
 * What the cloud's records cost on this machine (docs/history.md): the plant history's writes and
 * queries (the embedded store, lib/history/state-store.js on node:sqlite, and a fleet's shared
 * one, lib/history/redis-store.js on Debian's redis-server) and the command log's appends
 * (lib/history/audit-log.js) and, in a fleet, its copy on Redis (lib/history/audit-share.js) and
 * the whole fleet's log read back (lib/history/audit-fleet.js).
 *
 *   node bench/history.js [--hours 1] [--rate 100] [--store sqlite|redis|both] [--commands 20000] [--out bench/results/<dir>]
 *
 *   write    `hours` of a busy plant (`rate` state frames a second, 3 tags each, as the box-sorting
 *            plant's busiest stretches send; timestamps spread over the hours) added and flushed in
 *            the store's own batches (SQLite: the rows of 200 ms per transaction; Redis: 5,000
 *            frames per pipeline): rows a second, and the longest time one flush took this process's
 *            CPU (SQLite: the event loop held at once; Redis: in pieces)
 *   batch    one flush at the plant's own rate, the rows of 200 ms (the store's flush period): this
 *            process's CPU (for Redis also the time until Redis has them)
 *   disk     SQLite: the database's size per plant-hour; Redis: its memory (used_memory) per plant-hour
 *   query    the whole window, its last 10 minutes, one tag over the whole window, and a tag no frame
 *            carries (the cost of looking at every frame of a window): ms and rows a second
 *   audit    command log entries appended and on disk (a cmd and an outcome per command): entries a
 *            second; with Redis also until the copy has them all, its memory per command, and the
 *            read of that copy by another instance (chain checked, commands joined)
 *
 * --store sqlite (the default) keeps the figures at the top level of summary.json; redis puts the
 * Redis store's under `redis` (both: the two, one after the other, on the same machine).
 *
 * Do not over-read: one shared 2-core machine, a temporary folder on its disk, SQLite's WAL mode
 * with synchronous=NORMAL (a power cut may lose the last transactions, never corrupt the file),
 * redis-server on the same machine with no persistence (loopback: no network in the figures).
 * Compare runs made on the same machine only.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { createStateStore } = require('../nodes/lib/history/state-store');
const { createRedisStateStore } = require('../nodes/lib/history/redis-store');
const { createAuditLog } = require('../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../nodes/lib/history/command-audit');
const { createAuditShare } = require('../nodes/lib/history/audit-share');
const { queryFleetCommands } = require('../nodes/lib/history/audit-fleet');
const { startRedis, redisVersion } = require('../system/redis');
const { waitFor } = require('../system/wait');

const argv = process.argv.slice(2);
const arg = (name, d) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : d; };
const HOURS = Number(arg('hours', 1));
const RATE = Number(arg('rate', 100));
const OUT = arg('out', null);
const STORE = arg('store', 'sqlite');
const COMMANDS = Number(arg('commands', 20000)); // commands the command log's figures are made of
const TAGS = ['c1', 'p1f', 'grn']; // three streamed tags per frame, as a busy scan changes them
const FLUSH_MS = 200;
const REDIS_BATCH = 5000; // frames per pipeline: the Redis store's batchFrames

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const quantiles = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p99: s[Math.floor(s.length * 0.99)] };
};

/**
 * One flush: how long it held this process's CPU (SQLite: the event loop, all at once; Redis: in
 * pieces, building the pipeline and reading its replies), and how long until it was done.
 */
async function timedFlush(store) {
  const f = performance.now();
  const c = process.cpuUsage();
  const p = store.flush();
  const held = performance.now() - f;
  await p;
  const cpu = process.cpuUsage(c);
  return { held: Math.max(held, (cpu.user + cpu.system) / 1000), total: performance.now() - f };
}

/**
 * Write `HOURS` of frames through the store's own batches (`perFlush` frames, then a flush).
 * @returns {Promise<{t0: number, figures: object}>}
 */
async function writeHours(store, perFlush) {
  const frames = Math.round(HOURS * 3600 * RATE);
  const t0 = Date.now() - HOURS * 3600 * 1000;
  let longest = 0;
  const start = performance.now();
  for (let i = 0; i < frames; i += 1) {
    const d = {};
    for (const [j, tag] of TAGS.entries()) d[tag] = tag === 'grn' ? (i >> 8) & 1 : (i + j) % 1000;
    store.add('plant1', { k: 'state', seq: i + 1, ts: t0 + i * (1000 / RATE), d }, t0 + Math.round(i * (1000 / RATE)));
    if ((i + 1) % perFlush === 0) longest = Math.max(longest, (await timedFlush(store)).held);
  }
  await store.flush();
  const ms = performance.now() - start;
  const rows = frames * TAGS.length;
  return {
    t0,
    figures: {
      frames, rows, ms: round(ms), rowsPerS: Math.round(rows / (ms / 1000)), longestFlushMs: round(longest, 2), rowsPerFlush: perFlush * TAGS.length,
    },
  };
}

/** One flush of the rows of one flush period at the plant's rate, many times: its median and p99. */
async function batchCost(store, t0) {
  const held = [];
  const total = [];
  for (let n = 0; n < 200; n += 1) {
    for (let i = 0; i < RATE * FLUSH_MS / 1000; i += 1) store.add('plant2', { k: 'state', seq: n * 100 + i + 1, d: { c1: i, p1f: 1, grn: 0 } }, t0 + n);
    const f = await timedFlush(store);
    held.push(f.held);
    total.push(f.total);
  }
  const h = quantiles(held);
  const w = quantiles(total);
  return { medianMs: round(h.median, 3), p99Ms: round(h.p99, 3), doneMedianMs: round(w.median, 3), doneP99Ms: round(w.p99, 3) };
}

async function queries(store, t0) {
  const end = t0 + HOURS * 3600 * 1000;
  const out = {};
  const cases = {
    whole: { plant: 'plant1', from: t0, to: end },
    last10min: { plant: 'plant1', from: end - 600000, to: end },
    oneTag: { plant: 'plant1', from: t0, to: end, tags: ['grn'] },
    absentTag: { plant: 'plant1', from: t0, to: end, tags: ['ng'] }, // a tag no frame of the hour carries: every frame looked at
  };
  for (const [name, q] of Object.entries(cases)) {
    const s = performance.now();
    const r = await store.query(q);
    const ms = performance.now() - s;
    out[name] = { frames: r.frames.length, rows: r.rows, truncated: r.truncated, ms: round(ms), rowsPerS: Math.round(r.rows / (ms / 1000)) };
  }
  return out;
}

/** Commands through the recorder into a log: a cmd and an outcome each. */
function record(audit, n) {
  for (let i = 1; i <= n; i += 1) {
    audit.arrived({ via: 'ws', plant: 'plant1', who: { token: 'aaaabbbbcccc', role: 'twin' }, from: '127.0.0.1:5000', at: Date.now(),
      env: { k: 'cmd', src: 'twin-1', seq: i, d: { st: 1 }, dl: Date.now() + 1000 } });
    audit.answered('plant1', { k: 'ack', ts: Date.now(), ref: { src: 'twin-1', seq: i } });
  }
}

async function auditAppends(dir, n = COMMANDS) {
  const log = createAuditLog({ file: path.join(dir, 'audit.jsonl') });
  const audit = createCommandAudit({ log });
  const start = performance.now();
  record(audit, n);
  const queued = performance.now() - start;
  await log.flushed();
  const ms = performance.now() - start;
  await log.close();
  const bytes = fs.statSync(path.join(dir, 'audit.jsonl')).size;
  return {
    commands: n, entries: 2 * n, queueMs: round(queued), onDiskMs: round(ms),
    entriesPerS: Math.round((2 * n) / (ms / 1000)), bytesPerCommand: Math.round(bytes / n),
  };
}

/** Redis's own memory use (INFO memory used_memory), bytes. */
async function usedMemory(redis) {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
}

/** The command log with its copy on Redis, then read back by another instance. */
async function auditShared(dir, url, redis, n = COMMANDS) {
  const file = path.join(dir, 'audit-shared.jsonl');
  let share = null;
  const log = createAuditLog({ file, onWritten: () => share && share.poke() });
  share = createAuditShare({ file, url, intervalMs: 1000 });
  const audit = createCommandAudit({ log });
  const mem0 = await usedMemory(redis);
  const start = performance.now();
  record(audit, n);
  await log.flushed();
  const onDisk = performance.now() - start;
  await waitFor(() => share.copied === 2 * n, 600000, 'the copy of every entry');
  const copied = performance.now() - start;
  const bytes = (await usedMemory(redis)) - mem0;
  await log.close();
  await share.close();
  // Another instance reads the fleet's log: its own (empty) file, and this chain from Redis, checked.
  const s = performance.now();
  const r = await queryFleetCommands({ file: path.join(dir, 'other.jsonl'), redis, q: { plant: 'plant1' } });
  const readMs = performance.now() - s;
  if (r.rows.length !== n || !r.chains.every((c) => c.ok)) throw new Error(`the fleet read gave ${r.rows.length} commands, chains ${JSON.stringify(r.chains)}`);
  return {
    commands: n, entries: 2 * n, onDiskMs: round(onDisk), copiedMs: round(copied), copiedPerS: Math.round((2 * n) / (copied / 1000)),
    redisBytesPerCommand: Math.round(bytes / n), fleetReadMs: round(readMs), fleetReadCommandsPerS: Math.round(n / (readMs / 1000)),
  };
}

async function sqliteFigures(dir) {
  const file = path.join(dir, 'history.sqlite');
  const store = createStateStore({ file, flushMs: 1e9, retentionMs: 1e12, maxPending: 1e9 });
  const w = await writeHours(store, Math.max(1, Math.round(RATE * FLUSH_MS / 1000)));
  const batch = await batchCost(store, w.t0);
  store.close();
  const bytes = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  const reopened = createStateStore({ file, retentionMs: 1e12 });
  const q = await queries(reopened, w.t0);
  reopened.close();
  return {
    write: w.figures, batch: { medianMs: batch.medianMs, p99Ms: batch.p99Ms }, disk: { bytes, mbPerPlantHour: round(bytes / HOURS / 1e6, 2) },
    query: q, audit: await auditAppends(dir),
  };
}

async function redisFigures(dir) {
  const server = await startRedis();
  try {
    const store = createRedisStateStore({ url: server.url, flushMs: 1e9, retentionMs: 1e12, maxPending: 1e9 });
    const redis = store.redis;
    await waitFor(() => redis.status === 'ready', 10000, 'the store connected');
    const mem0 = await usedMemory(redis);
    const w = await writeHours(store, REDIS_BATCH);
    const bytes = (await usedMemory(redis)) - mem0;
    const batch = await batchCost(store, w.t0);
    const q = await queries(store, w.t0);
    const audit = await auditShared(dir, server.url, redis);
    await store.close();
    return {
      redisServer: redisVersion(),
      write: w.figures, batch, memory: { bytes, mbPerPlantHour: round(bytes / HOURS / 1e6, 2), bytesPerRow: round(bytes / w.figures.rows, 1) },
      query: q, audit,
    };
  } finally {
    await server.stop();
  }
}

async function main() {
  if (!['sqlite', 'redis', 'both'].includes(STORE)) throw new Error('--store is sqlite, redis or both');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-history-'));
  try {
    const result = {
      node: process.version, cpus: os.cpus().length, load: os.loadavg().map((x) => round(x, 2)), hours: HOURS, rate: RATE, tagsPerFrame: TAGS.length,
      ...(STORE === 'redis' ? {} : await sqliteFigures(dir)),
      ...(STORE === 'sqlite' ? {} : { redis: await redisFigures(dir) }),
    };
    const text = JSON.stringify(result, null, 2);
    console.log(text);
    if (OUT) {
      fs.mkdirSync(OUT, { recursive: true });
      fs.writeFileSync(path.join(OUT, 'summary.json'), `${text}\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) main().catch((err) => { console.error(err); process.exitCode = 1; });
