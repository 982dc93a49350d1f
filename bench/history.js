'use strict';
/**
 * What the cloud's records cost on this machine (docs/history.md): the plant history's writes and
 * queries (lib/history/state-store.js on node:sqlite) and the command log's appends
 * (lib/history/audit-log.js).
 *
 *   node bench/history.js [--hours 1] [--rate 100] [--out bench/results/<dir>]
 *
 *   write    `hours` of a busy plant (`rate` state frames a second, 3 tags each, as the box-sorting
 *            plant's busiest stretches send; timestamps spread over the hours) added and flushed in
 *            the store's own batches: rows a second, and the longest single flush (the event loop is
 *            held that long)
 *   batch    one flush at the plant's own rate: the rows of 200 ms (the store's flush period)
 *   disk     the database's size per plant-hour
 *   query    the whole window, its last 10 minutes, and one tag over the whole window: ms and rows a second
 *   audit    command log entries appended and on disk (a cmd and an outcome per command): entries a second
 *
 * Do not over-read: one shared 2-core machine, a temporary folder on its disk, SQLite's WAL mode
 * with synchronous=NORMAL (a power cut may lose the last transactions, never corrupt the file).
 * Compare runs made on the same machine only.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { createStateStore } = require('../nodes/lib/history/state-store');
const { createAuditLog } = require('../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../nodes/lib/history/command-audit');

const argv = process.argv.slice(2);
const arg = (name, d) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : d; };
const HOURS = Number(arg('hours', 1));
const RATE = Number(arg('rate', 100));
const OUT = arg('out', null);
const TAGS = ['c1', 'p1f', 'grn']; // three streamed tags per frame, as a busy scan changes them
const FLUSH_MS = 200;

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Write `HOURS` of frames through the store's own batches; returns figures and the store. */
function writeHours(dir) {
  const file = path.join(dir, 'history.sqlite');
  const store = createStateStore({ file, flushMs: 1e9, retentionMs: 1e12, maxPending: 1e9 });
  const frames = Math.round(HOURS * 3600 * RATE);
  const perBatch = Math.max(1, Math.round(RATE * FLUSH_MS / 1000));
  const t0 = Date.now() - HOURS * 3600 * 1000;
  let longest = 0;
  const start = performance.now();
  for (let i = 0; i < frames; i += 1) {
    const d = {};
    for (const [j, tag] of TAGS.entries()) d[tag] = tag === 'grn' ? (i >> 8) & 1 : (i + j) % 1000;
    store.add('plant1', { k: 'state', seq: i + 1, ts: t0 + i * (1000 / RATE), d }, t0 + Math.round(i * (1000 / RATE)));
    if ((i + 1) % perBatch === 0) {
      const f = performance.now();
      store.flush();
      longest = Math.max(longest, performance.now() - f);
    }
  }
  store.flush();
  const ms = performance.now() - start;
  const rows = frames * TAGS.length;
  const figures = {
    frames, rows, ms: round(ms), rowsPerS: Math.round(rows / (ms / 1000)), longestFlushMs: round(longest, 2), rowsPerFlush: perBatch * TAGS.length,
  };
  return { store, file, t0, figures };
}

/** One flush of the rows of one flush period at the plant's rate, many times: its median and p99. */
function batchCost(store, t0) {
  const samples = [];
  for (let n = 0; n < 200; n += 1) {
    for (let i = 0; i < RATE * FLUSH_MS / 1000; i += 1) store.add('plant2', { k: 'state', seq: n * 100 + i + 1, d: { c1: i, p1f: 1, grn: 0 } }, t0);
    const f = performance.now();
    store.flush();
    samples.push(performance.now() - f);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: round(samples[Math.floor(samples.length / 2)], 3), p99Ms: round(samples[Math.floor(samples.length * 0.99)], 3) };
}

function time(fn) {
  const s = performance.now();
  const r = fn();
  return { r, ms: performance.now() - s };
}

function queries(store, t0) {
  const end = t0 + HOURS * 3600 * 1000;
  const out = {};
  const cases = {
    whole: { plant: 'plant1', from: t0, to: end },
    last10min: { plant: 'plant1', from: end - 600000, to: end },
    oneTag: { plant: 'plant1', from: t0, to: end, tags: ['grn'] },
  };
  for (const [name, q] of Object.entries(cases)) {
    const { r, ms } = time(() => store.query(q));
    out[name] = { frames: r.frames.length, rows: r.rows, truncated: r.truncated, ms: round(ms), rowsPerS: Math.round(r.rows / (ms / 1000)) };
  }
  return out;
}

async function auditAppends(dir, n = 20000) {
  const log = createAuditLog({ file: path.join(dir, 'audit.jsonl') });
  const audit = createCommandAudit({ log });
  const start = performance.now();
  for (let i = 1; i <= n; i += 1) {
    audit.arrived({ via: 'ws', plant: 'plant1', who: { token: 'aaaabbbbcccc', role: 'twin' }, from: '127.0.0.1:5000', at: Date.now(),
      env: { k: 'cmd', src: 'twin-1', seq: i, d: { st: 1 }, dl: Date.now() + 1000 } });
    audit.answered('plant1', { k: 'ack', ts: Date.now(), ref: { src: 'twin-1', seq: i } });
  }
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

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-history-'));
  try {
    const w = writeHours(dir);
    const batch = batchCost(w.store, w.t0);
    w.store.close();
    const bytes = fs.statSync(w.file).size + (fs.existsSync(`${w.file}-wal`) ? fs.statSync(`${w.file}-wal`).size : 0);
    const reopened = createStateStore({ file: w.file, retentionMs: 1e12 });
    const q = queries(reopened, w.t0);
    reopened.close();
    const result = {
      node: process.version, cpus: os.cpus().length, hours: HOURS, rate: RATE, tagsPerFrame: TAGS.length,
      write: w.figures, batch, disk: { bytes, mbPerPlantHour: round(bytes / HOURS / 1e6, 2) }, query: q, audit: await auditAppends(dir),
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
