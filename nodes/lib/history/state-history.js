'use strict';
/**
 * The plant history of one Node-RED runtime: where it is kept, one store per place for the
 * process (the embedded SQLite database, lib/history/state-store.js, or in a fleet the Redis every
 * instance shares, lib/history/redis-store.js), what the edge endpoint files in it, and
 * `GET /s7twin/history?plant=&from=&to=[&tags=][&commands=1]` on the admin API.
 *
 * Who may read it (lib/history/access.js): the plant's viewer, twin and auditor tokens, and the
 * editor login (permission `s7twin.history`); an edge token gets 403.
 *
 * `commands=1` adds the plant's commands of the window from the command log, as a timeline needs
 * them (lib/history/audit-query.js timelineOf: when, how, the sender's token fingerprint and role,
 * what it asked, its outcome; never a client's address): the browser twin's replay marks them on
 * its timeline. Whoever may read the history may read these: a viewer sees who pressed Start,
 * not where from; the whole log (addresses, keys, messages) stays with auditors (`GET /s7twin/audit`).
 *
 * Plain module; the cloud's edge endpoint node feeds the store and mounts the route.
 */
const os = require('node:os');
const path = require('node:path');
const { createStateStore } = require('./state-store');
const { createRedisStateStore } = require('./redis-store');
const { createReadAccess, plantOf, timeParam } = require('./access');
const { isPlant } = require('../core/plants');
const { timelineOf } = require('./audit-query');
const { safeUrl } = require('../fleet/backplane');
const clock = require('../core/clock');
const registry = require('../runtime/registry');

const FILE_NAME = 's7twin-history.sqlite';
const PERMISSION = 's7twin.history';
const HOUR_MS = 3600 * 1000;
const MAX_TAGS = 64; // tags one query may name
const MAX_COMMANDS = 10000; // commands one answer carries (commandsTruncated past it)
const FLAGS = { 1: true, true: true, 0: false, false: false };
const stores = new Map(); // file -> store

/**
 * Where the history is and how long it is kept.
 * - S7T_HISTORY_STORE: `sqlite` (the embedded database), `redis` (a store every instance of a
 *   fleet shares), or unset: `redis` when the instance is in a fleet (S7T_REDIS_URL set), else
 *   `sqlite`. Several instances each filing into their own database would each answer with what
 *   their own edges sent; on Redis every instance answers with every plant's states.
 * - sqlite: S7T_HISTORY_FILE (else the settings' `s7twin.historyFile`, else
 *   `s7twin-history.sqlite` in the user directory; relative to it).
 * - redis: S7T_HISTORY_REDIS_URL, else the fleet's S7T_REDIS_URL.
 * - S7T_HISTORY_RETENTION_H: hours, default 168 (a week), for either.
 * @param {{userDir?: string, s7twin?: {historyFile?: string}}} [settings]
 * @param {object} [env]
 * @returns {{store: 'sqlite', file: string, retentionMs: number}|{store: 'redis', url: string, retentionMs: number}}
 * @throws {Error} code E_CONFIG for a retention that is not a positive number, an unknown store,
 *   or `redis` with no Redis URL
 */
function historyOptions(settings = {}, env = process.env) {
  const raw = env.S7T_HISTORY_RETENTION_H;
  const hours = raw === undefined || raw === '' ? 168 : Number(raw);
  const config = (msg) => Object.assign(new Error(msg), { code: 'E_CONFIG' });
  if (!(hours > 0)) throw config(`S7T_HISTORY_RETENTION_H must be a positive number of hours, not ${JSON.stringify(raw)}`);
  const retentionMs = hours * HOUR_MS;
  const url = env.S7T_HISTORY_REDIS_URL || env.S7T_REDIS_URL;
  const kind = env.S7T_HISTORY_STORE || (env.S7T_REDIS_URL ? 'redis' : 'sqlite');
  if (kind === 'redis') {
    if (!url) throw config('S7T_HISTORY_STORE=redis needs a Redis: set S7T_REDIS_URL (the fleet\'s) or S7T_HISTORY_REDIS_URL');
    return { store: 'redis', url, retentionMs };
  }
  if (kind !== 'sqlite') throw config(`S7T_HISTORY_STORE is sqlite or redis, not ${JSON.stringify(kind)}`);
  const dir = settings.userDir || path.join(os.tmpdir(), `s7twin-${process.pid}`);
  const configured = env.S7T_HISTORY_FILE || (settings.s7twin && settings.s7twin.historyFile);
  return { store: 'sqlite', file: path.resolve(dir, configured || FILE_NAME), retentionMs };
}

/**
 * The runtime's history store (opened on first use; stays open for the process, across redeploys).
 * @param {ReturnType<typeof historyOptions>} where
 * @param {(text: string) => void} [warn] where a failing write is reported
 */
function historyStore(where, warn = () => {}) {
  const id = where.store === 'redis' ? `redis:${where.url}` : where.file;
  let s = stores.get(id);
  if (s) return s;
  const onError = (place) => (err) => warn(`E_HISTORY_STORE: plant history ${place}: ${err.message} (the link goes on; rows wait and are retried)`);
  if (where.store === 'redis') {
    s = createRedisStateStore({ url: where.url, retentionMs: where.retentionMs, now: clock.now, onError: onError(`on Redis ${safeUrl(where.url)}`) });
  } else {
    s = createStateStore({ file: where.file, retentionMs: where.retentionMs, now: clock.now, onError: onError(where.file) });
  }
  stores.set(id, s);
  const name = where.store === 'redis' ? s.url : path.basename(where.file);
  registry.add({ id: `s7twin-history:${name}`, type: 's7twin-history', name }, () => ({ history: s.counters }));
  registry.addCheck(`s7twin-history:${name}`, () => (s.counters.failing > 0
    ? `the plant history cannot be written (${s.counters.failing} failed tries; the Node-RED log says why)` : null));
  return s;
}

/**
 * Write what waits in the store before a node closes, waiting at most `waitMs` (a Redis that does
 * not answer must not hold up Node-RED's stop, which allows 15 s for every node).
 * @param {{flush(): void|Promise<void>}} store
 * @param {number} [waitMs]
 * @returns {Promise<void>} never rejects
 */
function flushBeforeClose(store, waitMs = 2000) {
  let timer;
  const written = new Promise((resolve) => { resolve(store.flush()); }).catch(() => {});
  return Promise.race([written, new Promise((r) => { timer = setTimeout(r, waitMs); })]).finally(() => clearTimeout(timer));
}

/**
 * What the edge endpoint files in the history: the frames its own edges sent (a peer's id comes
 * with them), not the frames it passes on for other instances' edges (states relayed over the
 * fleet, a snapshot made from the plant's latest state for a new twin: no peer id). In a fleet
 * every instance with twins of a plant gets its states, but only the instance its edge is
 * connected to files them: each state once, in a shared store too.
 * @param {{add(plant: string, env: object): void}} store
 * @returns {(env: object, clientId: string|undefined, plant: string) => void} the endpoint's 'envelope' listener
 */
function ownEdgeFrames(store) {
  return (env, clientId, plant) => {
    if (clientId !== undefined) store.add(plant, env);
  };
}

/** How far from a backfill record's time on the cloud's clock the live frame it was is looked for. */
const LIVE_WINDOW_MS = 5000;

/**
 * Whether the live frame a backfill record was is in the store already. The record carries `of`
 * when the edge had sent it live on a link that then died before the cloud confirmed it: that
 * frame may have been filed, by this instance or, in a fleet, by the instance the edge was
 * connected to then (the edge endpoint remembers only the live frames that reached it). It is
 * looked for by its seq and the edge's timestamp, around the record's time on the cloud's clock
 * (only where mayBeLive).
 * @param {{query?: Function}} store
 * @param {string} plant
 * @param {{of?: {seq: number}, ts?: number, ct?: number, d?: object}} env
 * @returns {Promise<boolean>}
 */
async function liveFiled(store, plant, env) {
  const tag = Object.keys(env.d || {})[0];
  const q = { plant, from: env.ct - LIVE_WINDOW_MS, to: env.ct + LIVE_WINDOW_MS, ...(tag === undefined ? {} : { tags: [tag] }) };
  const { frames } = await store.query(q);
  return frames.some((f) => f.k !== 'backfill' && f.seq === env.of.seq && f.ets === env.ts);
}

/** Whether liveFiled can look for the live frame `env` was (a store that answers queries, a record that names it, its times). */
const mayBeLive = (store, env) => Boolean(store.query && env.of && Number.isFinite(env.of.seq) && Number.isFinite(env.ts) && Number.isFinite(env.ct));

/**
 * How the edge endpoint files a backfill frame into a store (lib/link/backfill-intake.js): added
 * like any frame, and settled once the store has it on the disk (a store without whenWritten: at
 * once), refused when the store dropped rows of it (it is past its bound: the edge keeps the
 * record). A record whose live frame the store holds already (liveFiled) is not added: 'known'.
 * @param {{add: Function, whenWritten?: Function, query?: Function}} store
 * @returns {(plant: string, env: object) => Promise<'filed'|'known'>} rejects E_HISTORY_STORE
 *   (dropped), or with the store's error (it could not be read or written)
 */
function backfillFiler(store) {
  const add = (plant, env) => {
    if (store.add(plant, env) === false) {
      return Promise.reject(Object.assign(new Error('the plant history dropped the frame (closed, or too many rows waiting)'), { code: 'E_HISTORY_STORE' }));
    }
    return (store.whenWritten ? store.whenWritten() : Promise.resolve()).then(() => 'filed');
  };
  // Added at once unless its live frame must be looked for first: a record read while the link
  // was down (no `of`) goes into the store's queue in the same turn as it came.
  return (plant, env) => (mayBeLive(store, env)
    ? liveFiled(store, plant, env).then((known) => (known ? 'known' : add(plant, env)))
    : add(plant, env));
}

/**
 * @param {object} o
 * @param {() => object} o.store the runtime's store
 * @param {() => Array} o.grants every grant of the instance
 * @param {boolean} o.adminAuth
 * @param {(permission: string) => Function} [o.needsPermission]
 * @param {(q: {plant: string|string[], from: number, to: number, limit: number}) => Promise<{rows: object[], truncated: boolean}>} [o.commands]
 *   the command log's commands of a window (lib/history/audit-store.js readCommands); without it
 *   `commands=1` is refused
 * @param {() => number} [o.now]
 */
function createHistoryHandler(o) {
  const now = o.now || Date.now;
  const counters = { queries: 0, forbidden: 0, unauthorized: 0, badQueries: 0 };
  const refuse = (res, status, code, msg) => {
    if (status === 401) counters.unauthorized += 1;
    else if (status === 403) counters.forbidden += 1;
    else counters.badQueries += 1;
    res.status(status).json({ error: { code, msg } });
  };
  const authorize = createReadAccess({
    roles: ['viewer', 'twin', 'auditor'], permission: PERMISSION, what: 'the plant history',
    grants: o.grants, adminAuth: o.adminAuth, needsPermission: o.needsPermission, refuse,
  });

  /** The window's commands for a timeline, or null after a refusal. */
  async function commandsOf(res, q) {
    if (!o.commands) { refuse(res, 400, 'E_HISTORY_QUERY', 'this instance keeps no command log: ask without commands'); return null; }
    let found;
    try {
      found = await o.commands({ ...q, limit: MAX_COMMANDS });
    } catch (err) {
      refuse(res, 500, 'E_AUDIT_FILE', `the command log could not be read: ${err.message}`);
      return null;
    }
    return { commands: found.rows.map(timelineOf), commandsTruncated: found.truncated };
  }

  async function serve(req, res, scope) {
    const params = new URL(req.url, 'http://localhost').searchParams;
    const to = timeParam(params.get('to'), now());
    const from = timeParam(params.get('from'), to - HOUR_MS);
    if (!Number.isFinite(from) || !Number.isFinite(to) || from > to) {
      refuse(res, 400, 'E_HISTORY_QUERY', 'from and to are ms since the epoch or ISO 8601 dates, from before to');
      return;
    }
    const tags = (params.get('tags') || '').split(',').map((s) => s.trim()).filter(Boolean);
    if (tags.length > MAX_TAGS || tags.some((s) => !/^[A-Za-z0-9_]{1,32}$/.test(s))) {
      refuse(res, 400, 'E_HISTORY_QUERY', `tags is a comma-separated list of at most ${MAX_TAGS} tag short names`);
      return;
    }
    const withCommands = FLAGS[params.get('commands') ?? 0];
    if (withCommands === undefined) {
      refuse(res, 400, 'E_HISTORY_QUERY', 'commands is 1 (the window\'s commands too) or 0');
      return;
    }
    const p = plantOf(params.get('plant'), scope, isPlant);
    if (p.status) { refuse(res, p.status, p.code || 'E_HISTORY_QUERY', p.msg); return; }
    counters.queries += 1;
    let found;
    try {
      found = await o.store().query({ plant: p.plant, from, to, tags });
    } catch (err) {
      refuse(res, 500, 'E_HISTORY_STORE', `the plant history could not be read: ${err.message}`);
      return;
    }
    const commands = withCommands ? await commandsOf(res, { plant: p.plant, from, to }) : {};
    if (!commands) return;
    res.set('Cache-Control', 'no-store');
    res.json({ plant: p.plant, from, to, tags, count: found.frames.length, truncated: found.truncated, states: found.frames, ...commands });
  }

  const handle = (req, res) => authorize(req, res, (scope) => {
    serve(req, res, scope).catch((err) => {
      if (!res.headersSent) refuse(res, 500, 'E_HISTORY_STORE', `the plant history could not be read: ${err.message}`);
    });
  });
  return Object.assign(handle, { counters });
}

const installed = new WeakSet();

/**
 * Mount `GET /s7twin/history` once per admin app.
 * @param {object} app RED.httpAdmin
 * @param {object} o createHistoryHandler's options
 * @returns {Function|null} the handler (null: mounted already)
 */
function installHistoryRoute(app, o) {
  if (!app || installed.has(app)) return null;
  installed.add(app);
  const handler = createHistoryHandler(o);
  app.get('/s7twin/history', handler);
  return handler;
}

module.exports = {
  FILE_NAME, PERMISSION, historyOptions, historyStore, ownEdgeFrames, flushBeforeClose, backfillFiler, createHistoryHandler, installHistoryRoute,
};
