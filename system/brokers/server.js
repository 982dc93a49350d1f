'use strict';
/**
 * One way to run a message broker's server as a child of this process, shared by RabbitMQ, Kafka
 * and Mosquitto (native programs or a JVM, so the IPC lifeline of the Node.js children does not
 * apply): its output kept (a tail), the start awaited until a line says it is up, it exits or a
 * time limit passes; stopped with SIGTERM, on which each of the three shuts down cleanly, and
 * SIGKILL after a grace period. If this process exits without stopping it (a test run that ends
 * early), an exit hook kills what it started and removes its private folder, so nothing keeps
 * holding ports and memory on a 2-core machine.
 *
 * Also the checks every broker starter makes the same way: where a program is, a private folder,
 * free ports, credentials that can be written into a broker's config file.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { codedError } = require('../../nodes/lib/core/errors');
const { freePorts } = require('../../plc/net');

const DEFAULTS = {
  host: '127.0.0.1', // every broker binds to loopback unless told otherwise
  username: 's7t',
  stopTimeoutMs: 30000, // SIGTERM → SIGKILL after, ms (Kafka's clean shutdown takes a few seconds)
  logKeepChars: 400000, // log tail kept per broker, characters (halved when exceeded)
};

/**
 * Error with a stable `code`: E_<BROKER>_MISSING (not installed: scripts/broker-deps.sh installs
 * it), E_<BROKER>_START (did not come up; the message ends with its log), E_BROKER_OPTION.
 */
const BrokerError = codedError('BrokerError');

// Written into config files (rabbitmq.conf, a JAAS line in quotes, a password file of
// `user:password` lines): a quote, '#', ':' or a line break there would change the file's meaning.
const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;
const PASSWORD = /^[A-Za-z0-9_.~+=@%-]{8,128}$/;

/**
 * Username and password for a broker: the ones given, checked, or the default user with a fresh
 * random password (each start is a new broker with nothing in it; the caller reads them back).
 * @param {{username?: string, password?: string}} o
 * @returns {{username: string, password: string}}
 * @throws {BrokerError} E_BROKER_OPTION
 */
function credentials(o) {
  const username = o.username === undefined ? DEFAULTS.username : o.username;
  const password = o.password === undefined ? crypto.randomBytes(18).toString('base64url') : o.password;
  if (typeof username !== 'string' || !USERNAME.test(username)) {
    throw new BrokerError('E_BROKER_OPTION', 'username: 1 to 64 characters of A-Z a-z 0-9 _ . - (it is written into the broker\'s config)');
  }
  if (typeof password !== 'string' || !PASSWORD.test(password)) {
    throw new BrokerError('E_BROKER_OPTION', 'password: 8 to 128 characters of A-Z a-z 0-9 _ . ~ + = @ % - (it is written into the broker\'s config)');
  }
  return { username, password };
}

/**
 * The address to listen on: the one given, checked, or 127.0.0.1.
 * @param {string} [host] an IP address or a host name
 * @returns {string}
 * @throws {BrokerError} E_BROKER_OPTION
 */
function hostOption(host) {
  if (host === undefined) return DEFAULTS.host;
  if (typeof host !== 'string' || !/^[A-Za-z0-9.:-]{1,253}$/.test(host)) throw new BrokerError('E_BROKER_OPTION', `host: an IP address or a host name, got ${host}`);
  return host;
}

/**
 * The ports asked for, and a free loopback port for each one not given (0 or absent).
 * @param {Object<string, number|undefined>} wanted name → port
 * @param {string} host
 * @returns {Promise<Object<string, number>>}
 * @throws {BrokerError} E_BROKER_OPTION for a port that is not 0..65535
 */
async function ports(wanted, host) {
  for (const [name, p] of Object.entries(wanted)) {
    if (p !== undefined && !(Number.isInteger(p) && p >= 0 && p <= 65535)) {
      throw new BrokerError('E_BROKER_OPTION', `${name} port: an integer 0..65535 (0: a free port), got ${p}`);
    }
  }
  const missing = Object.keys(wanted).filter((n) => !wanted[n]);
  const free = missing.length ? await freePorts(missing, host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host) : {};
  return Object.fromEntries(Object.keys(wanted).map((n) => [n, wanted[n] || free[n]]));
}

/**
 * The first executable called `name` in `dirs` and then on PATH (Debian puts daemons in /usr/sbin,
 * which a non-root PATH lacks), or null.
 * @param {string} name
 * @param {string[]} [dirs] looked in first
 * @param {(file: string) => boolean} [accept] a further check of a candidate
 * @returns {string|null}
 */
function findProgram(name, dirs = [], accept = () => true) {
  const all = [...dirs, ...(process.env.PATH || '').split(':').filter(Boolean), '/usr/bin', '/usr/sbin'];
  for (const dir of all) {
    const f = path.join(dir, name);
    try { fs.accessSync(f, fs.constants.X_OK); } catch { continue; }
    if (accept(f)) return f;
  }
  return null;
}

/**
 * Spawn a broker's server and wait until its output matches `ready`.
 * @param {object} o
 * @param {string} o.name for messages ("RabbitMQ")
 * @param {string} o.code error code when it does not come up (E_RABBITMQ_START)
 * @param {string} o.command
 * @param {string[]} o.args
 * @param {object} o.env the whole environment of the child
 * @param {string} [o.cwd]
 * @param {RegExp|null} o.ready output that says it is up; null: up once spawned (a caller that
 *   has a better sign, such as a port that answers, waits for it)
 * @param {{re: RegExp, why: string}[]} [o.fatal] output that says it will not come up, and why in words
 * @param {number} o.timeoutMs
 * @param {number} [o.stopTimeoutMs]
 * @param {() => number[]} [o.pids] further processes of the server (RabbitMQ's Erlang VM under its
 *   start script), killed with it when it does not stop in time
 * @param {(child: object) => void} [o.onSpawn] told of the child as soon as it is spawned
 * @returns {Promise<{pid:number, child:object, logs:()=>string, match:RegExpMatchArray, exited:Promise<void>, stop:()=>Promise<void>}>}
 * @throws {BrokerError} o.code
 */
async function startServer(o) {
  const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (o.onSpawn) o.onSpawn(child);
  let out = '';
  let dead = false;
  let spawnError = null;
  child.once('error', (err) => { spawnError = err; }); // exit follows
  // 'close': every process holding its output is gone, not only the one spawned.
  const exited = new Promise((resolve) => child.once('close', () => { dead = true; resolve(); }));
  let onData = () => {};
  const collect = (d) => {
    out += d;
    if (out.length > DEFAULTS.logKeepChars) out = out.slice(-DEFAULTS.logKeepChars / 2);
    onData();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  const stop = async () => {
    if (dead) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => {
      if (dead) return;
      child.kill('SIGKILL');
      for (const pid of o.pids ? o.pids() : []) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    }, o.stopTimeoutMs || DEFAULTS.stopTimeoutMs);
    await exited;
    clearTimeout(t);
  };

  const match = await new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      onData = () => {};
      reject(new BrokerError(o.code, `${o.name} did not start: ${why}\n${out.slice(-4000)}`));
    };
    const timer = setTimeout(() => fail(`not up within ${o.timeoutMs} ms`), o.timeoutMs);
    onData = () => {
      const m = o.ready ? o.ready.exec(out) : [''];
      if (m) { clearTimeout(timer); onData = () => {}; resolve(m); return; }
      const f = (o.fatal || []).find((x) => x.re.test(out));
      if (f) fail(f.why);
    };
    exited.then(() => fail(spawnError ? spawnError.message : `it exited (${child.signalCode || child.exitCode})`));
    onData();
  }).catch(async (err) => { await stop(); throw err; });

  return { pid: child.pid, child, logs: () => out, match, exited, stop };
}

/**
 * One start of a broker: a fresh private folder (its config files hold a password) and the
 * processes started for it. stop() stops them, last started first, and removes the folder; if
 * this process exits before that, an exit hook kills them with SIGKILL and removes the folder.
 * @param {string} prefix folder name's start ("kafka": /tmp/s7t-kafka-XXXXXX)
 * @returns {{dir: string, start: (o: object) => ReturnType<typeof startServer>, stop: () => Promise<void>}}
 *   start: startServer with the process tracked
 */
function createRun(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `s7t-${prefix}-`));
  const children = [];
  const servers = [];
  let stopped = null; // the one stop, however often it is asked for
  const hook = () => {
    for (const { child, pids } of children) {
      for (const pid of [child.pid, ...(pids ? pids() : [])]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', hook);
  return {
    dir,
    async start(o) {
      const server = await startServer({ ...o, onSpawn: (child) => children.push({ child, pids: o.pids }) });
      servers.push(server);
      return server;
    },
    stop() {
      stopped = stopped || (async () => {
        for (const server of [...servers].reverse()) await server.stop();
        process.removeListener('exit', hook);
        fs.rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

module.exports = { startServer, createRun, credentials, hostOption, ports, findProgram, BrokerError, DEFAULTS };
