'use strict';
/**
 * What the processes of a benchmark run (virtual PLC, cloud and edge Node-RED, Toxiproxy, the
 * load generator) cost: CPU % and resident memory read from /proc/<pid>/stat and
 * /proc/<pid>/status, the numbers `top` shows, without sampling tools that would add load of
 * their own. The launcher (system/) starts the processes.
 */
const fs = require('node:fs');
const os = require('node:os');

const CLK_TCK = 100; // USER_HZ: 100 on every Linux architecture Node supports

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

module.exports = { readProc, readMachine, createCostMeter };
