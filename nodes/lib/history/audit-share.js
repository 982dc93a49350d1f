'use strict';
/**
 * The shared copy of one instance's command log in a fleet: every entry of the chain file
 * (lib/history/audit-log.js), its hashes included, appended to a Redis stream of that chain, so
 * that `GET /s7twin/audit` on any instance reads every instance's commands
 * (lib/history/audit-fleet.js).
 *
 *   s7twin:audit:<chain>   stream: entry n at the id `n-0`, its line as written in the file (`e`)
 *   s7twin:audit:chains    hash: chain id → {host, file, since} (lib/fleet/keys.js)
 *
 * A chain is named by its first entry's hash (the first 16 hex digits): the same across restarts
 * of its instance (the file goes on), different for every log, and known to anyone holding the file.
 *
 * The file stays the record; the stream is a copy taken FROM the file. A batch is copied once it
 * is on disk (the writer's `onWritten`), and every `intervalMs` anyway; the copier starts from
 * where the stream ends (its newest entry's number), so a restart of the instance, Redis being
 * away for a while, or a Redis restarted empty are caught up from the file, with nothing held in
 * memory meanwhile. The stream's ids are the entries' numbers: Redis refuses an id at or below the
 * newest, so an entry is never copied twice, and a copy that skipped one cannot be written.
 *
 * Before copying on, the copier checks that the stream's newest entry is the file's entry of that
 * number, character for character. If not (the file was edited, cut or replaced after it was
 * copied, or another instance writes a chain of the same name), it stops copying, counts
 * `mismatch` and reports E_AUDIT_TAMPERED once: the copy then keeps what the file said before.
 *
 * Failures (Redis down) are counted and reported once per run (`onError`); the copy is caught up
 * when Redis is back. A lost connection (the client's `close`, `ready` again) makes the copier read
 * where the stream ends, and list the chain in the chains hash, again before it copies on (counted
 * in `resyncs`), also when no copy failed meanwhile: a Redis restarted empty during a quiet spell
 * gets the whole chain, not the entries after the restart only. Never in a command's way: it reads
 * the file the writer has written.
 *
 * Plain module over node:fs; lib/history/audit-store.js keeps one per log when S7T_REDIS_URL is set.
 */
const fs = require('node:fs');
const os = require('node:os');
const readline = require('node:readline');
const { connectRedis, whenReady } = require('../fleet/backplane');
const { KEYS } = require('../fleet/keys');
const { codedError } = require('../core/errors');

const AuditShareError = codedError('AuditShareError');

const DEFAULTS = {
  intervalMs: 1000, // the copy is looked at this often besides after every write (retries too)
  chunkBytes: 1024 * 1024, // the file is read this much at a time
  batch: 1000, // entries in one pipeline
  firstConnectMs: 5000, // how long the first copy waits for the first connection
};

/** A chain's name: the first 16 hex digits of its first entry's hash. */
const chainId = (firstEntry) => String(firstEntry.hash).slice(0, 16);

/**
 * Where entry `n` ends in the file, and its line. The first entry (entry 1, which names the chain)
 * is the first line that parses as one: a line torn by a crash during the very first write comes
 * before it (the writer starts a new line after a torn one).
 * @param {string} file
 * @param {number} n 0: the start of the file (only `first` is looked for)
 * @returns {Promise<{offset: number, line: string|null, first: object|null}>} line null: no entry n
 */
async function findEntry(file, n) {
  const stream = fs.createReadStream(file, { encoding: 'utf8' });
  await new Promise((resolve, reject) => { stream.once('open', resolve); stream.once('error', reject); });
  let offset = 0;
  let first = null;
  try {
    for await (const line of readline.createInterface({ input: stream, crlfDelay: Infinity })) {
      offset += Buffer.byteLength(line) + 1;
      let e = null;
      try { e = JSON.parse(line); } catch { /* a torn line: the verifier names it */ }
      if (e && e.n === 1 && first === null) first = e;
      if (n === 0) { if (first) return { offset: 0, line: null, first }; continue; }
      if (e && e.n === n) return { offset, line, first };
    }
  } finally {
    stream.destroy();
  }
  return { offset: 0, line: null, first };
}

/**
 * Where a log's shared copy ends, and where that is in its file: the chain (named by the file's
 * first entry), the newest entry of its stream and the file offset after that entry. The chain is
 * listed in the fleet's chains (host, file, since) on the way, on every call (a Redis restarted
 * empty has lost the list).
 * @param {{file: string, host?: string}} cfg
 * @param {object} redis
 * @returns {Promise<null|{chain: string, broken: string}|{chain: string, offset: number, n: number}>} null: no entry in
 *   the file yet; broken: the file is not what its copy holds (why)
 */
async function findShareStart(cfg, redis) {
  let start;
  try {
    start = await findEntry(cfg.file, 0);
  } catch (err) {
    if (err.code === 'ENOENT') return null; // no entry written yet
    throw err;
  }
  if (!start.first) return null;
  const chain = chainId(start.first);
  const key = KEYS.auditChain(chain);
  const [top] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
  const topN = top ? Number(top[0].split('-')[0]) : 0;
  const topLine = top ? top[1][top[1].indexOf('e') + 1] : null;
  const found = topN === 0 ? { offset: 0, line: null } : await findEntry(cfg.file, topN);
  if (topN > 0 && found.line !== topLine) {
    return {
      chain,
      broken: found.line === null
        ? `the command log ${cfg.file} holds no entry ${topN}, which its shared copy (chain ${chain}) has: the file was cut or replaced`
        : `entry ${topN} of the command log ${cfg.file} is not what its shared copy (chain ${chain}) holds: the file was edited`,
    };
  }
  await redis.hset(KEYS.auditChains, chain, JSON.stringify({ host: cfg.host || os.hostname(), file: cfg.file, since: start.first.t }));
  return { chain, offset: found.offset, n: topN };
}

/**
 * Copy what a log's file holds past its stream's end, a chunk at a time, in pipelines of
 * `cfg.batch` entries; `moved(offset, n)` is told after each pipeline Redis took.
 * @param {{cfg: object, redis: object, chain: string, offset: number, n: number, counters: {shipped: number, skippedLines: number}}} c
 * @param {(offset: number, n: number) => void} moved
 * @returns {Promise<{broken?: string}>} broken: entries were removed or reordered in the file (why)
 */
async function copyEntries({ cfg, redis, chain, offset: from, n: top, counters }, moved) {
  let offset = from;
  let n = top;
  const fh = await fs.promises.open(cfg.file, 'r');
  try {
    for (;;) {
      const buf = Buffer.alloc(cfg.chunkBytes);
      const { bytesRead } = await fh.read(buf, 0, cfg.chunkBytes, offset);
      const text = buf.subarray(0, bytesRead).toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end < 0) return {}; // no whole line yet
      const lines = text.slice(0, end).split('\n');
      let at = offset;
      let p = redis.pipeline();
      let inPipe = 0;
      let pipeEnd = offset;
      let pipeN = n;
      const send = async () => {
        if (!inPipe) return;
        const results = await p.exec();
        const bad = results.find(([err]) => err);
        if (bad) throw bad[0];
        counters.shipped += inPipe;
        offset = pipeEnd;
        n = pipeN;
        moved(offset, n);
        p = redis.pipeline();
        inPipe = 0;
      };
      for (const line of lines) {
        at += Buffer.byteLength(line) + 1;
        let e = null;
        try { e = JSON.parse(line); } catch { /* below */ }
        if (!e || !Number.isSafeInteger(e.n)) { // a blank line, or one torn by a crash mid-write: the verifier names it
          if (line.trim() !== '') counters.skippedLines += 1;
          pipeEnd = at;
          continue;
        }
        if (e.n !== pipeN + 1) {
          await send();
          const why = `the command log ${cfg.file} has entry ${e.n} after entry ${pipeN}: entries were removed or reordered`;
          return { broken: `${why} (its shared copy stops at ${pipeN})` };
        }
        p.xadd(KEYS.auditChain(chain), `${e.n}-0`, 'e', line);
        inPipe += 1;
        pipeN = e.n;
        pipeEnd = at;
        if (inPipe >= cfg.batch) await send();
      }
      await send();
      offset = pipeEnd; // skipped lines at the end are past too
      moved(offset, n);
      if (bytesRead < cfg.chunkBytes) return {};
    }
  } finally {
    await fh.close();
  }
}


/**
 * @param {object} o DEFAULTS plus:
 * @param {string} o.file the chain file
 * @param {string} [o.url] the Redis URL (or o.redis, a client: not closed with the copy)
 * @param {object} [o.redis]
 * @param {string} [o.host] who writes it (default the host name)
 * @param {(err: Error) => void} [o.onError] a copy failed (once per run of failures), or the file and its copy disagree
 * @param {number} [o.retryMaxMs] the longest wait between reconnect attempts
 */
function createAuditShare(o) {
  const cfg = { ...DEFAULTS, ...o };
  const onError = cfg.onError || (() => {});
  const own = !cfg.redis;
  const redis = cfg.redis || connectRedis(cfg.url, { connectionName: 's7twin-audit', ...(cfg.retryMaxMs ? { retryMaxMs: cfg.retryMaxMs } : {}) });
  redis.on('error', () => {}); // counted where a command fails; ioredis reconnects by itself
  let chain = null;
  let offset = 0; // where the next entry to copy starts in the file
  let n = 0; // the newest entry in the stream
  let synced = false; // offset and n agree with the stream
  let wasSynced = false;
  let broken = null; // why copying stopped
  let reported = false;
  let running = null;
  let again = false;
  let closed = false;
  let idle = [];
  const counters = { shipped: 0, shipErrors: 0, failing: 0, mismatch: 0, skippedLines: 0, resyncs: 0 };

  // A connection lost and made again (Redis restarted, maybe empty, during a quiet spell with no
  // copy failing): where the stream ends is read again, and the chain listed again, before the
  // next copy, which then starts where the stream really ends.
  const unsync = () => { synced = false; };
  const onReady = () => { unsync(); poke(); };
  redis.on('close', unsync);
  redis.on('ready', onReady);

  let wasUp = false;
  /** The first connection is waited for (up to firstConnectMs); once it has been up, a copy while it is down fails at once. */
  const connected = async () => {
    if (wasUp) return;
    await whenReady(redis, cfg.firstConnectMs);
    wasUp = true;
  };

  function fail(err) {
    counters.shipErrors += 1;
    counters.failing += 1;
    synced = false; // where the stream ends is read again before the next copy
    if (!reported) onError(err);
    reported = true;
  }

  function stop(why) {
    broken = why;
    counters.mismatch += 1;
    onError(new AuditShareError('E_AUDIT_TAMPERED', why));
  }

  /** Where the stream ends, and where that is in the file; false: nothing to copy yet, or stopped. */
  async function sync() {
    const start = await findShareStart(cfg, redis);
    if (!start) return false;
    chain = start.chain;
    if (start.broken) { stop(start.broken); return false; }
    if (wasSynced) counters.resyncs += 1;
    wasSynced = true;
    offset = start.offset;
    n = start.n;
    synced = true;
    return true;
  }

  /** Copy what the file holds past the stream's end, a chunk at a time. */
  async function copy() {
    const r = await copyEntries({ cfg, redis, chain, offset, n, counters }, (at, top) => { offset = at; n = top; });
    if (r.broken) stop(r.broken);
  }

  async function run() {
    do {
      again = false;
      if (broken || closed) return;
      try {
        await connected();
        if (!synced && !(await sync())) return;
        await copy();
        counters.failing = 0;
        reported = false;
      } catch (err) {
        fail(err);
        return;
      }
    } while (again);
  }

  /** Copy what is new in the file (soon: after the current copy, if one runs). */
  function poke() {
    if (closed) return;
    if (running) { again = true; return; }
    running = run().finally(() => {
      running = null;
      const w = idle;
      idle = [];
      for (const r of w) r();
    });
  }

  const timer = setInterval(poke, cfg.intervalMs);
  timer.unref?.();
  poke();

  return {
    counters,
    redis,
    /** The chain's name (null until its first entry is in the file and has been looked at). */
    get chain() { return chain; },
    /** The newest entry copied. */
    get copied() { return n; },
    /** Why copying stopped (the file and its copy disagree), or null. */
    get broken() { return broken; },
    /** Resolves after a copy that started after this call (what the file held then is copied, or failed). */
    copiedNow() {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        idle.push(resolve);
        if (running) again = true;
        else poke();
      });
    },
    poke,
    async close() {
      if (closed) return;
      clearInterval(timer);
      if (running) await running;
      closed = true;
      redis.removeListener('close', unsync);
      redis.removeListener('ready', onReady);
      if (own) {
        await redis.quit().catch(() => {});
        redis.disconnect();
      }
    },
  };
}

module.exports = { DEFAULTS, createAuditShare, chainId, findEntry };
