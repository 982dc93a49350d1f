'use strict';
/**
 * Secure by default: an instance reachable beyond loopback refuses to start while its editor has
 * no login or one of its secrets is unset or still a development value; the local demo on
 * 127.0.0.1 needs nothing. Used by settings.js (cloud and edge Node-RED) and by the virtual PLC
 * (plc/cli.js). The development values and which part needs which secret come from one place,
 * nodes/lib/core/local.js (DEFAULTS, SECRETS); `node scripts/gen-env.js` writes strong ones into `.env`.
 *
 *   const r = check({ role: 'cloud', env: process.env });
 *   if (r.problems.length) { console.error(refusal('cloud', r)); process.exit(2); }
 *
 * Why refuse instead of warn: with the editor open, anyone who reaches the port deploys a
 * function or exec node and runs code on the host (a test deployment was taken over that way
 * through the open editors on 1880 and 1881);
 * with a development token, anyone who read this repository drives the plant.
 */
const net = require('node:net');
const { DEFAULTS, SECRETS } = require('../core/local');
const { userEntries } = require('../mqtt/auth');
const { createChecker, parseGrants } = require('./auth');
const tls = require('./tls');

/** The variables naming where each part's servers bind (unset = 127.0.0.1 everywhere). */
const BIND_HOSTS = {
  cloud: ['S7T_HOST', 'S7T_MQTT_HOST', 'S7T_OPCUA_HOST', 'S7T_MODBUS_HOST'],
  edge: ['S7T_HOST'],
  plc: ['S7T_PLC_HOST'],
};
const EDITOR_ROLES = new Set(['cloud', 'edge']); // parts with a Node-RED editor and admin API
const BCRYPT = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
const GEN_ENV = 'node scripts/gen-env.js';
const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Is a bind address loopback only? 127.0.0.0/8, ::1 and `localhost` are; 0.0.0.0, ::, any other
 * address or host name is not.
 * @param {string} host
 */
function isLoopback(host) {
  const h = String(host).trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  const v4 = h.replace(/^::ffff:/, '');
  if (net.isIPv4(v4)) return LOOPBACK.check(v4, 'ipv4');
  return net.isIPv6(h) && LOOPBACK.check(h, 'ipv6');
}

/** Every development secret value (the MQTT user list contributes its passwords). */
function devValues() {
  const out = new Set();
  for (const name of Object.keys(SECRETS)) {
    const v = DEFAULTS[name];
    if (name === 'S7T_MQTT_USERS') for (const e of userEntries(v)) { if (e.password) out.add(e.password); }
    else out.add(v);
  }
  return out;
}

/**
 * Why a secret's value is not fit for a deployment, or null when it is.
 * @param {string} name
 * @param {string|undefined} value
 */
function secretProblem(name, value) {
  if (value === undefined || value === null || String(value).trim() === '') return 'is not set';
  const dev = devValues();
  if (/USERS$/.test(name)) {
    const bad = userEntries(value).filter((e) => e.password && dev.has(e.password)).map((e) => e.username);
    return bad.length ? `gives ${bad.join(', ')} a development password (nodes/lib/core/local.js)` : null;
  }
  return dev.has(String(value)) ? 'is the development value from nodes/lib/core/local.js' : null;
}

/**
 * Check one part of the system before it starts.
 * @param {object} opts
 * @param {'cloud'|'edge'|'plc'} opts.role
 * @param {object} [opts.env] default process.env
 * @param {Object<string,string>} [opts.hosts] bind addresses by variable name (default: the
 *   role's BIND_HOSTS from env)
 * @param {Object<string,string|undefined>} [opts.secrets] secret values by variable name
 *   (default: the role's SECRETS from env)
 * @returns {{exposed: Array<{name:string, host:string}>, problems: Array<{name:string, why:string}>,
 *   warnings: string[]}} problems is empty when the part may start
 */
function check({ role, env = process.env, hosts, secrets }) {
  if (!BIND_HOSTS[role]) throw new Error(`unknown role ${role}`);
  const where = hosts || Object.fromEntries(BIND_HOSTS[role].map((n) => [n, env[n]]));
  const exposed = Object.entries(where)
    .filter(([, h]) => h !== undefined && h !== null && String(h).trim() !== '' && !isLoopback(h))
    .map(([name, host]) => ({ name, host: String(host) }));
  const problems = [];
  const warnings = [];
  if (!exposed.length) return { exposed, problems, warnings };

  if (EDITOR_ROLES.has(role)) {
    const hash = env.S7T_ADMIN_HASH;
    if (!hash) {
      const why = 'is not set: the editor and admin API would be open, and anyone reaching them can deploy a flow that runs code here';
      problems.push({ name: 'S7T_ADMIN_HASH', why });
    } else if (!BCRYPT.test(hash)) {
      problems.push({ name: 'S7T_ADMIN_HASH', why: 'is not a bcrypt hash ($2b$...): nobody could log in' });
    }
  }
  const values = secrets || Object.fromEntries(Object.entries(SECRETS).filter(([, roles]) => roles.includes(role)).map(([n]) => [n, env[n]]));
  // A fleet's cloud instances, serving many plants, may give every token through S7T_TOKENS
  // (token:role:plants): a role granted there needs no plain token, and no scoped token may be a
  // development value either.
  const scopedRoles = new Set();
  if (role === 'cloud' && !secrets && env.S7T_TOKENS) {
    try {
      const dev = devValues();
      for (const g of parseGrants(env.S7T_TOKENS)) {
        scopedRoles.add(g.role);
        if (dev.has(g.token)) problems.push({ name: 'S7T_TOKENS', why: `gives the ${g.role} role a development token (nodes/lib/core/local.js)` });
      }
    } catch (err) {
      problems.push({ name: 'S7T_TOKENS', why: `cannot be read: ${err.message}` });
    }
  }
  const PLAIN_ROLE = { S7T_TWIN_TOKEN: 'twin', S7T_EDGE_TOKEN: 'edge' };
  for (const [name, value] of Object.entries(values)) {
    const unset = value === undefined || value === null || String(value).trim() === '';
    if (unset && scopedRoles.has(PLAIN_ROLE[name])) continue;
    const why = secretProblem(name, value);
    if (why) problems.push({ name, why });
  }
  if (role === 'cloud' && exposed.some((e) => e.name === 'S7T_OPCUA_HOST') && !/^(true|false)$/.test(String(env.S7T_OPCUA_INSECURE))) {
    problems.push({
      name: 'S7T_OPCUA_INSECURE',
      why: 'is not set: the OPC UA server would also offer SecurityPolicy None (values in clear text); ' +
        'set false for Sign & Encrypt only, or true to accept that',
    });
  }
  if (EDITOR_ROLES.has(role) && exposed.some((e) => e.name === 'S7T_HOST') && !env.S7T_TLS_KEY) {
    warnings.push('the editor and the WebSocket endpoints serve plain HTTP beyond loopback: set S7T_TLS_KEY and S7T_TLS_CERT, ' +
      'or put a TLS-terminating proxy in front (docs/deploy.md)');
  }
  return { exposed, problems, warnings };
}

/**
 * The refusal message: what listens where, exactly what to set, and how.
 * @param {string} role
 * @param {ReturnType<typeof check>} result
 * @returns {string}
 */
function refusal(role, result) {
  const width = Math.max(...result.problems.map((p) => p.name.length));
  return [
    `s7twin: the ${role} refuses to start: it listens beyond loopback (${result.exposed.map((e) => `${e.name}=${e.host}`).join(', ')})`,
    'and these settings are missing or development values:',
    ...result.problems.map((p) => `  ${p.name.padEnd(width)}  ${p.why}`),
    '',
    `Make strong secrets and an editor password in one go:   ${GEN_ENV}`,
    '  (writes .env with random tokens, passwords and a bcrypt hash of a random editor password, and',
    '  prints that password once). docker-compose reads .env by itself; elsewhere load it with',
    '  `set -a; . ./.env; set +a` before starting. See docs/deploy.md.',
    'On one machine only? Leave every *_HOST at 127.0.0.1 (the default) and none of this is needed.',
  ].join('\n');
}

/**
 * settings.js's security block: refuse to start (exit 2) when check() finds problems, then turn
 * on the editor login (S7T_ADMIN_HASH, plus a read-only bearer token S7T_METRICS_TOKEN for
 * scrapers of /s7twin/metrics and /s7twin/stats), TLS (nodes/lib/access/tls.js) and the credential key.
 * @param {object} settings Node-RED settings being built (changed in place)
 * @param {'cloud'|'edge'} role
 * @param {object} [env]
 * @param {{exit?: Function, log?: Function}} [io] for tests
 * @returns {object} settings
 */
function secureSettings(settings, role, env = process.env, io = {}) {
  const exit = io.exit || ((code) => process.exit(code));
  const log = io.log || ((line) => process.stderr.write(`${line}\n`));
  let serverTls;
  try {
    serverTls = tls.serverTls(env);
  } catch (err) {
    log(`s7twin: the ${role} refuses to start: ${err.message}`);
    return exit(2);
  }
  const result = check({ role, env });
  if (result.problems.length) {
    log(refusal(role, result));
    return exit(2);
  }
  for (const w of result.warnings) log(`s7twin: warning: ${w}`);

  settings.credentialSecret = env.S7T_CREDENTIAL_SECRET || DEFAULTS.S7T_CREDENTIAL_SECRET;
  if (env.S7T_ADMIN_HASH) {
    settings.adminAuth = {
      type: 'credentials',
      users: [{ username: env.S7T_ADMIN_USER || 'admin', password: env.S7T_ADMIN_HASH, permissions: '*' }],
    };
    if (env.S7T_METRICS_TOKEN) {
      // A static bearer token for Prometheus and the like: it may read the counters, nothing else.
      const ok = createChecker([env.S7T_METRICS_TOKEN]);
      settings.adminAuth.tokens = (token) => Promise.resolve(ok(token) ? { username: 'metrics', permissions: ['s7twin.read'] } : null);
    }
  }
  if (serverTls) {
    settings.https = { key: serverTls.key, cert: serverTls.cert };
    settings.requireHttps = true;
  }
  return settings;
}

module.exports = { check, refusal, secureSettings, isLoopback, secretProblem, devValues, BIND_HOSTS };
