'use strict';
/**
 * Start Debian's Eclipse Mosquitto (the MQTT broker of the protocol study, beside our aedes) as
 * our own child process: our config in a private folder, one listener on the host given (default
 * 127.0.0.1), a password file made with mosquitto_passwd and no anonymous access, Nagle off on
 * every connection as on our own sockets, no persistence. Started as root, Mosquitto drops to its
 * own `mosquitto` user, as Debian's service does; the private folder is handed to that user so it
 * can still read its password file. Stopped with SIGTERM.
 *
 *   const mq = await startMosquitto({ port: 0 });   // 0: a free port
 *   mq.url, mq.credentials                          // mqtt://127.0.0.1:<port>, {username, password}
 *   await mq.stop();
 */
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { createRun, credentials, hostOption, ports, findProgram, BrokerError } = require('./server');

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

/** Write `username:password` and let mosquitto_passwd hash it in place (the password never appears on a command line). */
function passwordFile(passwdBin, file, cred) {
  fs.writeFileSync(file, `${cred.username}:${cred.password}\n`, { mode: 0o600 });
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
 * @param {number} [o.timeoutMs] start-up limit
 * @returns {Promise<{name:string, version:string, url:string, host:string, port:number,
 *   credentials:{username:string,password:string}, pid:number, startMs:number, logs:()=>string, exited:Promise<void>, stop:()=>Promise<void>}>}
 * @throws {BrokerError} E_MOSQUITTO_MISSING, E_MOSQUITTO_START, E_BROKER_OPTION
 */
async function startMosquitto(o = {}) {
  const host = hostOption(o.host);
  const cred = credentials(o);
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
  let server = null;
  const t0 = performance.now();
  try {
    await passwordFile(passwdBin, passwd, cred);
    const drop = process.getuid && process.getuid() === 0 ? systemUser(DEFAULTS.dropToUser) : null;
    fs.writeFileSync(conf, [
      'per_listener_settings false',
      'allow_anonymous false',
      `password_file ${passwd}`,
      'persistence false',
      'set_tcp_nodelay true',
      'log_dest stderr',
      'log_type error', 'log_type warning', 'log_type notice', 'log_type information',
      ...(drop ? [`user ${DEFAULTS.dropToUser}`] : []),
      `listener ${port} ${host}`,
      '',
    ].join('\n'), { mode: 0o600 });
    if (drop) for (const f of [dir, conf, passwd]) fs.chownSync(f, drop.uid, drop.gid);
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
    pid: server.pid,
    startMs: performance.now() - t0,
    logs: () => server.logs(),
    exited: server.exited,
    stop: run.stop,
  };
}

module.exports = { startMosquitto, DEFAULTS };
