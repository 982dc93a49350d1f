'use strict';
/**
 * Start Debian's RabbitMQ (AMQP 0-9-1) as our own child process, beside any RabbitMQ service the
 * machine runs and sharing nothing with it: its own node name, config, database and Erlang
 * cookie in a private folder, its own epmd (Erlang's port mapper) on a port of ours, and every
 * listener on loopback: AMQP on the host given (default 127.0.0.1), epmd and the Erlang
 * distribution port on 127.0.0.1 always, since a node reachable over distribution with its cookie
 * can be made to run anything. The first user is ours (`default_user`), so the stock guest user
 * is never created. No plugins. Stopped with SIGTERM (a clean shutdown), then epmd.
 *
 *   const rabbit = await startRabbitMq({ port: 0 });   // 0: a free port
 *   rabbit.url, rabbit.credentials                     // amqp://127.0.0.1:<port>, {username, password}
 *   await rabbit.stop();
 */
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { createRun, credentials, hostOption, ports, findProgram, BrokerError } = require('./server');

const DEFAULTS = {
  vhost: '/',
  memoryHighWatermark: '512MB', // publishers are blocked above this; RabbitMQ idles at about 140 MB
  startTimeoutMs: 120000, // about 6 s on an idle 2-core machine; far longer when the cores are busy
  epmdTimeoutMs: 10000,
};

// Debian's /usr/sbin/rabbitmq-server switches to the rabbitmq user and writes to the system's
// folders; the script it calls (inside the release) runs the broker as we are, where we say.
const isReleaseScript = (f) => /rabbitmq_server-[^/]+\/sbin\/rabbitmq-server$/.test(fs.realpathSync(f));

/** The rabbitmq-server script of an installed release, or null. */
function findRabbitMqServer() {
  return findProgram('rabbitmq-server', ['/usr/lib/rabbitmq/bin'], isReleaseScript);
}

/** The installed RabbitMQ's version (from its release folder's name), or null. */
function rabbitMqVersion() {
  const bin = findRabbitMqServer();
  const m = bin && /rabbitmq_server-([^/]+)\//.exec(fs.realpathSync(bin));
  return m ? m[1] : null;
}

/** Resolve once something accepts TCP connections on host:port, or throw after `ms`. */
async function listening(host, port, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host, port }, () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nothing listens on ${host}:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** rabbitmq.conf: listener, first user and its rights, memory limit, logs to stdout. */
function config(o) {
  return [
    `listeners.tcp.default = ${o.host}:${o.port}`,
    `default_user = ${o.username}`,
    `default_pass = ${o.password}`,
    `default_vhost = ${o.vhost}`,
    'default_permissions.configure = .*',
    'default_permissions.read = .*',
    'default_permissions.write = .*',
    `vm_memory_high_watermark.absolute = ${o.memoryHighWatermark}`,
    'disk_free_limit.absolute = 50MB',
    'log.console = true',
    'log.console.level = info',
    '',
  ].join('\n');
}

/**
 * The broker's environment: ours, without any RABBITMQ_* or ERL_* setting of the caller's (they
 * would point it at the system's folders or change the VM's flags), and HOME in the private folder
 * so the Erlang cookie is made there.
 */
function environment(dir, p, nodeName) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(RABBITMQ_|ERL_)|^NOTIFY_SOCKET$/.test(k)));
  return {
    ...env,
    HOME: dir,
    LANG: env.LANG || 'C.UTF-8',
    ERL_EPMD_ADDRESS: '127.0.0.1',
    ERL_EPMD_PORT: String(p.epmd),
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_DIST_PORT: String(p.dist),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
    RABBITMQ_FEATURE_FLAGS_FILE: path.join(dir, 'feature_flags'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_LOGS: '-', // to stdout, where the start is awaited
    RABBITMQ_PID_FILE: path.join(dir, 'rabbit.pid'),
    // Distribution only on loopback (its port is RABBITMQ_DIST_PORT).
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
  };
}

/**
 * @param {object} [o]
 * @param {number} [o.port] AMQP port; 0 or absent: a free port
 * @param {string} [o.host] AMQP listener's address, default 127.0.0.1
 * @param {number} [o.distPort] Erlang distribution port (on 127.0.0.1); default a free port
 * @param {number} [o.epmdPort] our epmd's port (on 127.0.0.1); default a free port
 * @param {string} [o.username] default s7t
 * @param {string} [o.password] default a fresh random one
 * @param {string} [o.vhost] default /
 * @param {string} [o.nodeName] default s7t-<port>@localhost
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{name:string, version:string, url:string, host:string, port:number, vhost:string,
 *   credentials:{username:string,password:string}, ports:{amqp:number,dist:number,epmd:number},
 *   pid:number, pids:{beam:number,epmd:number}, startMs:number, logs:()=>string, exited:Promise<void>, stop:()=>Promise<void>}>}
 *   pid: the Erlang VM's (beam.smp), whose CPU and memory are the broker's
 * @throws {BrokerError} E_RABBITMQ_MISSING, E_RABBITMQ_START, E_BROKER_OPTION
 */
async function startRabbitMq(o = {}) {
  const host = hostOption(o.host);
  const cred = credentials(o);
  const vhost = o.vhost === undefined ? DEFAULTS.vhost : o.vhost;
  if (typeof vhost !== 'string' || !/^\/?[A-Za-z0-9_.-]{0,64}$/.test(vhost)) {
    throw new BrokerError('E_BROKER_OPTION', `vhost: / or a name of A-Z a-z 0-9 _ . -, got ${vhost}`);
  }
  if (o.nodeName !== undefined && !/^[A-Za-z0-9_-]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(o.nodeName)) {
    throw new BrokerError('E_BROKER_OPTION', `nodeName: name@host, got ${o.nodeName}`);
  }
  const p = await ports({ amqp: o.port, dist: o.distPort, epmd: o.epmdPort }, host);
  const bin = findRabbitMqServer();
  const epmdBin = findProgram('epmd');
  if (!bin || !epmdBin) {
    throw new BrokerError('E_RABBITMQ_MISSING',
      'RabbitMQ is not installed: run `bash scripts/broker-deps.sh rabbitmq-server` as root, or `apt-get install rabbitmq-server`');
  }
  const nodeName = o.nodeName || `s7t-${p.amqp}@localhost`;
  const run = createRun('rabbitmq');
  const { dir } = run;
  let epmd = null;
  let server = null;
  const beamPid = () => { try { return Number(fs.readFileSync(path.join(dir, 'rabbit.pid'), 'utf8').trim()) || null; } catch { return null; } };
  const t0 = performance.now();
  try {
    const conf = config({ host, port: p.amqp, ...cred, vhost, memoryHighWatermark: DEFAULTS.memoryHighWatermark });
    fs.writeFileSync(path.join(dir, 'rabbitmq.conf'), conf, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
    fs.writeFileSync(path.join(dir, 'rabbitmq-env.conf'), '');
    const env = environment(dir, p, nodeName);
    // Our own epmd, in the foreground so it stops with us (the one the VM would start detaches and
    // stays behind, listening on every interface).
    epmd = await run.start({
      name: 'epmd', code: 'E_RABBITMQ_START', command: epmdBin, args: ['-port', String(p.epmd), '-address', '127.0.0.1'],
      env, cwd: dir, ready: null, timeoutMs: DEFAULTS.epmdTimeoutMs,
    });
    await listening('127.0.0.1', p.epmd, DEFAULTS.epmdTimeoutMs).catch((err) => {
      throw new BrokerError('E_RABBITMQ_START', `epmd did not start: ${err.message}\n${epmd.logs()}`);
    });
    server = await run.start({
      name: 'RabbitMQ', code: 'E_RABBITMQ_START', command: bin, args: [], env, cwd: dir,
      ready: /Server startup complete/,
      fatal: [{ re: /BOOT FAILED/, why: 'its boot failed' }],
      pids: () => [beamPid()].filter(Boolean),
      timeoutMs: o.timeoutMs || DEFAULTS.startTimeoutMs,
    });
  } catch (err) {
    await run.stop();
    throw err;
  }
  const startMs = performance.now() - t0;
  return {
    name: 'rabbitmq',
    version: rabbitMqVersion(),
    url: `amqp://${host}:${p.amqp}`,
    host,
    port: p.amqp,
    vhost,
    credentials: cred,
    ports: p,
    pid: beamPid() || server.pid,
    pids: { beam: beamPid() || server.pid, epmd: epmd.pid },
    startMs,
    logs: () => server.logs(),
    exited: server.exited,
    stop: run.stop,
  };
}

module.exports = { startRabbitMq, findRabbitMqServer, rabbitMqVersion, DEFAULTS };
