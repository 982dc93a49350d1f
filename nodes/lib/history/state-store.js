'use strict';
/**
 * The plant history of the cloud: every state and snapshot the edge sends, one row per tag value,
 * in an embedded SQLite database (node:sqlite, lib/history/sqlite.js) with a retention.
 *
 *   states(id, plant, t, ets, seq, kind, tag, value)   index (plant, t)
 *
 * What each column holds is lib/history/rows.js's (`t` on the cloud's clock, `ets` the edge's
 * timestamp, `kind` state, snap or backfill); the `value` column has no type affinity, so each
 * value keeps its own (a BOOL as 0/1, numbers as SQLite numbers, a STRING tag's text as text).
 *
 * A backfilled row is filed once: (plant, seq, ets, tag) of a `backfill` row is unique (the edge's
 * journal record number, its timestamp and the tag: lib/history/rows.js), and a row sent again (its
 * answer lost with the link, or the cloud restarted before answering) is ignored by the database.
 *
 * Writing never holds up the link: `add()` only queues rows; they go into the database together,
 * in one transaction every `flushMs`; `whenWritten()` says when what was added is on the disk (the
 * cloud answers a backfill only then, so the edge never drops a record the history may lose). A failing write is counted and reported once per run of
 * failures (`onError`); its rows stay queued, in order, and are tried again every `retryMs` (also
 * on a quiet plant, when nothing new is added) and with the next batch. The queue holds at most
 * `maxPending` rows: past it, new rows are dropped and counted, and `add()` says so (false). A row
 * once queued is never dropped, so a `whenWritten()` resolves only when every row it waits for is
 * written. Rows older than the retention are deleted every `pruneMs`.
 *
 * Plain module; the cloud's edge endpoint node feeds one per runtime (lib/history/state-history.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { loadSqlite } = require('./sqlite');
const { rowsOf, framesOf } = require('./rows');

const DEFAULTS = {
  retentionMs: 7 * 24 * 3600 * 1000, // 7 days
  flushMs: 200, // rows wait at most this long for their transaction
  retryMs: 1000, // after a failed write, the next try
  pruneMs: 60 * 1000, // how often rows past the retention are deleted
  maxPending: 200000, // rows waiting for the database; more are dropped and counted
  maxRows: 500000, // rows one query returns at most (truncated: true past it)
};

const SCHEMA = `
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = NORMAL;
  CREATE TABLE IF NOT EXISTS states (
    id INTEGER PRIMARY KEY,
    plant TEXT NOT NULL,
    t INTEGER NOT NULL,
    ets INTEGER,
    seq INTEGER,
    kind TEXT NOT NULL,
    tag TEXT NOT NULL,
    value NOT NULL
  );
  CREATE INDEX IF NOT EXISTS states_plant_t ON states (plant, t);
  CREATE UNIQUE INDEX IF NOT EXISTS states_backfill ON states (plant, seq, ets, tag) WHERE kind = 'backfill';
`;

/**
 * @param {object} opts DEFAULTS plus:
 * @param {string} opts.file the database file (its folder is made if missing), or ':memory:'
 * @param {() => number} [opts.now] the cloud's clock
 * @param {(err: Error) => void} [opts.onError] a write failed (once per run of failures)
 */
function createStateStore(opts) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || Date.now;
  const onError = o.onError || (() => {});
  const { DatabaseSync } = loadSqlite();
  if (o.file !== ':memory:') fs.mkdirSync(path.dirname(o.file), { recursive: true });
  const db = new DatabaseSync(o.file);
  db.exec(SCHEMA);
  // OR IGNORE: only the backfill index is unique, so only a backfilled row filed before is ignored.
  const insert = db.prepare('INSERT OR IGNORE INTO states (plant, t, ets, seq, kind, tag, value) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const prune = db.prepare('DELETE FROM states WHERE t < ?');
  const counters = { frames: 0, rows: 0, written: 0, ignored: 0, pending: 0, dropped: 0, writeErrors: 0, failing: 0, pruned: 0, queries: 0 };
  let pending = [];
  let waiters = []; // whenWritten() promises of rows in `pending`: resolved by the transaction that writes them
  let timer = null;
  let closed = false;

  function schedule(ms) {
    if (timer || closed || !pending.length) return;
    timer = setTimeout(flush, ms);
    timer.unref?.();
  }

  function flush() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (!pending.length || closed) return;
    // The rows stay in `pending` until they are written: a failed write leaves the queue as it was
    // (rows added meanwhile, by onError, go behind them within maxPending), so nothing queued is dropped.
    const rows = pending;
    try {
      db.exec('BEGIN');
      let written = 0;
      for (const r of rows) written += Number(insert.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6]).changes);
      db.exec('COMMIT');
      pending = [];
      counters.written += written;
      counters.ignored += rows.length - written;
      counters.failing = 0;
      const done = waiters;
      waiters = [];
      for (const w of done) w.resolve();
    } catch (err) {
      try { db.exec('ROLLBACK'); } catch { /* no transaction open */ }
      counters.writeErrors += 1;
      counters.failing += 1;
      if (counters.failing === 1) onError(err);
    }
    counters.pending = pending.length;
    schedule(o.retryMs); // still queued (the write failed): tried again, also when nothing new comes
  }

  function pruneOld() {
    try {
      counters.pruned += Number(prune.run(now() - o.retentionMs).changes);
    } catch (err) {
      counters.writeErrors += 1;
      onError(err);
    }
  }

  pruneOld();
  const pruner = setInterval(pruneOld, o.pruneMs);
  pruner.unref?.();

  return {
    counters,
    file: o.file,
    /**
     * A state, snap or backfill frame of a plant (anything else is ignored; lib/history/rows.js). Returns at once.
     * @param {string} plant
     * @param {{k: string, d: object, ts?: number, seq?: number, ct?: number}} env
     * @param {number} [at] its arrival on the cloud's clock (default now)
     * @returns {boolean} false when rows of it were dropped (past maxPending) or the store is closed
     */
    add(plant, env, at) {
      if (closed) return false;
      const rows = rowsOf(plant, env, at === undefined ? now() : at);
      if (!rows.length) return true;
      counters.frames += 1;
      let whole = true;
      for (const r of rows) {
        if (pending.length >= o.maxPending) { counters.dropped += 1; whole = false; continue; }
        pending.push(r);
        counters.rows += 1;
      }
      counters.pending = pending.length;
      schedule(counters.failing ? o.retryMs : o.flushMs); // a retry already due stays as it is
      return whole;
    },
    /**
     * When every row added so far is in the database (resolves at once when none waits). Rows
     * dropped past maxPending were never queued (their add() said false): counted, not waited for.
     * A row once queued is never dropped, so this never resolves for rows that are not written.
     * @returns {Promise<void>} rejects with E_HISTORY_STORE if the store closes first
     */
    whenWritten() {
      if (closed) return Promise.reject(Object.assign(new Error('the plant history is closed'), { code: 'E_HISTORY_STORE' }));
      if (!pending.length) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    /** Write what is queued now (a query does this first). */
    flush,
    /**
     * The frames of a plant in [from, to], oldest first, each as it came: {t, ets, seq, k, d}.
     * @param {{plant: string|string[], from: number, to: number, tags?: string[], limit?: number}} q plant '*': every plant
     * @returns {{frames: object[], rows: number, truncated: boolean}}
     */
    query(q) {
      flush();
      counters.queries += 1;
      const limit = Math.min(q.limit || o.maxRows, o.maxRows);
      const where = ['t >= ?', 't <= ?'];
      const args = [q.from, q.to];
      if (q.plant !== '*') {
        const plants = [].concat(q.plant);
        where.push(`plant IN (${plants.map(() => '?').join(',')})`);
        args.push(...plants);
      }
      if (q.tags && q.tags.length) {
        where.push(`tag IN (${q.tags.map(() => '?').join(',')})`);
        args.push(...q.tags);
      }
      const sql = `SELECT plant, t, ets, seq, kind, tag, value FROM states WHERE ${where.join(' AND ')} ORDER BY t, id LIMIT ?`;
      const rows = db.prepare(sql).all(...args, limit + 1);
      const truncated = rows.length > limit;
      if (truncated) rows.pop();
      const frames = framesOf(rows);
      return { frames, rows: rows.length, truncated };
    },
    /** Delete rows past the retention now (it also runs every pruneMs). */
    prune: pruneOld,
    /** Write what is queued, stop, close the database. */
    close() {
      if (closed) return;
      flush();
      closed = true;
      if (timer) { clearTimeout(timer); timer = null; }
      clearInterval(pruner);
      db.close();
      const left = waiters;
      waiters = [];
      for (const w of left) w.reject(Object.assign(new Error('the plant history closed before its rows were written'), { code: 'E_HISTORY_STORE' }));
    },
  };
}

module.exports = { DEFAULTS, createStateStore };
