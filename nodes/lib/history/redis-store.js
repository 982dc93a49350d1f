'use strict';
/**
 * The plant history of a fleet: every instance writes into and reads from one Redis (the fleet's,
 * lib/fleet/backplane.js connectRedis), so `GET /s7twin/history` answers the same on any
 * instance. The same interface as the embedded store (lib/history/state-store.js): `add(plant,
 * env, at)`, `flush()`, `query({plant, from, to, tags, limit})` → `{frames, rows, truncated}`,
 * `prune()`, `counters`, `close()`; here flush, query, prune and close return promises.
 *
 *   s7twin:<plant>:history   sorted set: one member per frame, scored by `t` (lib/history/rows.js:
 *                            the time the history files it under, on the cloud's clock)
 *   s7twin:history:plants    set: the plants that have one (lib/fleet/keys.js)
 *
 * Why a sorted set by `t`, not a stream keyed by arrival: a backfilled state (kind `backfill`)
 * is filed under its own time, which is earlier than frames already stored when it arrives after
 * the edge's reconnect. A sorted set takes a member at any score and reads a window by score
 * (ZRANGEBYSCORE, O(log n) to the window's start), so a late frame sits where it belongs and a
 * query reads exactly its window. A stream only appends at growing ids: filed by arrival, a
 * query for a window would have to read on past its end for as long as a backfill may come late
 * (an outage's journal: hours), or keep a second index of the late ranges. A frame is one member
 * (its rows' values together), not one per row: a member costs Redis about 60 bytes besides its
 * text, and a frame of three tags as one member takes half the memory of three.
 *
 * Exactly-once under retries: a member is the frame's own text (lib/history/rows.js's row
 * fields, no random id), so a batch written again after a connection broke mid-write (ZADD of the
 * same member at the same score) changes nothing: a frame is never filed twice.
 *
 * Writing never holds up the link: `add()` only queues; a batch goes out every `flushMs` as one
 * pipeline (ZADD per plant in chunks, so Redis serves other clients, the fleet's leases among
 * them, between chunks; a PEXPIRE of the retention; the plants set). A failing write (Redis
 * down, out of memory) is counted and reported once per run of failures (`onError`); its frames
 * go back to the head of the queue and are tried again every `retryMs`, up to `maxPending` rows,
 * past which new frames are dropped and counted. Frames older than the retention are removed every
 * `pruneMs` (and a plant's whole key expires a retention after its last write); a failing prune
 * is counted (`pruneErrors`) and reported once per run of its own failures, apart from the writes'.
 * A query of several plants holds at most about twice its limit of rows: each plant's rows are
 * joined with those so far, sorted by `t` and cut back to the limit (+1, to know it was cut).
 *
 * Plain module; lib/history/state-history.js keeps one per Redis URL for the runtime.
 */
const { rowsOf, framesOf } = require('./rows');
const { connectRedis, whenReady, safeUrl } = require('../fleet/backplane');
const { KEYS } = require('../fleet/keys');

const DEFAULTS = {
  retentionMs: 7 * 24 * 3600 * 1000, // 7 days
  flushMs: 200, // frames wait at most this long for their batch
  retryMs: 1000, // after a failed write, the next try
  pruneMs: 60 * 1000, // how often frames past the retention are removed
  maxPending: 200000, // rows waiting for Redis; more are dropped and counted
  maxRows: 500000, // rows one query returns at most (truncated: true past it)
  batchFrames: 5000, // frames in one pipeline
  chunk: 500, // members in one ZADD
  page: 10000, // members one query reads per round trip
  commandTimeoutMs: 10000, // a pruning of a long-idle key may take Redis a while
  firstConnectMs: 5000, // frames and queries wait this long for the first connection
};

/**
 * A frame's rows as one member: [ets, seq, kind, {tag: value}] (plant and t are the key and the score).
 * @param {Array<Array>} rows lib/history/rows.js rowsOf of one frame
 * @returns {string}
 */
function memberOf(rows) {
  const [, , ets, seq, kind] = rows[0];
  const d = {};
  for (const r of rows) d[r[5]] = r[6];
  return JSON.stringify([ets, seq, kind, d]);
}

/**
 * A member back as rows (objects, as lib/history/rows.js framesOf reads them), only the asked tags.
 * @param {string} plant
 * @param {number} t its score
 * @param {string} member
 * @param {Set<string>|null} tags null: every tag
 * @returns {object[]} no rows for a member that is not one of ours (counted by the caller)
 */
function rowsOfMember(plant, t, member, tags) {
  // A frame without any of the asked tags is not parsed: a tag's name followed by `":` occurs in
  // a member's text only as a key (inside a string value, JSON escapes the quote).
  if (tags && ![...tags].some((tag) => member.includes(`"${tag}":`))) return [];
  let m;
  try { m = JSON.parse(member); } catch { return null; }
  if (!Array.isArray(m) || m.length !== 4 || !m[3] || typeof m[3] !== 'object') return null;
  const [ets, seq, kind, d] = m;
  const rows = [];
  for (const [tag, value] of Object.entries(d)) {
    if (!tags || tags.has(tag)) rows.push({ plant, t, ets, seq, kind, tag, value });
  }
  return rows;
}

/**
 * One plant's rows in [q.from, q.to] (at most limit + 1), oldest first, read a page at a time.
 * @param {{redis: object, key: string, plant: string, q: {from: number, to: number}, tags: Set<string>|null, limit: number,
 *   page: number, counters: {badMembers: number}}} r
 * @returns {Promise<object[]>} rows as lib/history/rows.js framesOf reads them
 */
async function readPlantRows({ redis, key, plant, q, tags, limit, page: pageSize, counters }) {
  const rows = [];
  let min = String(q.from);
  let skip = 0; // members at score `min` read already
  for (;;) {
    const page = await redis.zrangebyscore(key, min, String(q.to), 'WITHSCORES', 'LIMIT', skip, pageSize);
    const n = page.length / 2;
    for (let i = 0; i < page.length; i += 2) {
      const got = rowsOfMember(plant, Number(page[i + 1]), page[i], tags);
      if (!got) { counters.badMembers += 1; continue; }
      for (const r of got) rows.push(r);
    }
    if (n < pageSize || rows.length > limit) return rows;
    // The next page from the last score read, past the members of that score already read.
    const last = page[page.length - 1];
    let atLast = 0;
    for (let i = page.length - 1; i >= 1 && page[i] === last; i -= 2) atLast += 1;
    if (Number(last) === Number(min)) skip += n;
    else { min = last; skip = atLast; }
  }
}

/**
 * The rows of the plants read so far joined with the next plant's, by time, cut back to the
 * oldest limit + 1 (one past the limit: the answer knows it was cut): a query of many plants holds
 * about twice its limit of rows, not the limit once per plant.
 * @param {object[]} rows the plants so far, by `t`
 * @param {object[]} got the next plant's, by `t`
 * @param {number} limit
 * @returns {object[]}
 */
function keepOldest(rows, got, limit) {
  const all = rows.length ? rows.concat(got) : got;
  if (rows.length && got.length) all.sort((a, b) => a.t - b.t); // stable: each plant's own order kept
  if (all.length > limit + 1) all.length = limit + 1;
  return all;
}

/**
 * Remove every plant's frames filed before `before`, and forget the plants whose key has expired.
 * @param {object} redis
 * @param {number} before ms since the epoch (the history's `t`)
 * @returns {Promise<number>} frames removed
 */
async function pruneHistory(redis, before) {
  const plants = await redis.smembers(KEYS.historyPlants);
  if (!plants.length) return 0;
  const p = redis.pipeline();
  for (const plant of plants) p.zremrangebyscore(KEYS.history(plant), '-inf', `(${before}`).exists(KEYS.history(plant));
  const results = await p.exec();
  const gone = [];
  let pruned = 0;
  for (let i = 0; i < plants.length; i += 1) {
    const [e1, removed] = results[2 * i];
    const [e2, exists] = results[2 * i + 1];
    if (e1 || e2) throw e1 || e2;
    pruned += Number(removed);
    if (!exists) gone.push(plants[i]);
  }
  if (gone.length) await redis.srem(KEYS.historyPlants, ...gone); // expired: a new write adds it again
  return pruned;
}

/**
 * @param {object} opts DEFAULTS plus:
 * @param {string} opts.url the Redis URL (redis:// or rediss://)
 * @param {() => number} [opts.now] the cloud's clock
 * @param {(err: Error) => void} [opts.onError] a write failed, or a prune failed (once per run of failures of each)
 * @param {number} [opts.retryMaxMs] the longest wait between reconnect attempts (lib/fleet/backplane.js DEFAULTS)
 * @param {object} [opts.redis] an ioredis client to use instead of connecting (closed with the store)
 */
function createRedisStateStore(opts) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || Date.now;
  const onError = o.onError || (() => {});
  const redis = o.redis || connectRedis(o.url, {
    connectionName: 's7twin-history', commandTimeoutMs: o.commandTimeoutMs, ...(o.retryMaxMs ? { retryMaxMs: o.retryMaxMs } : {}),
  });
  redis.on('error', () => {}); // counted where a command fails; ioredis reconnects by itself
  // The first connection is still being made when the first frames come: they wait for it (up
  // to firstConnectMs) rather than fail. Once it has been up, a command while it is down fails at
  // once (nothing queues inside ioredis) and its frames wait here.
  let wasUp = false;
  const connected = async () => {
    if (wasUp) return;
    await whenReady(redis, o.firstConnectMs);
    wasUp = true;
  };
  const counters = {
    frames: 0, rows: 0, written: 0, pending: 0, dropped: 0, writeErrors: 0, failing: 0, pruned: 0, pruneErrors: 0, queries: 0, badMembers: 0,
  };
  let pending = []; // [plant, t, member, rows], oldest first
  let pendingRows = 0;
  let timer = null;
  let running = null; // the batch being written
  let closed = false;
  let reported = false; // this run of write failures was reported
  let pruneReported = false; // this run of prune failures was reported (its own: a good prune does not clear a write's)

  function fail(err) {
    if (!reported) onError(err);
    reported = true;
  }

  function schedule(ms) {
    if (timer || closed || !pending.length) return;
    timer = setTimeout(() => { timer = null; flush().catch(() => {}); }, ms);
    timer.unref?.();
  }

  /** One pipeline: the batch's frames by plant, in ZADD chunks; the key's expiry; the plants set. */
  async function writeBatch(batch) {
    const byPlant = new Map();
    for (const f of batch) {
      if (!byPlant.has(f[0])) byPlant.set(f[0], []);
      byPlant.get(f[0]).push(f[1], f[2]);
    }
    await connected();
    const p = redis.pipeline();
    for (const [plant, args] of byPlant) {
      const key = KEYS.history(plant);
      for (let i = 0; i < args.length; i += 2 * o.chunk) p.zadd(key, ...args.slice(i, i + 2 * o.chunk));
      p.pexpire(key, Math.ceil(o.retentionMs));
    }
    p.sadd(KEYS.historyPlants, ...byPlant.keys());
    const results = await p.exec();
    const bad = (results || []).find(([err]) => err);
    if (bad) throw bad[0];
  }

  /** Write what waits, batch after batch; resolves when none waits or a write failed (rejects then). */
  async function drain() {
    while (pending.length) {
      const batch = pending.slice(0, o.batchFrames);
      const rows = batch.reduce((n, f) => n + f[3], 0);
      try {
        await writeBatch(batch);
      } catch (err) {
        counters.writeErrors += 1;
        counters.failing += 1;
        fail(err);
        throw err;
      }
      pending = pending.slice(batch.length);
      pendingRows -= rows;
      counters.written += rows;
      counters.pending = pendingRows;
      counters.failing = 0;
      reported = false;
    }
  }

  /**
   * Write what is queued now (a query does this first). Resolves once it is in Redis; rejects
   * with the write's error (its frames wait and are tried again).
   */
  async function flush() {
    if (timer) { clearTimeout(timer); timer = null; }
    while (running) await running.catch(() => {});
    if (!pending.length) return;
    running = drain();
    try {
      await running;
    } finally {
      running = null;
      schedule(counters.failing ? o.retryMs : o.flushMs);
    }
  }

  async function prune() {
    try {
      await connected();
      counters.pruned += await pruneHistory(redis, now() - o.retentionMs);
      pruneReported = false;
    } catch (err) {
      counters.pruneErrors += 1;
      if (!pruneReported) onError(err);
      pruneReported = true;
    }
  }
  const pruner = setInterval(() => { prune(); }, o.pruneMs);
  pruner.unref?.();

  const plantRows = (plant, q, tags, limit) => readPlantRows({ redis, key: KEYS.history(plant), plant, q, tags, limit, page: o.page, counters });

  return {
    kind: 'redis',
    counters,
    /** The store's connection (the benchmark reads Redis's memory through it). */
    redis,
    url: o.url ? safeUrl(o.url) : 'redis',
    /**
     * A state, snap or backfill frame of a plant (anything else is ignored; lib/history/rows.js). Returns at once.
     * A backfilled frame forwarded again is the same member (its journal number, time and values):
     * it is never filed twice.
     * @param {string} plant
     * @param {{k: string, d: object, ts?: number, seq?: number, ct?: number}} env
     * @param {number} [at] its arrival on the cloud's clock (default now)
     * @returns {boolean} false: the frame was dropped (closed, or past maxPending)
     */
    add(plant, env, at) {
      if (closed) return false;
      const rows = rowsOf(plant, env, at === undefined ? now() : at);
      if (!rows.length) return true;
      counters.frames += 1;
      if (pendingRows + rows.length > o.maxPending) { counters.dropped += rows.length; return false; }
      pending.push([plant, rows[0][1], memberOf(rows), rows.length]);
      pendingRows += rows.length;
      counters.rows += rows.length;
      counters.pending = pendingRows;
      if (!running) schedule(counters.failing ? o.retryMs : o.flushMs);
      return true;
    },
    flush,
    /**
     * Resolves once what was added so far is in Redis (the cloud answers a backfill only then, so
     * the edge never drops a journal record the history may still lose); rejects with the write's
     * error (the frames wait and are tried again; the edge keeps its record and sends it again).
     * @returns {Promise<void>}
     */
    whenWritten: () => flush(),
    /**
     * The frames of a plant in [from, to], oldest first, each as it came: {plant, t, ets, seq, k, d}.
     * @param {{plant: string|string[], from: number, to: number, tags?: string[], limit?: number}} q plant '*': every plant
     * @returns {Promise<{frames: object[], rows: number, truncated: boolean}>}
     */
    async query(q) {
      counters.queries += 1;
      // What waits is written first, so a reader sees it; Redis refusing the write does not stop
      // the read (what is there is still answered).
      await flush().catch(() => {});
      await connected();
      const limit = Math.min(q.limit || o.maxRows, o.maxRows);
      const tags = q.tags && q.tags.length ? new Set(q.tags) : null;
      const plants = q.plant === '*' ? (await redis.smembers(KEYS.historyPlants)).sort() : [...new Set([].concat(q.plant))];
      let rows = [];
      for (const plant of plants) rows = keepOldest(rows, await plantRows(plant, q, tags, limit), limit);
      const truncated = rows.length > limit;
      if (truncated) rows.length = limit;
      return { frames: framesOf(rows), rows: rows.length, truncated };
    },
    /** Remove frames past the retention now (it also runs every pruneMs). */
    prune,
    /** Write what is queued (one last try), stop, close the connection. */
    async close() {
      if (closed) return;
      clearInterval(pruner);
      await flush().catch(() => {});
      closed = true;
      if (timer) { clearTimeout(timer); timer = null; }
      await redis.quit().catch(() => {});
      redis.disconnect();
    },
  };
}

module.exports = { DEFAULTS, createRedisStateStore, memberOf, rowsOfMember, keepOldest };
