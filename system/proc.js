'use strict';
/**
 * One way to start a Node.js child of the launcher and know it is up: spawned with its IPC
 * lifeline (system/lifeline.js: it stops when the launcher goes), its output kept (a tail), and
 * the start awaited until a line says it is up, a line says it will not come up, it exits, or a
 * time limit passes. The virtual PLC and Node-RED start through here.
 */
const path = require('node:path');
const { codedError } = require('../nodes/lib/core/errors');
const { spawnWithLifeline } = require('./lifeline');

const ROOT = path.join(__dirname, '..');
const DEFAULTS = {
  startTimeoutMs: 90000, // Node-RED with node-red-contrib-opcua takes a few seconds on 2 loaded cores
  stopTimeoutMs: 10000, // SIGINT → SIGKILL after, ms
  logKeepChars: 2e6, // log tail kept per process, characters (halved when exceeded)
};

/** Error with a stable `code`: E_START_TIMEOUT, E_START_FAILED, E_EXITED. */
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
 * @throws {ProcError}
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

  const timeoutMs = o.timeoutMs || DEFAULTS.startTimeoutMs;
  const match = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new ProcError('E_START_TIMEOUT', `${o.name} did not start within ${timeoutMs} ms:\n${out.slice(-4000)}`)), timeoutMs);
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

module.exports = { spawnNode, ProcError, DEFAULTS, ROOT };
