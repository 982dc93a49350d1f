'use strict';
/**
 * Child processes of a benchmark run (virtual PLC, cloud and edge Node-RED) and their cost:
 * CPU % and resident memory read from /proc/<pid>/stat and /proc/<pid>/status, the numbers
 * `top` shows, without sampling tools that would add load of their own.
 */
const { codedError } = require('../../nodes/lib/core/errors');
const { spawnWithLifeline } = require('../../scripts/lifeline');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const RED = path.join(ROOT, 'node_modules', 'node-red', 'red.js');
const DEFAULTS = {
  startTimeoutMs: 90000, // Node-RED with node-red-contrib-opcua takes a few seconds on 2 loaded cores
  stopTimeoutMs: 10000, // SIGINT → SIGKILL after, ms
  logKeepChars: 1e6, // log tail kept per process, characters
};
const CLK_TCK = 100; // USER_HZ: 100 on every Linux architecture Node supports

/** Error with a stable `code`. */
const ProcError = codedError('ProcError');

/**
 * Spawn a Node.js child and wait until its output matches `ready` (or it fails).
 * @param {object} o
 * @param {string} o.name for messages
 * @param {string[]} o.args node arguments
 * @param {object} [o.env] environment added to process.env
 * @param {RegExp} o.ready line that says it is up
 * @param {RegExp} [o.fatal] line that says it will not come up
 * @param {number} [o.timeoutMs]
 * @returns {Promise<{name:string, pid:number, child:object, logs:()=>string, match:RegExpMatchArray, stop:()=>Promise<void>}>}
 */
async function spawnNode(o) {
  const child = spawnWithLifeline(o.args, { cwd: ROOT, env: { ...process.env, ...(o.env || {}) } });
  let out = '';
  let dead = false;
  const exited = new Promise((resolve) => child.once('exit', () => { dead = true; resolve(); }));
  let onData = null;
  const collect = (d) => {
    out += d;
    if (out.length > DEFAULTS.logKeepChars) out = out.slice(-DEFAULTS.logKeepChars / 2);
    if (onData) onData();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  const stop = async () => {
    if (!dead) {
      child.kill('SIGINT');
      const t = setTimeout(() => { if (!dead) child.kill('SIGKILL'); }, DEFAULTS.stopTimeoutMs);
      await exited;
      clearTimeout(t);
    }
  };

  const match = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new ProcError('E_START_TIMEOUT', `${o.name} did not start within ${o.timeoutMs || DEFAULTS.startTimeoutMs} ms:\n${out.slice(-4000)}`)), o.timeoutMs || DEFAULTS.startTimeoutMs);
    function done(err, m) {
      clearTimeout(timer);
      onData = null;
      if (err) reject(err); else resolve(m);
    }
    onData = () => {
      const m = o.ready.exec(out);
      if (m) { done(null, m); return; }
      if (o.fatal && o.fatal.test(out)) done(new ProcError('E_START_FAILED', `${o.name} could not start:\n${out.slice(-4000)}`));
    };
    exited.then(() => done(new ProcError('E_EXITED', `${o.name} exited during start:\n${out.slice(-4000)}`)));
    onData();
  }).catch(async (err) => { await stop(); throw err; });

  return { name: o.name, pid: child.pid, child, logs: () => out, match, stop };
}

/**
 * Start the virtual PLC in its own process.
 * @param {object} plcOpts createPlc options (ports 0 = free)
 * @returns {Promise<{pid:number, ports:object, stop:Function, logs:Function}>}
 */
async function startPlc(plcOpts) {
  const p = await spawnNode({
    name: 'virtual PLC',
    args: [path.join(__dirname, 'plc-child.js'), JSON.stringify(plcOpts)],
    ready: /S7T_PLC_READY (\{.*\})/,
    fatal: /S7T_PLC_FAILED/,
  });
  return { ...p, ports: JSON.parse(p.match[1]).ports };
}

/**
 * Start Node-RED with the project's settings.js, a temporary user directory and a flow file.
 * @param {object} o
 * @param {'cloud'|'edge'} o.role
 * @param {object[]} o.flows flow array
 * @param {number} o.port HTTP port
 * @param {object} [o.env] S7T_* variables for the flows
 * @returns {Promise<{pid:number, port:number, url:string, userDir:string, stop:Function, logs:Function}>}
 */
async function startNodeRed(o) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), `s7t-bench-${o.role}-`));
  const flowFile = path.join(userDir, 'flows.json');
  fs.writeFileSync(flowFile, JSON.stringify(o.flows));
  let p;
  try {
    p = await spawnNode({
      name: `Node-RED ${o.role}`,
      args: [RED, '--settings', path.join(ROOT, 'settings.js')],
      env: {
        S7T_ROLE: o.role,
        PORT: String(o.port),
        S7T_HOST: '127.0.0.1',
        S7T_FLOW_FILE: flowFile,
        S7T_USER_DIR: userDir,
        S7T_TIMER_DIR: path.join(userDir, 'results'),
        ...(o.env || {}),
      },
      ready: /Started flows/,
      fatal: /Failed to start|Waiting for missing types/,
    });
  } catch (err) {
    fs.rmSync(userDir, { recursive: true, force: true });
    throw err;
  }
  const stop = async () => { await p.stop(); fs.rmSync(userDir, { recursive: true, force: true }); };
  return { ...p, port: o.port, url: `http://127.0.0.1:${o.port}`, userDir, timerDir: path.join(userDir, 'results'), stop };
}

/**
 * How long the process's main thread (a Node.js process's event loop) has been ready to run but
 * waiting for a core, from /proc/<pid>/schedstat (second field, ns; needs schedstats, which
 * Linux has by default). On a saturated machine this is the queueing that sets latency tails.
 * @returns {number|null} ms, null where the kernel does not say
 */
function readWait(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const ns = Number(f[1]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/**
 * Read CPU time (user+system, ms) and RSS (bytes) of a process from /proc.
 * @param {number} pid
 * @returns {{cpuMs:number, rss:number}|null} null when the process is gone
 */
function readProc(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(f[11]); // field 14 of proc(5), 0-based 11 after pid and comm
    const stime = Number(f[12]);
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return { cpuMs: ((utime + stime) * 1000) / CLK_TCK, rss: m ? Number(m[1]) * 1024 : 0 };
  } catch {
    return null;
  }
}

/**
 * Read the machine's CPU time from the first line of /proc/stat: busy and total jiffies over
 * every core (idle and iowait count as not busy).
 * @returns {{busy:number, total:number, cores:number}|null} null where /proc/stat is missing
 */
function readMachine() {
  try {
    const text = fs.readFileSync('/proc/stat', 'utf8');
    const f = text.slice(0, text.indexOf('\n')).trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = f[3] + (f[4] || 0);
    return { busy: total - idle, total, cores: (text.match(/^cpu\d+ /gm) || []).length || os.cpus().length };
  } catch {
    return null;
  }
}

/**
 * Measure CPU % (of one core) and RSS of processes over a window: call start(), run the load,
 * call end(). RSS is sampled every `intervalMs` and its peak and mean reported. The machine's
 * own CPU use over the same window comes out as `machine` ({cpuPct: busy share of all cores,
 * cores}): on a small machine the load generator and the proxies compete with the system under
 * test, and this says how close to saturated the run was.
 * @param {Object<string, number>} pids name → pid (a missing pid is skipped)
 * @param {number} [intervalMs]
 */
function createCostMeter(pids, intervalMs = 250) {
  let t0 = 0;
  let first = {};
  let firstWait = {}; // run-queue wait at start (read at start and end only, not every sample)
  let firstMachine = null;
  const rss = {};
  let timer = null;
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const r = pid ? readProc(pid) : null;
      if (r) (rss[name] = rss[name] || []).push(r.rss);
    }
  };
  return {
    start() {
      t0 = performance.now();
      first = {};
      firstWait = {};
      for (const [name, pid] of Object.entries(pids)) {
        first[name] = pid ? readProc(pid) : null;
        firstWait[name] = pid ? readWait(pid) : null;
      }
      firstMachine = readMachine();
      for (const k of Object.keys(rss)) delete rss[k];
      sample();
      timer = setInterval(sample, intervalMs);
      timer.unref();
    },
    /**
     * @returns {Object<string, {cpuPct:number, waitPct:number|null, rssMeanMB:number, rssPeakMB:number}>}
     *   waitPct: share of the window the main thread waited for a core
     */
    end() {
      clearInterval(timer);
      timer = null;
      sample();
      const wall = performance.now() - t0;
      const out = {};
      for (const [name, pid] of Object.entries(pids)) {
        if (!pid) continue;
        const a = first[name];
        const b = readProc(pid);
        const w0 = firstWait[name];
        const w1 = readWait(pid);
        const r = rss[name] || [];
        out[name] = {
          cpuPct: a && b && wall > 0 ? (100 * (b.cpuMs - a.cpuMs)) / wall : null,
          waitPct: w0 !== null && w1 !== null && wall > 0 ? (100 * (w1 - w0)) / wall : null,
          rssMeanMB: r.length ? r.reduce((s, v) => s + v, 0) / r.length / 1048576 : null,
          rssPeakMB: r.length ? Math.max(...r) / 1048576 : null,
        };
      }
      const m = readMachine();
      if (firstMachine && m && m.total > firstMachine.total) {
        out.machine = { cpuPct: (100 * (m.busy - firstMachine.busy)) / (m.total - firstMachine.total), cores: m.cores };
      }
      return out;
    },
    stop() { if (timer) clearInterval(timer); timer = null; },
  };
}

module.exports = { spawnNode, startPlc, startNodeRed, readProc, readMachine, createCostMeter, ProcError, DEFAULTS };
