'use strict';
/**
 * Start a companion process (any language) and read the JSON lines it writes (common.py says
 * which). Its stdin stays open as its lifeline: closing it ends the companion, and if this
 * process dies the pipe closes too, so no companion outlives the bench. A companion that takes
 * commands reads them as JSON lines on that stdin (`write`; the stream benchmark's cloud and edge,
 * bench/stream/).
 */
const { spawn } = require('node:child_process');
const readline = require('node:readline');

const STOP_GRACE_MS = 5000; // after stdin closes, then SIGTERM, then SIGKILL
/** A broker's password reaches a companion in this environment variable, never on its command line. */
const PASSWORD_ENV = 'S7T_STUDY_PASSWORD';

/**
 * @param {{cmd:string, args:string[]}} command
 * @param {{name:string, env?:object, cwd?:string}} o
 * @returns {{pid:number, name:string, lines:object[], next:(pred:(l:object)=>boolean, timeoutMs:number)=>Promise<object>,
 *   write:(line:object)=>void, log:()=>string, stop:()=>Promise<void>, exited:Promise<number|null>}}
 */
function startCompanion(command, o) {
  const child = spawn(command.cmd, command.args, { env: { ...process.env, ...(o.env || {}) }, cwd: o.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  let err = '';
  const waiters = new Set();
  let dead = false;
  const exited = new Promise((resolve) => child.once('exit', (code) => {
    dead = true;
    // What it said of its failure: an `error` line on stdout (common.py, node.js), and its stderr.
    const said = lines.filter((l) => l && l.event === 'error').map((l) => `${l.code}: ${l.message}\n`).join('');
    for (const w of waiters) w.fail(new Error(`${o.name} exited (${code}) before the line it was waited for:\n${said}${err.slice(-3000)}`));
    resolve(code);
  }));
  child.once('error', (e) => { err += `spawn: ${e.message}\n`; });
  child.stdin.on('error', () => {});
  child.stderr.on('data', (d) => { err = (err + d).slice(-100000); });
  readline.createInterface({ input: child.stdout }).on('line', (text) => {
    let line;
    try { line = JSON.parse(text); } catch { err = (err + text + '\n').slice(-100000); return; }
    lines.push(line);
    for (const w of waiters) w.check(line);
  });

  /** The first line (already read or still to come) for which `pred` holds. */
  function next(pred, timeoutMs) {
    const seen = lines.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = {
        check: (l) => { if (pred(l)) { done(); resolve(l); } },
        fail: (e) => { done(); reject(e); },
      };
      const timer = setTimeout(() => w.fail(Object.assign(new Error(`${o.name}: no awaited line within ${timeoutMs} ` +
        `ms:\n${err.slice(-3000)}`), { code: 'E_COMPANION_TIMEOUT' })), timeoutMs);
      function done() { clearTimeout(timer); waiters.delete(w); }
      if (dead) w.fail(new Error(`${o.name} has exited:\n${err.slice(-3000)}`)); else waiters.add(w);
    });
  }

  async function stop() {
    if (dead) return;
    child.stdin.end();
    const t1 = setTimeout(() => { if (!dead) child.kill('SIGTERM'); }, STOP_GRACE_MS);
    const t2 = setTimeout(() => { if (!dead) child.kill('SIGKILL'); }, 2 * STOP_GRACE_MS);
    await exited;
    clearTimeout(t1);
    clearTimeout(t2);
  }

  /** One JSON line to the companion's stdin. */
  const write = (line) => { if (!dead) child.stdin.write(`${JSON.stringify(line)}\n`); };

  return { pid: child.pid, name: o.name, lines, next, write, log: () => err, stop, exited };
}

module.exports = { startCompanion, PASSWORD_ENV };
