'use strict';
/**
 * Start Debian's ROS 1 master (`rosmaster --core`, python3-rosmaster) as our own child process:
 * on a loopback port (a free one unless given), its logs in a private folder (ROS_HOME), stopped
 * with SIGTERM. The protocol study's ROS nodes register with it over XML-RPC; `env` is what a
 * node needs to find it.
 *
 *   const m = await startRosMaster({ port: 0 });
 *   m.url, m.env            // http://127.0.0.1:<port>, {ROS_MASTER_URI, ROS_HOSTNAME, ROS_HOME, ROS_LOG_DIR}
 *   await m.stop();
 */
const net = require('node:net');
const { createRun, hostOption, ports, findProgram, BrokerError } = require('./server');

const DEFAULTS = {
  startTimeoutMs: 60000, // rosmaster is Python: a few seconds on a loaded 2-core machine
  pollMs: 100, // how often the port is tried while it starts
};

/** Does something accept connections on host:port? */
function answers(host, port) {
  return new Promise((resolve) => {
    const s = net.connect(port, host, () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/**
 * @param {object} [o]
 * @param {number} [o.port] 0 or absent: a free port
 * @param {string} [o.host] default 127.0.0.1
 * @param {number} [o.timeoutMs]
 * @returns {Promise<{name:string, url:string, host:string, port:number, env:Object<string,string>, pid:number,
 *   startMs:number, logs:()=>string, exited:Promise<void>, stop:()=>Promise<void>}>}
 * @throws {BrokerError} E_ROSMASTER_MISSING, E_ROSMASTER_START, E_BROKER_OPTION
 */
async function startRosMaster(o = {}) {
  const host = hostOption(o.host);
  const { port } = await ports({ port: o.port }, host);
  const bin = findProgram('rosmaster');
  if (!bin) throw new BrokerError('E_ROSMASTER_MISSING', 'the ROS 1 master is not installed: run `bash scripts/study-deps.sh` as root, or `apt-get ' +
    'install python3-rosmaster`');
  const run = createRun('rosmaster');
  const env = { ROS_MASTER_URI: `http://${host}:${port}`, ROS_HOSTNAME: host, ROS_HOME: run.dir, ROS_LOG_DIR: run.dir };
  const timeoutMs = o.timeoutMs || DEFAULTS.startTimeoutMs;
  const t0 = performance.now();
  try {
    // rosmaster says nothing on its output when it is up: its port answering is the sign.
    const server = await run.start({
      name: 'rosmaster', code: 'E_ROSMASTER_START', command: bin, args: ['--core', '-p', String(port)],
      env: { ...process.env, ...env }, ready: null, timeoutMs,
      fatal: [{ re: /Address already in use/, why: `port ${port} is taken` }],
    });
    while (!(await answers(host, port))) {
      if (server.child.exitCode !== null || server.child.signalCode !== null) throw new BrokerError('E_ROSMASTER_START', `rosmaster ` +
        `exited:\n${server.logs().slice(-4000)}`);
      if (performance.now() - t0 > timeoutMs) throw new BrokerError('E_ROSMASTER_START', `rosmaster did not listen on ${port} within ${timeoutMs} ` +
        `ms:\n${server.logs().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, DEFAULTS.pollMs));
    }
    return {
      name: 'rosmaster', url: env.ROS_MASTER_URI, host, port, env, pid: server.pid,
      startMs: performance.now() - t0, logs: server.logs, exited: server.exited, stop: () => run.stop(),
    };
  } catch (err) {
    await run.stop();
    throw err;
  }
}

module.exports = { startRosMaster, DEFAULTS };
