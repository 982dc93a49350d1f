'use strict';
/**
 * The fleet's backplane: what cloud instances share so that an edge may connect to any
 * of them and a twin of its plant to any other. One small interface, two implementations:
 *
 * - `createLocalBackplane()`: in-process, for a single instance (the default: no Redis needed);
 * - `createRedisBackplane({url})`: Redis (ioredis), when S7T_REDIS_URL is set. Any number of cloud
 *   instances on one Redis then form one fleet.
 *
 * lib/fleet/member.js, the routing of envelopes between instances, runs on either, unchanged: the
 * endpoint logic is one code path whether or not there is a fleet.
 *
 * The interface:
 * - publish(channel, text) → receivers (how many subscribers got it; 0 = nobody listens);
 * - subscribe(channel, fn(text)) / unsubscribe(channel, fn);
 * - lease(key, owner, ttlMs) → true while `owner` holds `key` (taken if free, its expiry renewed
 *   if already held by owner; SET NX PX in one script), unlease(key, owner) (only the holder's);
 * - mergeState(key, channel, fields, text) → version: merge fields into the hash `key`, count its
 *   version up and publish `<version>:<epoch> <text>` on `channel`, as ONE atomic step (a Lua
 *   script), so that whoever reads the hash and then takes messages newer than its version misses
 *   nothing and sees nothing twice (lib/fleet/states.js). The epoch names the hash's history: set
 *   once, when the hash is made (a random id), it changes when the hash starts again from nothing
 *   (Redis restarted without persistence), and versions count up within one epoch only;
 * - readState(key) → {epoch, version, values} (epoch null while the hash does not exist);
 * - events: 'up' (connected, or reconnected: subscriptions are back, state read before may be
 *   stale), 'down' (lost: nothing published meanwhile reaches this instance);
 * - close().
 *
 * Errors carry a code: E_BACKPLANE_DOWN when the command was surely not sent (not connected:
 * the offline queue is off, so nothing waits to be sent late), E_BACKPLANE when it may have been
 * (the connection broke with it in flight; nothing is resent either: a request published twice
 * would reach the edge twice).
 */
const crypto = require('node:crypto');
const { EventEmitter } = require('node:events');
const { codedError } = require('../core/errors');
const clock = require('../core/clock');

const BackplaneError = codedError('BackplaneError');

const DEFAULTS = {
  connectTimeoutMs: 3000, // one connection attempt
  retryMaxMs: 2000, // reconnect back-off: 50 ms doubling to this
  commandTimeoutMs: 2000, // a command not answered by then is failed (E_BACKPLANE)
};

const VERSION_FIELD = '~v'; // the hash field that counts versions (tag short names never start with '~')
const EPOCH_FIELD = '~e'; // the hash field naming its history (set once, when the hash is made)

/** A fresh epoch: random, so a hash made again from nothing never gets an epoch it had before. */
const newEpoch = () => crypto.randomBytes(6).toString('hex');

/**
 * Merge ARGV[4..] (field, value pairs) into the hash KEYS[1], set its epoch to ARGV[3] if it has
 * none, count its version, publish "<version>:<epoch> ARGV[2]" on channel ARGV[1]; returns the
 * version.
 */
const MERGE_SCRIPT = `
redis.call('HSETNX', KEYS[1], '${EPOCH_FIELD}', ARGV[3])
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
local v = redis.call('HINCRBY', KEYS[1], '${VERSION_FIELD}', 1)
local e = redis.call('HGET', KEYS[1], '${EPOCH_FIELD}')
redis.call('PUBLISH', ARGV[1], v .. ':' .. e .. ' ' .. ARGV[2])
return v`;

/** Take the lease KEYS[1] for ARGV[1] for ARGV[2] ms if free, or renew it if ARGV[1] holds it. */
const LEASE_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/** Delete the lease KEYS[1] only if ARGV[1] holds it. */
const UNLEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A hash as stored (string values) to {epoch, version, values}. */
function decodeState(hash) {
  const values = {};
  let version = 0;
  let epoch = null;
  for (const [k, v] of Object.entries(hash || {})) {
    if (k === VERSION_FIELD) { version = Number(v) || 0; continue; }
    if (k === EPOCH_FIELD) { epoch = v; continue; }
    try { values[k] = JSON.parse(v); } catch { /* not ours: skipped */ }
  }
  return { epoch, version, values };
}

/**
 * A message of a states channel: `<version>:<epoch> <text>`.
 * @param {string} message
 * @returns {{version: number, epoch: string, text: string}|null} null if it is not one
 */
function parseStateMessage(message) {
  const m = /^(\d+):([^ ]+) /.exec(message);
  if (!m || !Number.isSafeInteger(Number(m[1]))) return null;
  return { version: Number(m[1]), epoch: m[2], text: message.slice(m[0].length) };
}

/** Field/value pairs to store: values as JSON (numbers and booleans). */
const encodeFields = (fields) => Object.entries(fields).flatMap(([k, v]) => [k, JSON.stringify(v)]);

/**
 * In-process backplane: one instance, no Redis. Same semantics, synchronous underneath.
 * @returns {EventEmitter & object}
 */
function createLocalBackplane() {
  const ee = new EventEmitter();
  const channels = new Map(); // channel -> Set(fn)
  const leases = new Map(); // key -> {owner, until}
  const hashes = new Map(); // key -> {version, values}
  let closed = false;

  function publish(channel, text) {
    if (closed) return Promise.reject(new BackplaneError('E_BACKPLANE_DOWN', 'the backplane is closed'));
    const fns = channels.get(channel);
    const n = fns ? fns.size : 0;
    // Delivered on a later turn, as a message over a network would be: never inside the
    // publisher's own call stack.
    if (n) for (const fn of [...fns]) setImmediate(() => { if (!closed) fn(text); });
    return Promise.resolve(n);
  }

  Object.defineProperty(ee, 'connected', { get: () => !closed, enumerable: true }); // not copied once by Object.assign
  return Object.assign(ee, {
    kind: 'local',
    publish,
    subscribe(channel, fn) {
      if (!channels.has(channel)) channels.set(channel, new Set());
      channels.get(channel).add(fn);
      return Promise.resolve();
    },
    unsubscribe(channel, fn) {
      const fns = channels.get(channel);
      if (fns) { fns.delete(fn); if (!fns.size) channels.delete(channel); }
      return Promise.resolve();
    },
    lease(key, owner, ttlMs) {
      const t = clock.now();
      const cur = leases.get(key);
      if (cur && cur.until > t && cur.owner !== owner) return Promise.resolve(false);
      leases.set(key, { owner, until: t + ttlMs });
      return Promise.resolve(true);
    },
    unlease(key, owner) {
      const cur = leases.get(key);
      if (cur && cur.owner === owner) leases.delete(key);
      return Promise.resolve();
    },
    holder(key) {
      const cur = leases.get(key);
      return Promise.resolve(cur && cur.until > clock.now() ? cur.owner : null);
    },
    mergeState(key, channel, fields, text) {
      const h = hashes.get(key) || { epoch: newEpoch(), version: 0, values: {} };
      Object.assign(h.values, fields);
      h.version += 1;
      hashes.set(key, h);
      publish(channel, `${h.version}:${h.epoch} ${text}`);
      return Promise.resolve(h.version);
    },
    readState(key) {
      const h = hashes.get(key);
      return Promise.resolve(h ? { epoch: h.epoch, version: h.version, values: { ...h.values } } : { epoch: null, version: 0, values: {} });
    },
    close() { closed = true; channels.clear(); return Promise.resolve(); },
  });
}

/**
 * A Redis connection the fleet's way (ioredis): no offline queue (a command while disconnected
 * fails at once, surely not sent, instead of waiting to go out late), nothing resent after a
 * reconnect, reconnect with back-off from 50 ms doubling to `retryMaxMs`. The backplane's two
 * connections are made here, and so are the shared records' (the plant history's Redis store and
 * the command log's shared copy, lib/history/): one place decides how the bundle talks to Redis.
 * @param {string} url redis:// or rediss:// URL
 * @param {object} [o] DEFAULTS (connectTimeoutMs, commandTimeoutMs, retryMaxMs) plus any ioredis option
 *   (connectionName, …); commandTimeoutMs null: no command timeout
 * @returns {object} an ioredis client, connecting
 * @throws {BackplaneError} E_BACKPLANE_CONFIG for a URL that is not redis:// or rediss://
 */
function connectRedis(url, o = {}) {
  const { connectTimeoutMs, commandTimeoutMs, retryMaxMs, ...extra } = { ...DEFAULTS, ...o };
  if (!/^rediss?:\/\//.test(String(url || ''))) {
    throw new BackplaneError('E_BACKPLANE_CONFIG', `S7T_REDIS_URL must be redis://host:port or rediss://… (got ${JSON.stringify(url)})`);
  }
  const Redis = require('ioredis');
  return new Redis(url, {
    connectTimeout: connectTimeoutMs,
    commandTimeout: commandTimeoutMs === null ? undefined : commandTimeoutMs,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(retryMaxMs, 50 * 2 ** Math.min(times, 10)),
    lazyConnect: false,
    ...extra,
  });
}

/**
 * Resolves once an ioredis client is connected (at once if it is), rejects after `timeoutMs`.
 * @param {object} redis a client from connectRedis
 * @param {number} timeoutMs
 * @returns {Promise<void>}
 */
function whenReady(redis, timeoutMs) {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const on = () => { clearTimeout(t); resolve(); };
    const t = setTimeout(() => {
      redis.removeListener('ready', on);
      reject(new BackplaneError('E_BACKPLANE_DOWN', `Redis not reached within ${timeoutMs} ms`));
    }, timeoutMs);
    redis.once('ready', on);
  });
}

/** A URL as it may be shown in logs and stats: never with its password. */
const safeUrl = (url) => String(url).replace(/\/\/[^@/]*@/, '//***@');

/**
 * Redis backplane: two connections (commands, and one in subscriber mode), no offline queue and
 * no resending (see the header), reconnect with back-off, subscriptions restored on reconnect.
 * @param {object} o
 * @param {string} o.url redis:// or rediss:// URL
 * @returns {EventEmitter & object} resolves nothing: `ready()` waits for the first connection
 */
function createRedisBackplane(o) {
  const cfg = { ...DEFAULTS, ...o };
  const ee = new EventEmitter();
  const timing = { connectTimeoutMs: cfg.connectTimeoutMs, commandTimeoutMs: cfg.commandTimeoutMs, retryMaxMs: cfg.retryMaxMs };
  const cmd = connectRedis(cfg.url, { ...timing, connectionName: 's7twin-cmd' });
  const sub = connectRedis(cfg.url, { ...timing, connectionName: 's7twin-sub', autoResubscribe: true, commandTimeoutMs: null });
  cmd.defineCommand('s7tMerge', { numberOfKeys: 1, lua: MERGE_SCRIPT });
  cmd.defineCommand('s7tLease', { numberOfKeys: 1, lua: LEASE_SCRIPT });
  cmd.defineCommand('s7tUnlease', { numberOfKeys: 1, lua: UNLEASE_SCRIPT });
  const handlers = new Map(); // channel -> Set(fn)
  const subscribed = new Set(); // channels whose SUBSCRIBE Redis confirmed (ioredis renews them on reconnect)
  const inFlight = new Map(); // channel -> the SUBSCRIBE on its way
  const counters = { up: 0, down: 0, errors: 0 };
  let lastError = null;
  let closed = false;
  const wasUp = { cmd: false, sub: false };

  const bothUp = () => cmd.status === 'ready' && sub.status === 'ready';
  for (const [name, conn] of [['cmd', cmd], ['sub', sub]]) {
    conn.on('ready', () => {
      wasUp[name] = true;
      if (!bothUp()) return;
      counters.up += 1;
      // Every channel with a handler is subscribed again (SUBSCRIBE is idempotent): ioredis
      // renews only the subscriptions it counts as made, and one made while the other connection
      // was still coming up (an instance's first seconds, its event loop busy starting flows) was
      // seen lost: the handler stayed, Redis no longer sent the channel's messages.
      const chans = [...handlers.keys()];
      if (chans.length) {
        sub.subscribe(...chans).then(() => { for (const c of chans) subscribed.add(c); }, (err) => { counters.errors += 1; lastError = err.message; });
      }
      ee.emit('up');
    });
    conn.on('close', () => {
      if (closed || !wasUp[name]) return;
      wasUp[name] = false;
      counters.down += 1;
      ee.emit('down');
    });
    conn.on('error', (err) => { counters.errors += 1; lastError = err.message; }); // reconnects by itself
  }
  sub.on('message', (channel, text) => {
    const fns = handlers.get(channel);
    if (fns) for (const fn of [...fns]) fn(text);
  });

  /** Normalise an ioredis failure: was the command surely not sent? */
  const wrap = (p) => p.catch((err) => {
    // ioredis refuses a command it cannot write at once (no offline queue): surely not sent.
    throw new BackplaneError(/isn't writeable/.test(err.message) ? 'E_BACKPLANE_DOWN' : 'E_BACKPLANE', `Redis: ${err.message}`);
  });

  // Getters defined on the emitter itself: Object.assign would copy their values once.
  Object.defineProperties(ee, {
    connected: { get: () => bothUp(), enumerable: true },
    lastError: { get: () => lastError, enumerable: true },
  });
  return Object.assign(ee, {
    kind: 'redis',
    url: safeUrl(cfg.url), // never a password in logs or stats
    counters,
    /** Resolves once both connections are up; rejects after timeoutMs. */
    ready(timeoutMs = cfg.connectTimeoutMs * 3) {
      if (bothUp()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          ee.removeListener('up', on);
          reject(new BackplaneError('E_BACKPLANE_DOWN', `Redis at ${this.url} not reached within ${timeoutMs} ms${lastError ? `: ${lastError}` : ''}`));
        }, timeoutMs);
        const on = () => { clearTimeout(t); resolve(); };
        ee.once('up', on);
      });
    },
    publish: (channel, text) => wrap(cmd.publish(channel, text)),
    async subscribe(channel, fn) {
      if (!handlers.has(channel)) handlers.set(channel, new Set());
      handlers.get(channel).add(fn);
      if (subscribed.has(channel)) return;
      // One SUBSCRIBE per channel in flight: a second caller (a watch retried on 'up' while the
      // first attempt is still out) waits for the same outcome instead of taking the handler as
      // subscribed and then losing it when the first attempt fails.
      let p = inFlight.get(channel);
      if (!p) {
        p = wrap(sub.subscribe(channel)).then(() => { subscribed.add(channel); });
        inFlight.set(channel, p);
        p.then(() => inFlight.delete(channel), () => inFlight.delete(channel));
      }
      try {
        await p;
      } catch (err) {
        // Not subscribed now; ioredis subscribes again on reconnect only what it holds, so drop
        // this caller's handler and let it retry (or not).
        const fns = handlers.get(channel);
        if (fns) { fns.delete(fn); if (!fns.size && !subscribed.has(channel)) handlers.delete(channel); }
        throw err;
      }
    },
    async unsubscribe(channel, fn) {
      const fns = handlers.get(channel);
      if (!fns) return;
      fns.delete(fn);
      if (fns.size) return;
      handlers.delete(channel);
      subscribed.delete(channel);
      await wrap(sub.unsubscribe(channel)).catch(() => {}); // gone with the connection anyway
    },
    lease: (key, owner, ttlMs) => wrap(cmd.s7tLease(key, owner, Math.max(1, Math.round(ttlMs)))).then((r) => r === 1),
    unlease: (key, owner) => wrap(cmd.s7tUnlease(key, owner)).then(() => undefined),
    holder: (key) => wrap(cmd.get(key)),
    mergeState: (key, channel, fields, text) => wrap(cmd.s7tMerge(key, channel, text, newEpoch(), ...encodeFields(fields))).then(Number),
    readState: (key) => wrap(cmd.hgetall(key)).then(decodeState),
    async close() {
      closed = true;
      handlers.clear();
      subscribed.clear();
      await Promise.allSettled([cmd.quit(), sub.quit()]);
      cmd.disconnect();
      sub.disconnect();
    },
  });
}

/**
 * The backplane an instance uses: Redis when a URL is given (S7T_REDIS_URL), else local.
 * Redis backplanes are shared per URL within a process (counted; the last release closes it), so
 * the edge endpoint and the MQTT broker of one instance use the same connections.
 * @param {string|undefined} url
 * @returns {{backplane: object, release: () => Promise<void>}}
 */
const shared = new Map(); // url -> {backplane, users}
function acquireBackplane(url) {
  if (!url) {
    const backplane = createLocalBackplane();
    return { backplane, release: () => backplane.close() };
  }
  let s = shared.get(url);
  if (!s) {
    s = { backplane: createRedisBackplane({ url }), users: 0 };
    shared.set(url, s);
  }
  s.users += 1;
  let released = false;
  return {
    backplane: s.backplane,
    release() {
      if (released) return Promise.resolve();
      released = true;
      s.users -= 1;
      if (s.users > 0) return Promise.resolve();
      shared.delete(url);
      return s.backplane.close();
    },
  };
}

module.exports = {
  DEFAULTS, VERSION_FIELD, EPOCH_FIELD, BackplaneError, createLocalBackplane, createRedisBackplane, acquireBackplane, decodeState, parseStateMessage,
  connectRedis, whenReady, safeUrl,
};
