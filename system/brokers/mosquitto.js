'use strict';
/**
 * Start Debian's Eclipse Mosquitto (the MQTT broker of the protocol study, beside our aedes, and a
 * broker the edge↔cloud link may run over) as our own child process: our config in a private
 * folder, one listener on the host given (default 127.0.0.1), a password file made with
 * mosquitto_passwd and no anonymous access, Nagle off on every connection as on our own sockets,
 * no persistence. Started as root, Mosquitto drops to its own `mosquitto` user, as Debian's
 * service does; the private folder is handed to that user so it can still read its files.
 * Stopped with SIGTERM.
 *
 *   const mq = await startMosquitto({ port: 0 });   // 0: a free port
 *   mq.url, mq.credentials                          // mqtt://127.0.0.1:<port>, {username, password}
 *   await mq.stop();
 *
 * With `users` (each a login and one of the bundle's MQTT roles, lib/mqtt/auth.js), every user
 * gets an ACL generated from its role's topics (`topic write` what it may publish, `topic read`
 * what it may subscribe to), so Mosquitto enforces the same per-topic rules as the bundle's own
 * broker: a plant's edge (`edge@plant1`) publishes on that plant's link topic only.
 *
 *   await startMosquitto({ users: [{ username: 'edge', password, role: 'edge', plants: ['plant1'] },
 *     { username: 'link', password, role: 'link' }] });
 */
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { createRun, credentials, hostOption, ports, findProgram, BrokerError } = require('./server');
const { ROLES, patternsOf } = require('../../nodes/lib/mqtt/auth');
const { PLANT_RE } = require('../../nodes/lib/core/plants');

const DEFAULTS = {
  startTimeoutMs: 30000, // a few ms when idle
  dropToUser: 'mosquitto', // Debian's system user for the broker
};

/** uid and gid of a system user, or null. */
function systemUser(name) {
  try {
    const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

/**
 * The users of a broker with roles, checked: each a login a config file can hold, a role of the
 * bundle's (lib/mqtt/auth.js ROLES) and, if bound, valid plant ids.
 * @param {Array<{username: string, password: string, role: string, plants?: string[]}>} list
 * @returns {Array<{username: string, password: string, role: string, plants: string[]|null}>}
 * @throws {BrokerError} E_BROKER_OPTION
 */
function roleUsers(list) {
  if (!Array.isArray(list) || !list.length) throw new BrokerError('E_BROKER_OPTION', 'users: a non-empty list of {username, password, role, plants?}');
  const seen = new Set();
  return list.map((u) => {
    const cred = credentials(u || {});
    if (!u.password) throw new BrokerError('E_BROKER_OPTION', `users: ${cred.username} needs a password`);
    if (!ROLES[u.role]) throw new BrokerError('E_BROKER_OPTION', `users: ${cred.username} has unknown role "${u.role}" (${Object.keys(ROLES).join(', ')})`);
    const plants = u.plants === undefined || u.plants === null ? null : u.plants;
    if (plants && !(Array.isArray(plants) && plants.length && plants.every((p) => typeof p === 'string' && PLANT_RE.test(p)))) {
      throw new BrokerError('E_BROKER_OPTION', `users: ${cred.username} has an invalid plant list`);
    }
    if (seen.has(cred.username)) throw new BrokerError('E_BROKER_OPTION', `users: ${cred.username} is listed twice`);
    seen.add(cred.username);
    return { ...cred, role: u.role, plants };
  });
}

/**
 * Mosquitto's ACL file for users with roles: per user the topics its role may publish (`topic
 * write`) and subscribe to (`topic read`), from the same role table the bundle's broker enforces
 * (lib/mqtt/auth.js patternsOf), so no second list of topics exists. A topic a user's role does
 * not name is denied (Mosquitto denies what an ACL file does not grant).
 * @param {ReturnType<typeof roleUsers>} users
 * @returns {string}
 */
function aclText(users) {
  const lines = [];
  for (const u of users) {
    const p = patternsOf({ role: u.role, plants: u.plants });
    lines.push(`user ${u.username}`, ...p.publish.map((t) => `topic write ${t}`), ...p.subscribe.map((t) => `topic read ${t}`), '');
  }
  return lines.join('\n');
}

/** Write `username:password` lines and let mosquitto_passwd hash them in place (no password appears on a command line). */
function passwordFile(passwdBin, file, creds) {
  fs.writeFileSync(file, creds.map((c) => `${c.username}:${c.password}\n`).join(''), { mode: 0o600 });
  return new Promise((resolve, reject) => {
    execFile(passwdBin, ['-U', file], { timeout: 30000 }, (err, stdout, stderr) => {
      if (err) reject(new BrokerError('E_MOSQUITTO_START', `mosquitto_passwd failed: ${err.message}\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

/**
 * @param {object} [o]
 * @param {number} [o.port] 0 or absent: a free port
 * @param {string} [o.host] listener's address, default 127.0.0.1
 * @param {string} [o.username] default s7t
 * @param {string} [o.password] default a fresh random one
 * @param {Array<{username: string, password: string, role: string, plants?: string[]}>} [o.users]
 *   users with the bundle's MQTT roles, each held to its role's topics by a generated ACL file
 *   (instead of the one user of username/password, who may use every topic)
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{name:string, version:string, url:string, host:string, port:number,
 *   credentials:{username:string,password:string}, users:object[]|null, pid:number, startMs:number, logs:()=>string,
 *   exited:Promise<void>, stop:()=>Promise<void>}>} credentials: the one user's, or the first of `users`
 * @throws {BrokerError} E_MOSQUITTO_MISSING, E_MOSQUITTO_START, E_BROKER_OPTION
 */
async function startMosquitto(o = {}) {
  const host = hostOption(o.host);
  const users = o.users === undefined ? null : roleUsers(o.users);
  const cred = users ? { username: users[0].username, password: users[0].password } : credentials(o);
  const { port } = await ports({ port: o.port }, host);
  const bin = findProgram('mosquitto');
  const passwdBin = findProgram('mosquitto_passwd');
  if (!bin || !passwdBin) {
    throw new BrokerError('E_MOSQUITTO_MISSING',
      'Mosquitto is not installed: run `bash scripts/broker-deps.sh mosquitto` as root, or `apt-get install mosquitto`');
  }
  const run = createRun('mosquitto');
  const { dir } = run;
  const conf = path.join(dir, 'mosquitto.conf');
  const passwd = path.join(dir, 'passwd');
  const acl = path.join(dir, 'acl');
  let server = null;
  const t0 = performance.now();
  try {
    await passwordFile(passwdBin, passwd, users || [cred]);
    if (users) fs.writeFileSync(acl, aclText(users), { mode: 0o600 });
    const drop = process.getuid && process.getuid() === 0 ? systemUser(DEFAULTS.dropToUser) : null;
    fs.writeFileSync(conf, [
      'per_listener_settings false',
      'allow_anonymous false',
      `password_file ${passwd}`,
      ...(users ? [`acl_file ${acl}`] : []),
      'persistence false',
      'set_tcp_nodelay true',
      'log_dest stderr',
      'log_type error', 'log_type warning', 'log_type notice', 'log_type information',
      ...(drop ? [`user ${DEFAULTS.dropToUser}`] : []),
      `listener ${port} ${host}`,
      '',
    ].join('\n'), { mode: 0o600 });
    if (drop) for (const f of [dir, conf, passwd, ...(users ? [acl] : [])]) fs.chownSync(f, drop.uid, drop.gid);
    server = await run.start({
      name: 'Mosquitto', code: 'E_MOSQUITTO_START', command: bin, args: ['-c', conf], env: process.env, cwd: dir,
      ready: /mosquitto version ([\d.]+) running/,
      timeoutMs: o.timeoutMs || DEFAULTS.startTimeoutMs,
    });
  } catch (err) {
    await run.stop();
    throw err;
  }
  return {
    name: 'mosquitto',
    version: server.match[1],
    url: `mqtt://${host}:${port}`,
    host,
    port,
    credentials: cred,
    users: users ? users.map((u) => ({ username: u.username, role: u.role, plants: u.plants })) : null,
    pid: server.pid,
    startMs: performance.now() - t0,
    logs: () => server.logs(),
    exited: server.exited,
    stop: run.stop,
  };
}

module.exports = { startMosquitto, aclText, roleUsers, DEFAULTS };
