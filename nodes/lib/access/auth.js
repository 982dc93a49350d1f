'use strict';
/**
 * Token authentication for the link endpoints, checked on the HTTP upgrade request BEFORE the
 * WebSocket exists (a refused peer never gets a socket to send frames on).
 *
 * Browsers cannot set headers on a WebSocket, so `?token=` is accepted as well as
 * `Authorization: Bearer <token>`. Comparison is constant-time: both sides are hashed to 32 bytes
 * first, so timingSafeEqual never sees different lengths and the time taken says nothing about
 * how much of a token matched.
 */
const crypto = require('node:crypto');
const { codedError } = require('../core/errors');
const { isPlant } = require('../core/plants');

/** Error with a stable `code` (E_TOKENS: a token list that cannot be used). */
const AuthError = codedError('AuthError');

/**
 * What a token lets its holder be: the edge of a plant, a twin that drives it, a viewer, or an
 * auditor (may read the plant's command log, GET /s7twin/audit; opens no link endpoint).
 */
const ROLES = Object.freeze(['edge', 'twin', 'viewer', 'auditor']);
const ANY_PLANT = '*';

/**
 * Split a token list ("a,b, c") into trimmed non-empty tokens.
 * @param {string|string[]|undefined} list
 * @returns {string[]}
 */
function parseTokens(list) {
  if (!list) return [];
  const parts = Array.isArray(list) ? list : String(list).split(',');
  return parts.map((t) => String(t).trim()).filter(Boolean);
}

/**
 * The token a request presents (header first, then query), or '' if none.
 * @param {import('http').IncomingMessage} req
 * @returns {string}
 */
function requestToken(req) {
  const h = req.headers && req.headers.authorization;
  if (typeof h === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (m) return m[1];
  }
  try {
    const u = new URL(req.url, 'http://localhost');
    return u.searchParams.get('token') || '';
  } catch {
    return '';
  }
}

const digest = (s) => crypto.createHash('sha256').update(String(s)).digest();

/**
 * A token's fingerprint, for logs that must say which token acted without holding it: the first
 * 12 hex digits of its SHA-256 (whoever has the token can compute it; the fingerprint gives
 * nothing back of a strong token).
 * @param {string} token
 * @returns {string}
 */
const tokenId = (token) => digest(token).toString('hex').slice(0, 12);

/**
 * A checker over a fixed set of tokens.
 * @param {string[]} tokens
 * @returns {(presented: string) => boolean}
 */
function createChecker(tokens) {
  const hashes = tokens.map(digest);
  return (presented) => {
    if (!presented) return false;
    const h = digest(presented);
    let ok = false;
    // Compare against every token, no early exit: the time does not depend on which matched.
    for (const t of hashes) ok = crypto.timingSafeEqual(h, t) || ok;
    return ok;
  };
}

/**
 * Parse scoped tokens (S7T_TOKENS, or a link endpoint's "scoped tokens" credential):
 * `token:role:plant[|plant...]` entries separated by ',' or newlines, role edge | twin | viewer,
 * plant an id or `*` (every plant). The role and plants are the last two ':' fields, so a token
 * may itself contain ':'.
 * @param {string|undefined} text
 * @returns {Array<{token: string, role: string, plants: string[]|'*'}>}
 * @throws {AuthError} E_TOKENS (the message never contains a token)
 */
function parseGrants(text) {
  if (!text) return [];
  return String(text).split(/[,\n]/).map((e) => e.trim()).filter(Boolean).map((entry, i) => {
    const parts = entry.split(':');
    const where = `scoped token entry ${i + 1}`;
    if (parts.length < 3 || !parts[0]) throw new AuthError('E_TOKENS', `${where} is not token:role:plant[|plant...]`);
    const list = parts.pop();
    const role = parts.pop();
    const token = parts.join(':');
    if (!ROLES.includes(role)) throw new AuthError('E_TOKENS', `${where} has unknown role "${role}" (edge, twin, viewer or auditor)`);
    if (list === ANY_PLANT) return { token, role, plants: ANY_PLANT };
    const plants = list.split('|');
    if (!plants.every(isPlant)) throw new AuthError('E_TOKENS', `${where} has an invalid plant id (1-64 characters of [A-Za-z0-9_.-], or *)`);
    return { token, role, plants };
  });
}

/**
 * Grants from every source of one cloud instance: plain token lists (S7T_TWIN_TOKEN,
 * S7T_VIEWER_TOKEN, S7T_EDGE_TOKEN or an endpoint's credentials), each for one role and one plant,
 * and scoped entries (parseGrants). One token, one role: a token listed for two roles is refused
 * (an edge token a twin could hold would let it speak for the plant). A token listed twice for
 * one role gets the union of its plants.
 * @param {Array<{tokens: string[], role: string, plant: string}>} plain
 * @param {Array<{token, role, plants}>} [scoped]
 * @returns {Array<{token: string, role: string, plants: string[]|'*'}>}
 * @throws {AuthError} E_TOKENS
 */
function mergeGrants(plain, scoped = []) {
  const byToken = new Map();
  const add = (token, role, plants) => {
    const g = byToken.get(token);
    if (!g) { byToken.set(token, { token, role, plants: plants === ANY_PLANT ? ANY_PLANT : [...plants] }); return; }
    if (g.role !== role) throw new AuthError('E_TOKENS', `a token is listed both as ${g.role} and as ${role} token: every role needs its own tokens`);
    if (g.plants === ANY_PLANT || plants === ANY_PLANT) g.plants = ANY_PLANT;
    else for (const p of plants) if (!g.plants.includes(p)) g.plants.push(p);
  };
  for (const { tokens, role, plant } of plain) {
    if (!isPlant(plant)) throw new AuthError('E_TOKENS', `invalid plant id ${JSON.stringify(plant)} for the ${role} tokens`);
    for (const t of tokens) add(t, role, [plant]);
  }
  for (const g of scoped) add(g.token, g.role, g.plants);
  return [...byToken.values()];
}

/**
 * A checker over grants: the grant of a presented token, or null. Constant-time as createChecker.
 * @param {Array<{token, role, plants}>} grants
 * @returns {(presented: string) => ({role: string, plants: string[]|'*', id: string}|null)} id: the
 *   token's fingerprint (tokenId)
 */
function createGrantChecker(grants) {
  const hashed = grants.map((g) => ({ hash: digest(g.token), grant: { role: g.role, plants: g.plants, id: tokenId(g.token) } }));
  return (presented) => {
    if (!presented) return null;
    const h = digest(presented);
    let found = null;
    for (const g of hashed) if (crypto.timingSafeEqual(h, g.hash) && !found) found = g.grant;
    return found;
  };
}

/**
 * The plant a peer connects for: the one it names (`?plant=`), or its token's only plant.
 * @param {{plants: string[]|'*'}} grant
 * @param {string|null} asked the request's `plant` parameter
 * @returns {{plant: string}|{status: number, reason: string, message: string}}
 */
function grantPlant(grant, asked) {
  if (asked !== null && asked !== undefined && asked !== '') {
    if (!isPlant(asked)) return { status: 400, reason: 'plant', message: 'invalid plant id' };
    if (grant.plants !== ANY_PLANT && !grant.plants.includes(asked)) {
      return { status: 403, reason: 'plant-scope', message: `this token is not valid for plant ${asked}` };
    }
    return { plant: asked };
  }
  if (grant.plants !== ANY_PLANT && grant.plants.length === 1) return { plant: grant.plants[0] };
  return { status: 400, reason: 'plant', message: 'this token is valid for several plants: name one with ?plant=' };
}

/**
 * The `plant` query parameter of an upgrade request, or null.
 * @param {import('http').IncomingMessage} req
 */
function requestPlant(req) {
  try {
    return new URL(req.url, 'http://localhost').searchParams.get('plant');
  } catch {
    return null;
  }
}

/**
 * The twin endpoint's token lists as an s7twin-link-server of role twin holds them: its
 * credentials, else S7T_TWIN_TOKEN (may drive) and S7T_VIEWER_TOKEN (may only watch). The cloud's
 * other twin-facing HTTP endpoints (REST, the browser twin's page) read the same config node, so
 * one token works on all of them.
 * @param {{token?: string, viewerToken?: string}} [credentials]
 * @param {object} [env]
 * @returns {{tokens: string[], viewerTokens: string[]}}
 */
function twinTokens(credentials, env = process.env) {
  const c = credentials || {};
  return { tokens: parseTokens(c.token || env.S7T_TWIN_TOKEN), viewerTokens: parseTokens(c.viewerToken || env.S7T_VIEWER_TOKEN) };
}

/**
 * Who a request is: 'twin' (a twin token: may drive), 'viewer' (a viewer token: may watch), or
 * null (no token, or a wrong one).
 * @param {{tokens: string[], viewerTokens?: string[]}} lists
 * @returns {(req: import('http').IncomingMessage) => 'twin'|'viewer'|null}
 */
function createRoleChecker(lists) {
  const twin = createChecker(lists.tokens || []);
  const viewer = createChecker(lists.viewerTokens || []);
  return (req) => {
    const t = requestToken(req);
    if (twin(t)) return 'twin';
    return viewer(t) ? 'viewer' : null;
  };
}

/**
 * The twin and viewer tokens of one plant among an instance's grants (an s7twin-link-server's
 * `grants`; tokens are scoped to plants): what the cloud's other twin-facing HTTP endpoints of
 * that plant accept (the REST node, the browser twin's page). Without grants (an endpoint that could not read its
 * tokens), the plain lists as twinTokens() reads them.
 * @param {Array<{token, role, plants}>|undefined} grants
 * @param {string} plant
 * @param {{token?: string, viewerToken?: string}} [credentials]
 * @returns {{tokens: string[], viewerTokens: string[]}}
 */
function plantTokens(grants, plant, credentials) {
  if (!grants) return twinTokens(credentials);
  const of = (role) => grants.filter((g) => g.role === role && (g.plants === ANY_PLANT || g.plants.includes(plant))).map((g) => g.token);
  return { tokens: of('twin'), viewerTokens: of('viewer') };
}

module.exports = {
  ROLES, ANY_PLANT, AuthError, parseTokens, requestToken, tokenId, createChecker, parseGrants, mergeGrants, createGrantChecker, grantPlant, requestPlant,
  twinTokens, createRoleChecker, plantTokens,
};
