'use strict';
/**
 * `GET /s7twin/audit?plant=&from=&to=[&format=csv]` on the admin API: the commands of a plant in
 * a window, each with who sent it, from where, its deadline, what it asked and its outcome
 * (lib/history/audit-query.js), as JSON or CSV.
 *
 * Who may read it:
 * - an auditor token (`S7T_AUDITOR_TOKEN`: every plant; or `token:auditor:plant` in S7T_TOKENS),
 *   as `Authorization: Bearer` or `?token=`, for its plants;
 * - the editor's login (adminAuth) with the permission `s7twin.audit` (the admin user has all);
 * - with no editor login at all (the loopback demo, where the admin API is open to whoever
 *   reaches it), a request without a token.
 * Twin, viewer and edge tokens get 403 E_FORBIDDEN: they are valid tokens, but a command log
 * names every sender. A token nobody knows gets 401 E_UNAUTHORIZED.
 *
 * In a fleet (the runtime's log has a shared copy, lib/history/audit-share.js) the answer holds
 * every instance's commands (lib/history/audit-fleet.js) and each chain's verdict (`chains`).
 * When the other instances' chains cannot be read (Redis away), the JSON answer says so
 * (`complete: false` and `error`) and holds this instance's commands; a CSV, a file that keeps
 * nothing of that, is refused instead: 503 E_AUDIT_INCOMPLETE with the reason (counted in
 * `incomplete`). The CSV's `unverified` column marks a command after its chain's first bad entry,
 * as the JSON's `unverified: true` does.
 *
 * Plain module: an Express-style handler for RED.httpAdmin; the node passes how to check the
 * editor login (RED.auth.needsPermission) and the instance's grants.
 */
const { isPlant } = require('../core/plants');
const { createReadAccess, plantOf, timeParam } = require('./access');
const { toCsv } = require('./audit-query');
const { readCommands } = require('./audit-store');

const DAY_MS = 24 * 3600 * 1000;
const PERMISSION = 's7twin.audit';

/**
 * What a query asks, or why it cannot be answered.
 * @param {URLSearchParams} params
 * @param {string[]|'*'} scope the plants the reader may see
 * @param {number} now
 * @returns {{plant: string|string[], from: number, to: number, csv: boolean}|{status: number, code: string, msg: string}}
 */
function readQuery(params, scope, now) {
  const to = timeParam(params.get('to'), now);
  const from = timeParam(params.get('from'), to - DAY_MS);
  if (!Number.isFinite(from) || !Number.isFinite(to) || from > to) {
    return { status: 400, code: 'E_AUDIT_QUERY', msg: 'from and to are ms since the epoch or ISO 8601 dates, from before to' };
  }
  const format = params.get('format') || 'json';
  if (format !== 'json' && format !== 'csv') return { status: 400, code: 'E_AUDIT_QUERY', msg: 'format is json or csv' };
  const p = plantOf(params.get('plant'), scope, isPlant);
  if (p.status) return { ...p, code: p.code || 'E_AUDIT_QUERY' };
  return { plant: p.plant, from, to, csv: format === 'csv' };
}

/**
 * @param {object} o
 * @param {() => {file: string, log: object, share?: object}} o.store the runtime's log (lib/history/audit-store.js)
 * @param {() => Array<{token, role, plants}>} o.grants every grant of the instance (auditor ones included)
 * @param {boolean} o.adminAuth whether the editor has a login
 * @param {(permission: string) => Function} [o.needsPermission] RED.auth.needsPermission
 * @param {() => number} [o.now]
 * @returns {(req, res) => void}
 */
function createAuditHandler(o) {
  const now = o.now || Date.now;
  const counters = { queries: 0, forbidden: 0, unauthorized: 0, badQueries: 0, incomplete: 0 };

  function refuse(res, status, code, msg) {
    if (status === 401) counters.unauthorized += 1;
    else if (status === 403) counters.forbidden += 1;
    else counters.badQueries += 1;
    res.status(status).json({ error: { code, msg } });
  }

  async function serve(req, res, scope) {
    const q = readQuery(new URL(req.url, 'http://localhost').searchParams, scope, now());
    if (q.status) { refuse(res, q.status, q.code, q.msg); return; }
    counters.queries += 1;
    const store = o.store();
    // In a fleet, every instance's commands: this one's file and the others' copies on Redis.
    const found = await readCommands(store, q);
    res.set('Cache-Control', 'no-store');
    if (q.csv) {
      if (found.complete === false) {
        counters.incomplete += 1;
        res.status(503).json({
          error: { code: 'E_AUDIT_INCOMPLETE', msg: `the CSV would lack the other instances' commands (ask for JSON to see this instance's): ${found.error}` },
        });
        return;
      }
      const name = `s7twin-audit-${Array.isArray(q.plant) ? 'plants' : q.plant.replace('*', 'all')}-${new Date(q.from).toISOString().slice(0, 10)}.csv`;
      res.set('Content-Type', 'text/csv; charset=utf-8');
      res.set('Content-Disposition', `attachment; filename="${name}"`);
      res.send(toCsv(found.rows));
      return;
    }
    res.json({
      plant: q.plant, from: q.from, to: q.to, head: store.log.head(), entries: found.entries, truncated: found.truncated, notes: found.notes,
      commands: found.rows,
      ...(found.chains ? { chains: found.chains, complete: found.complete, ...(found.error ? { error: found.error } : {}) } : {}),
    });
  }

  const authorize = createReadAccess({
    roles: ['auditor'], permission: PERMISSION, what: 'the command log', grants: o.grants, adminAuth: o.adminAuth, needsPermission: o.needsPermission, refuse,
  });

  function handle(req, res) {
    const fail = (err) => refuse(res, 500, 'E_AUDIT_FILE', `the command log could not be read: ${err.message}`);
    authorize(req, res, (scope) => { serve(req, res, scope).catch(fail); });
  }

  return Object.assign(handle, { counters });
}

const installed = new WeakSet();

/**
 * Mount `GET /s7twin/audit` once per admin app.
 * @param {object} app RED.httpAdmin
 * @param {object} o createAuditHandler's options
 * @returns {Function|null} the handler (null: mounted already)
 */
function installAuditRoute(app, o) {
  if (!app || installed.has(app)) return null;
  installed.add(app);
  const handler = createAuditHandler(o);
  app.get('/s7twin/audit', handler);
  return handler;
}

module.exports = { PERMISSION, createAuditHandler, installAuditRoute, readQuery };
