'use strict';
/**
 * The command log's writer: an append-only file of JSON lines, each entry chained to the one
 * before it by a SHA-256 hash (lib/history/audit-chain.js), and a head file beside it
 * (`<file>.head`: the newest entry's number and hash) so that a cut at the end is found too.
 *
 * Writing never holds up a command: `append()` only queues the entry; the entries are sealed onto
 * the chain and written in the order they were appended, in batches, one write at a time. A write
 * that fails (disk full, no permission) is counted, reported once per run of failures through
 * `onError`, and tried again with the same lines after `retryMs`: the runtime never crashes over
 * it. Entries that arrive while `maxPending` wait are dropped and counted, and once the disk takes
 * writes again a `gap` entry in the chain says how many were lost, so the log itself tells that
 * it is incomplete.
 *
 * A log that exists already is continued: its last entry is read at open and the chain goes on
 * from it (a restart leaves no seam). A log shorter than its head file says (its end was cut off
 * while the writer was down) gets a `cut` entry that records it before anything else.
 *
 * Plain module over node:fs; lib/history/audit-store.js keeps one per file for the runtime.
 */
const fs = require('node:fs');
const path = require('node:path');
const { GENESIS, seal } = require('./audit-chain');

const DEFAULTS = {
  maxPending: 100000, // entries waiting for the disk; more are dropped, counted, and a gap entry says so
  retryMs: 1000, // after a failed write, the next try (same lines, same order)
  tailBytes: 64 * 1024, // how much of an existing log's end is read at open to find its last entry
  fileMode: 0o600, // the log names tokens' fingerprints and addresses: owner only
};

/**
 * The last whole entry of a log's text tail, and whether the file ends mid-line.
 * @param {string} tail the file's last bytes as text
 * @returns {{last: object|null, torn: boolean}}
 */
function lastEntryOf(tail) {
  const torn = tail.length > 0 && !tail.endsWith('\n');
  const lines = tail.split('\n').filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    try {
      const e = JSON.parse(lines[i]);
      if (e && Number.isSafeInteger(e.n) && typeof e.hash === 'string') return { last: e, torn };
    } catch { /* a line cut short, or the tail began mid-line: look further back */ }
  }
  return { last: null, torn };
}

/**
 * Read where an existing log's chain ends.
 * @param {string} file
 * @param {number} tailBytes
 * @returns {Promise<{tip: {n: number, hash: string}, torn: boolean, head: object|null}>}
 */
async function readTip(file, tailBytes) {
  let head = null;
  try { head = JSON.parse(await fs.promises.readFile(`${file}.head`, 'utf8')); } catch { /* no head yet */ }
  let fh;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (err) {
    if (err.code === 'ENOENT') return { tip: { n: 0, hash: GENESIS }, torn: false, head };
    throw err;
  }
  try {
    const { size } = await fh.stat();
    const len = Math.min(size, tailBytes);
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, size - len);
    const { last, torn } = lastEntryOf(buf.toString('utf8'));
    return { tip: last ? { n: last.n, hash: last.hash } : { n: 0, hash: GENESIS }, torn, head };
  } finally {
    await fh.close();
  }
}

/**
 * @param {object} opts DEFAULTS plus:
 * @param {string} opts.file the log's path (its folder is made if missing)
 * @param {(err: Error) => void} [opts.onError] a write failed (once per run of failures) or the
 *   log could not be opened
 * @param {() => number} [opts.now] wall clock for entries without `t`
 * @param {() => void} [opts.onWritten] a batch of entries is on disk (the fleet's shared copy
 *   takes them from the file then: lib/history/audit-share.js)
 * @returns {{append(fields: object): boolean, flushed(): Promise<void>, close(): Promise<void>,
 *   counters: object, file: string, head(): {n: number, hash: string}}}
 */
function createAuditLog(opts) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || Date.now;
  const onError = o.onError || (() => {});
  const counters = { appended: 0, written: 0, writeErrors: 0, dropped: 0, pending: 0, bytes: 0, failing: 0 };
  let tip = { n: 0, hash: GENESIS };
  let queue = []; // entries' own fields, in the order appended
  let unwritten = ''; // sealed lines a failed write left, written first
  let unwrittenCount = 0;
  let lost = 0; // entries dropped since the last gap entry
  let prefix = ''; // '\n' when the file ended mid-line
  let running = null; // the write run under way
  let scheduled = false;
  let closed = false;
  let retryTimer = null;
  let idle = [];

  let opened = false;

  /** Find where the existing log's chain ends (tried again with the writes while it fails). */
  async function openLog() {
    await fs.promises.mkdir(path.dirname(o.file), { recursive: true });
    const found = await readTip(o.file, o.tailBytes);
    tip = found.tip;
    if (found.torn) prefix = '\n';
    if (found.head && Number.isSafeInteger(found.head.n) && found.head.n > tip.n) {
      // Written before this start but gone now: recorded in the chain so it cannot be hidden.
      queue.unshift({ t: now(), kind: 'cut', lastEntry: tip.n, headEntry: found.head.n });
    }
    opened = true;
  }

  const pendingCount = () => queue.length + unwrittenCount;
  const settle = () => {
    counters.pending = pendingCount();
    if (counters.pending === 0 && !running) { const w = idle; idle = []; for (const r of w) r(); }
  };

  async function writeHead() {
    const tmp = `${o.file}.head.tmp`;
    await fs.promises.writeFile(tmp, `${JSON.stringify({ n: tip.n, hash: tip.hash, t: now() })}\n`, { mode: o.fileMode });
    await fs.promises.rename(tmp, `${o.file}.head`);
  }

  /** Seal what is queued onto the chain, as lines after the ones a failed write left. */
  function sealQueued() {
    if (lost > 0) { queue.push({ t: now(), kind: 'gap', lost }); lost = 0; } // dropped after all that waits
    if (!queue.length) return;
    let text = '';
    for (const fields of queue) {
      const e = seal(fields, tip);
      tip = { n: e.n, hash: e.hash };
      text += `${JSON.stringify(e)}\n`;
    }
    unwritten += text;
    unwrittenCount += queue.length;
    queue = [];
  }

  /** Write everything sealed and queued, batch after batch, until nothing waits. */
  async function run() {
    try {
      if (!opened) await openLog();
      while (pendingCount() > 0 || lost > 0) {
        sealQueued();
        const text = prefix + unwritten;
        await fs.promises.appendFile(o.file, text, { mode: o.fileMode });
        prefix = '';
        counters.written += unwrittenCount;
        counters.bytes += Buffer.byteLength(text);
        unwritten = '';
        unwrittenCount = 0;
        await writeHead();
        counters.failing = 0;
        if (o.onWritten) o.onWritten();
      }
    } catch (err) {
      counters.writeErrors += 1;
      if (counters.failing === 0) onError(err);
      counters.failing += 1;
      if (!closed) {
        // Not unref'd: unwritten entries keep the process until they are written or close() gives up.
        retryTimer = setTimeout(() => { retryTimer = null; pump(); }, o.retryMs);
      }
    }
  }

  /** Start writing unless a write runs or waits for its retry; resolves when this run ends. */
  function pump() {
    scheduled = false;
    if (running || retryTimer) return running || Promise.resolve();
    running = run().finally(() => { running = null; settle(); });
    return running;
  }

  return {
    file: o.file,
    counters,
    /** The newest entry written or sealed: {n, hash}. */
    head: () => ({ ...tip }),
    /**
     * Queue an entry (returns at once; written in order, soon after).
     * @param {object} fields the entry's fields; `t` (ms since the epoch) is added when missing
     * @returns {boolean} false: dropped (the log is closed, or maxPending entries wait), counted
     */
    append(fields) {
      if (closed || pendingCount() >= o.maxPending) {
        counters.dropped += 1;
        if (!closed) lost += 1;
        return false;
      }
      // The entries dropped before this one: a gap entry where they belonged.
      if (lost > 0) { queue.push({ t: now(), kind: 'gap', lost }); lost = 0; }
      queue.push(fields.t === undefined ? { t: now(), ...fields } : { ...fields });
      counters.appended += 1;
      counters.pending = pendingCount();
      if (!scheduled && !running && !retryTimer) { scheduled = true; setImmediate(pump); }
      return true;
    },
    /** Resolves once every entry appended so far is on disk (or waits for a retry). */
    flushed() {
      if (pendingCount() === 0 && !running && lost === 0) return Promise.resolve();
      return new Promise((resolve) => { idle.push(resolve); });
    },
    /** Write what is queued (one last try), then take no more. */
    async close() {
      if (closed) return;
      closed = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      if (running) await running;
      if (pendingCount() > 0 || lost > 0) await pump();
      const w = idle; idle = []; for (const r of w) r();
    },
  };
}

module.exports = { DEFAULTS, createAuditLog, lastEntryOf, readTip };
