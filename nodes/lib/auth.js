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

module.exports = { parseTokens, requestToken, createChecker, twinTokens, createRoleChecker };
