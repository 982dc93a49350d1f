'use strict';
/**
 * Who may read a record of the plant on the admin API (`GET /s7twin/audit`, `GET /s7twin/history`):
 * one decision for both, over the instance's grants (lib/access/auth.js) and Node-RED's editor
 * login.
 *
 * - A token of the instance (Bearer or `?token=`) whose role the endpoint lets read: allowed for
 *   its plants. A token of another role: 403 E_FORBIDDEN (it is valid, but not for this).
 * - The editor login (adminAuth) with the endpoint's permission: every plant. Node-RED checks its
 *   own sessions and adminAuth.tokens, and answers 401 itself to a login without the permission.
 * - No editor login at all (the loopback demo, where the whole admin API is open) and no token:
 *   every plant. An unknown token: 401 E_UNAUTHORIZED.
 *
 * Plain module: the node passes RED.auth.needsPermission and whether adminAuth is on.
 */
const { requestToken, createGrantChecker, ANY_PLANT } = require('../access/auth');

/**
 * @param {object} o
 * @param {string[]} o.roles the token roles that may read
 * @param {string} o.permission the editor login's permission (e.g. 's7twin.audit')
 * @param {string} o.what what is read, for the refusals ("the command log")
 * @param {() => Array<{token, role, plants}>} o.grants every grant of the instance
 * @param {boolean} o.adminAuth whether the editor has a login
 * @param {(permission: string) => Function} [o.needsPermission] RED.auth.needsPermission
 * @param {(res, status: number, code: string, msg: string) => void} o.refuse
 * @returns {(req, res, allowed: (scope: string[]|'*') => void) => void}
 */
function createReadAccess(o) {
  const readers = `${o.roles.join(' or ')} token`;
  return function authorize(req, res, allowed) {
    const token = requestToken(req);
    if (token) {
      const grant = createGrantChecker(o.grants())(token);
      if (grant && o.roles.includes(grant.role)) { allowed(grant.plants); return; }
      if (grant) { o.refuse(res, 403, 'E_FORBIDDEN', `a ${grant.role} token may not read ${o.what}: use a ${readers} or the editor login`); return; }
    }
    if (o.adminAuth && o.needsPermission) {
      o.needsPermission(o.permission)(req, res, () => {
        if (!req.user) { o.refuse(res, 401, 'E_UNAUTHORIZED', `log in to the editor, or use a ${readers}`); return; }
        allowed(ANY_PLANT);
      });
      return;
    }
    if (token) { o.refuse(res, 401, 'E_UNAUTHORIZED', `unknown token: use a ${readers}`); return; }
    allowed(ANY_PLANT);
  };
}

/**
 * The plant(s) a query reads: the one it names (in the reader's scope), else every plant of the scope.
 * @param {string|null} asked the `plant` parameter
 * @param {string[]|'*'} scope
 * @param {(plant: string) => boolean} isPlant
 * @returns {{plant: string|string[]}|{status: number, code: string, msg: string}}
 */
function plantOf(asked, scope, isPlant) {
  if (asked && asked !== ANY_PLANT && !isPlant(asked)) return { status: 400, code: null, msg: 'invalid plant id' };
  let plant = asked || (scope === ANY_PLANT ? ANY_PLANT : scope);
  if (plant === ANY_PLANT && scope !== ANY_PLANT) plant = scope;
  if (typeof plant === 'string' && plant !== ANY_PLANT && scope !== ANY_PLANT && !scope.includes(plant)) {
    return { status: 403, code: 'E_FORBIDDEN', msg: `this token may not read plant ${plant}` };
  }
  return { plant };
}

/**
 * A time parameter: ms since the epoch, or an ISO 8601 date.
 * @param {string|null} raw
 * @param {number} dflt when it is missing
 * @returns {number} NaN when it cannot be read
 */
function timeParam(raw, dflt) {
  if (raw === null || raw === '') return dflt;
  return /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
}

module.exports = { createReadAccess, plantOf, timeParam };
