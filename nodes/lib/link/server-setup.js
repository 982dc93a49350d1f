'use strict';
/**
 * What an s7twin-link-server config node decides before its endpoint serves, as plain functions
 * (the node, nodes/s7twin-link-server.js, only wires them to Node-RED): its full path, its tokens
 * and grants, whether it may serve at all, its endpoint's options, its status, and how often it
 * says that a second edge was refused.
 */
const { parseTokens, parseGrants, mergeGrants, ANY_PLANT } = require('../access/auth');
const { DEFAULT_PLANT } = require('../core/plants');
const { positiveOr, numberOr, prop } = require('../core/props');
const { acquireBackplane } = require('../fleet/backplane');
const { transportId, brokerUrl, TRANSPORTS } = require('./transports');

/** The environment variable of each role's plain token list. */
const TOKEN_ENV = { edge: 'S7T_EDGE_TOKEN', twin: 'S7T_TWIN_TOKEN' };
const DISTINCT = 'set distinct S7T_EDGE_TOKEN and S7T_TWIN_TOKEN / S7T_VIEWER_TOKEN';

/**
 * The endpoint's path under Node-RED's httpNodeRoot.
 * @param {string} [root] RED.settings.httpNodeRoot
 * @param {string} p the configured path
 */
function fullPath(root, p) {
  let path = String(p || '').trim();
  if (!path.startsWith('/')) path = `/${path}`;
  const r = (root || '/').replace(/\/$/, '');
  return r && r !== '/' && !path.startsWith(`${r}/`) ? r + path : path;
}

/**
 * Every grant this instance knows, of every role: one token, one role. The plain token lists
 * (credentials, S7T_TWIN_TOKEN, S7T_VIEWER_TOKEN, S7T_EDGE_TOKEN) are for one plant: S7T_PLANT
 * (plant1 when unset). Scoped tokens (credentials or S7T_TOKENS, token:role:plant[|plant...])
 * name theirs. S7T_AUDITOR_TOKEN's tokens may read the command log of every plant.
 * @param {{role: 'twin'|'edge', plant?: string, credentials?: object, env: object}} o
 * @returns {Array<{token, role, plants}>}
 * @throws {AuthError} E_TOKENS a token listed for two roles, a bad plant id
 */
function endpointGrants(o) {
  const { role, env } = o;
  const creds = o.credentials || {};
  const plant = String(o.plant || '').trim() || env.S7T_PLANT || DEFAULT_PLANT;
  const tokens = parseTokens(creds.token || env[TOKEN_ENV[role]]);
  const viewerTokens = role === 'twin' ? parseTokens(creds.viewerToken || env.S7T_VIEWER_TOKEN) : [];
  const other = role === 'edge'
    ? [{ tokens: parseTokens(env.S7T_TWIN_TOKEN), role: 'twin', plant }, { tokens: parseTokens(env.S7T_VIEWER_TOKEN), role: 'viewer', plant }]
    : [{ tokens: parseTokens(env.S7T_EDGE_TOKEN), role: 'edge', plant }];
  return mergeGrants([
    { tokens, role, plant },
    { tokens: viewerTokens, role: 'viewer', plant },
    ...other,
  ], [
    ...parseGrants(creds.tokens || env.S7T_TOKENS),
    ...parseTokens(env.S7T_AUDITOR_TOKEN).map((token) => ({ token, role: 'auditor', plants: ANY_PLANT })),
  ]);
}

/**
 * Decide whether the endpoint may serve, and with what.
 * @param {object} o
 * @param {'twin'|'edge'} o.role
 * @param {string} o.path its full path
 * @param {string} [o.plant] the node's plant setting
 * @param {object} [o.credentials]
 * @param {object} o.env process.env
 * @param {string[]} o.otherTokens the tokens of this instance's endpoints of the other role
 * @param {boolean} o.pathTaken another endpoint serves the path already
 * @param {string} [o.transport] the node's transport setting (empty, or a `${NAME}` of a variable not set: WebSocket)
 * @returns {{grants?: object[], tokens?: string[], backplane?: object|null, transport?: string, unusable?: {text: string, why: string}}}
 *   grants and tokens as far as they could be read (also when it may not serve); unusable: why it
 *   may not serve (status text, and the reason for the log); the backplane: the fleet's Redis
 *   when S7T_REDIS_URL is set (edge role), else none (in-process)
 */
function planEndpoint(o) {
  let grants;
  try {
    grants = endpointGrants(o);
  } catch (err) {
    const text = err.code === 'E_TOKENS' && /both as/.test(err.message) ? 'edge token shared with twins' : 'bad token list';
    return { unusable: { text, why: `${err.code || 'E_TOKENS'}: ${err.message} (${DISTINCT}, and check S7T_TOKENS)` } };
  }
  const accepts = o.role === 'edge' ? ['edge'] : ['twin', 'viewer'];
  // The edge speaks for the plant: a token a twin (or a viewer) may hold must never open the
  // edge endpoint. Checked against every other endpoint's tokens too (their credentials).
  const tokens = grants.filter((g) => accepts.includes(g.role)).map((g) => g.token);
  if (tokens.some((t) => o.otherTokens.includes(t))) {
    return { grants, tokens, unusable: { text: 'edge token shared with twins', why: `the edge token is also a twin or viewer token (${DISTINCT})` } };
  }
  let transport;
  try {
    transport = transportId(prop(o.transport));
  } catch (err) {
    return { grants, tokens, unusable: { text: 'unknown transport', why: `${err.code}: ${err.message}` } };
  }
  if (transport !== 'ws' && o.role !== 'edge') {
    const why = `E_LINK_TRANSPORT: twins connect over WebSocket; ${TRANSPORTS[transport].label} carries the edge's link only (role edge)`;
    return { grants, tokens, unusable: { text: 'twins use WebSocket', why } };
  }
  if (o.pathTaken) return { grants, tokens, unusable: { text: 'path in use', why: `another s7twin-link-server already serves ${o.path}` } };
  let backplane = null;
  if (o.role === 'edge' && o.env.S7T_REDIS_URL) {
    try {
      backplane = acquireBackplane(o.env.S7T_REDIS_URL);
    } catch (err) {
      return { grants, tokens, unusable: { text: 'bad S7T_REDIS_URL', why: `${err.code || 'E_BACKPLANE_CONFIG'}: ${err.message}` } };
    }
  }
  return { grants, tokens, backplane, transport };
}

/**
 * Where an edge endpoint over a message bus takes its sessions: the node's broker URL (the
 * ZeroMQ bind address), else S7T_LINK_URL, else the transport's development address; the broker
 * login from the credentials, else S7T_LINK_USER and S7T_LINK_PASSWORD (or the URL's own).
 * @param {string} transport a transport id other than ws
 * @param {object} config the node's settings (brokerUrl)
 * @param {object} [credentials] brokerUser, brokerPassword
 * @param {object} env process.env
 * @returns {{url: string, username?: string, password?: string}}
 * @throws {LinkTransportError} E_LINK_URL
 */
function listenerOptions(transport, config, credentials, env) {
  const c = credentials || {};
  const b = brokerUrl(transport, prop(config.brokerUrl) || env.S7T_LINK_URL || TRANSPORTS[transport].url);
  return {
    url: b.url,
    username: c.brokerUser || env.S7T_LINK_USER || b.username,
    password: c.brokerPassword || env.S7T_LINK_PASSWORD || b.password,
  };
}

/**
 * The endpoint's options (lib/link/endpoint.js) from the node's settings.
 * @param {object} config the node's settings
 * @param {{role: string, path: string, id: string, grants: object[], backplane?: object, transport?: string}} o
 */
function endpointOptions(config, o) {
  return {
    path: o.path,
    role: o.role,
    transport: o.transport || 'ws',
    grants: o.grants,
    backplane: o.backplane || undefined,
    src: `cloud-${o.role}-${o.id}`.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64),
    pingMs: positiveOr(config.pingS, 10) * 1000,
    linkTimeoutMs: positiveOr(config.linkTimeoutS, 3) * 1000,
    maxPayload: positiveOr(config.maxPayloadKiB, 64) * 1024,
    highWaterBytes: positiveOr(config.highWaterKiB, 256) * 1024,
    maxClients: positiveOr(config.maxClients, 1000),
    lifetimeMs: positiveOr(config.lifetimeMs, 1000),
    maxLifetimeMs: positiveOr(config.maxLifetimeMs, 10000),
    ratePerS: numberOr(config.ratePerS, 200),
    burst: 2 * numberOr(config.ratePerS, 200),
  };
}

/**
 * Status for the endpoint's users: connected while at least one peer is; an edge that has not
 * had its first sync answered is still connecting.
 * @param {'twin'|'edge'} role
 * @param {object} ep the endpoint
 * @param {object} [listener] its message-bus listener (lib/link/transports/index.js listen), if any
 * @returns {{kind: string, text: string}}
 */
function endpointStatus(role, ep, listener) {
  const n = ep.counters.connections;
  if (listener && !listener.up) return { kind: 'disconnected', text: `${TRANSPORTS[ep.transport].label}: broker unreachable` };
  if (role === 'edge' && n > 0 && !ep.edgeReady()) return { kind: 'connecting', text: 'edge connecting' };
  return n > 0 ? { kind: 'connected', text: `${n} ${role}${n === 1 ? '' : 's'}` } : { kind: 'disconnected', text: `no ${role}` };
}

/**
 * The log lines of refused connections: every bad token (a log line), and a second edge refused
 * while the current one is alive at most once per `everyMs` (a warning with the count since the
 * last): it retries twice a second (lib/link/dialer.js takenRetryMs).
 * @param {{log: (text: string) => void, warn: (text: string) => void, everyMs?: number, now?: () => number}} o
 * @returns {(reason: string, req: import('http').IncomingMessage) => void} the endpoint's 'refused' listener
 */
function createRefusalLog(o) {
  const everyMs = o.everyMs === undefined ? 30000 : o.everyMs;
  const now = o.now || Date.now;
  let warnedAt = -Infinity;
  let refusals = 0;
  return (reason, req) => {
    if (reason === 'token') o.log(`refused ${req.socket.remoteAddress}: bad or missing token (HTTP 401)`);
    if (reason !== 'edge-taken') return;
    refusals += 1;
    if (now() - warnedAt < everyMs) return;
    o.warn(`refused a second edge from ${req.socket.remoteAddress} while the current edge is alive (HTTP 409; ${refusals} refusal(s) since the last warning)`);
    warnedAt = now();
    refusals = 0;
  };
}

module.exports = { TOKEN_ENV, fullPath, endpointGrants, planEndpoint, listenerOptions, endpointOptions, endpointStatus, createRefusalLog };
