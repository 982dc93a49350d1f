'use strict';
/**
 * The plant history of one Node-RED runtime: where its database is, one store per file for the
 * process (lib/history/state-store.js), and `GET /s7twin/history?plant=&from=&to=[&tags=]` on the
 * admin API.
 *
 * Who may read it (lib/history/access.js): the plant's viewer, twin and auditor tokens, and the
 * editor login (permission `s7twin.history`); an edge token gets 403.
 *
 * Plain module; the cloud's edge endpoint node feeds the store and mounts the route.
 */
const os = require('node:os');
const path = require('node:path');
const { createStateStore } = require('./state-store');
const { createReadAccess, plantOf, timeParam } = require('./access');
const { isPlant } = require('../core/plants');
const clock = require('../core/clock');
const registry = require('../runtime/registry');

const FILE_NAME = 's7twin-history.sqlite';
const PERMISSION = 's7twin.history';
const HOUR_MS = 3600 * 1000;
const MAX_TAGS = 64; // tags one query may name
const stores = new Map(); // file -> store

/**
 * Where the history is and how long it is kept: S7T_HISTORY_FILE (else the settings'
 * `s7twin.historyFile`, else `s7twin-history.sqlite` in the user directory; relative to it) and
 * S7T_HISTORY_RETENTION_H (hours, default 168: a week).
 * @param {{userDir?: string, s7twin?: {historyFile?: string}}} [settings]
 * @param {object} [env]
 * @returns {{file: string, retentionMs: number}}
 * @throws {Error} code E_CONFIG for a retention that is not a positive number
 */
function historyOptions(settings = {}, env = process.env) {
  const dir = settings.userDir || path.join(os.tmpdir(), `s7twin-${process.pid}`);
  const configured = env.S7T_HISTORY_FILE || (settings.s7twin && settings.s7twin.historyFile);
  const raw = env.S7T_HISTORY_RETENTION_H;
  const hours = raw === undefined || raw === '' ? 168 : Number(raw);
  if (!(hours > 0)) {
    throw Object.assign(new Error(`S7T_HISTORY_RETENTION_H must be a positive number of hours, not ${JSON.stringify(raw)}`), { code: 'E_CONFIG' });
  }
  return { file: path.resolve(dir, configured || FILE_NAME), retentionMs: hours * HOUR_MS };
}

/**
 * The runtime's history store (opened on first use; stays open for the process, across redeploys).
 * @param {{file: string, retentionMs: number}} where historyOptions()
 * @param {(text: string) => void} [warn] where a failing write is reported
 */
function historyStore(where, warn = () => {}) {
  let s = stores.get(where.file);
  if (s) return s;
  s = createStateStore({
    file: where.file,
    retentionMs: where.retentionMs,
    now: clock.now,
    onError: (err) => warn(`E_HISTORY_STORE: plant history ${where.file}: ${err.message} (the link goes on; rows wait and are retried)`),
  });
  stores.set(where.file, s);
  registry.add({ id: `s7twin-history:${where.file}`, type: 's7twin-history', name: path.basename(where.file) }, () => ({ history: s.counters }));
  registry.addCheck(`s7twin-history:${where.file}`, () => (s.counters.failing > 0
    ? `the plant history cannot be written (${s.counters.failing} failed tries; the Node-RED log says why)` : null));
  return s;
}

/**
 * How the edge endpoint files a backfill frame into a store (lib/link/backfill-intake.js): added
 * like any frame, and settled once the store has it on the disk (a store without whenWritten: at
 * once), refused when the store dropped rows of it (it is past its bound: the edge keeps the record).
 * @param {{add: Function, whenWritten?: Function}} store
 * @returns {(plant: string, env: object) => Promise<void>}
 */
function backfillFiler(store) {
  return (plant, env) => {
    if (store.add(plant, env) === false) {
      return Promise.reject(Object.assign(new Error('the plant history dropped the frame (closed, or too many rows waiting)'), { code: 'E_HISTORY_STORE' }));
    }
    return store.whenWritten ? store.whenWritten() : Promise.resolve();
  };
}

/**
 * @param {object} o
 * @param {() => object} o.store the runtime's store
 * @param {() => Array} o.grants every grant of the instance
 * @param {boolean} o.adminAuth
 * @param {(permission: string) => Function} [o.needsPermission]
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

  function serve(req, res, scope) {
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
    const p = plantOf(params.get('plant'), scope, isPlant);
    if (p.status) { refuse(res, p.status, p.code || 'E_HISTORY_QUERY', p.msg); return; }
    counters.queries += 1;
    let found;
    try {
      found = o.store().query({ plant: p.plant, from, to, tags });
    } catch (err) {
      refuse(res, 500, 'E_HISTORY_STORE', `the plant history could not be read: ${err.message}`);
      return;
    }
    res.set('Cache-Control', 'no-store');
    res.json({ plant: p.plant, from, to, tags, count: found.frames.length, truncated: found.truncated, states: found.frames });
  }

  const handle = (req, res) => authorize(req, res, (scope) => serve(req, res, scope));
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

module.exports = { FILE_NAME, PERMISSION, historyOptions, historyStore, backfillFiler, createHistoryHandler, installHistoryRoute };
