'use strict';
/**
 * Node-RED with the project's settings.js, as a child process of the launcher: a cloud or an
 * edge, with its own user directory (temporary unless given) and a flow (an array written into
 * that directory, a flow file, or none: settings.js then runs its own copy of flows/<role>.json,
 * as `npm start` does).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort } = require('../plc/net');
const { spawnNode } = require('./proc');

const ROOT = path.join(__dirname, '..');
const RED = path.join(ROOT, 'node_modules', 'node-red', 'red.js');
const SETTINGS = path.join(ROOT, 'settings.js');

/**
 * V8's old generation grows to this many MiB before its first full collection, and was not set
 * lower after one in the runs measured (`--initial-old-space-size`; the Dockerfile's CMD gives
 * the same). Under a thousand twins' probes the old generation of a Node-RED of this project
 * grows about 3.5 MB a second (2-2.3 of it promoted by scavenges) from 120-160 MB live. With
 * V8's own sizing the next full collection came a fifth to three quarters above what was live:
 * one every 7-9 s in the edge and 15-35 s in the cloud, each taking 30-75 ms of the main thread
 * within about 100 ms and marking work beside it, and nearly every burst of slow probes in a k6
 * run fell on one (docs/bench.md, "Full collections"). With room to 512 MiB they come minutes
 * apart. S7T_NODE_OLD_SPACE_MB sets it (0: V8's own sizing, for a machine short of memory).
 */
const OLD_SPACE_MB = 512;

/**
 * The node options of a Node-RED of this project.
 * @param {object} [env] S7T_NODE_OLD_SPACE_MB
 * @returns {string[]}
 */
function nodeOptions(env = process.env) {
  const v = env.S7T_NODE_OLD_SPACE_MB;
  const mb = v === undefined || v === '' ? OLD_SPACE_MB : Number(v);
  if (!Number.isInteger(mb) || mb < 0) {
    throw Object.assign(new Error(`S7T_NODE_OLD_SPACE_MB must be a whole number of MiB, 0 for V8's own sizing (got "${v}")`), { code: 'E_SYSTEM_ARGS' });
  }
  return mb ? [`--initial-old-space-size=${mb}`] : [];
}

/**
 * The command line of a Node-RED of this project (its role and ports come from the environment).
 * @param {object} [env] for nodeOptions
 * @returns {string[]}
 */
const nodeRedCommand = (env = process.env) => [...nodeOptions(env), RED, '--settings', SETTINGS];
/** The log line that says the flows run, and those that say they never will. */
const READY = /Started flows/;
const FATAL = /\[(?:info|warn|error)\] (?:Failed to start|Waiting for missing types)/;

/**
 * Start Node-RED.
 * @param {object} o
 * @param {'cloud'|'edge'} o.role
 * @param {object[]|string} [o.flows] the flow array, or a path to a flow file
 * @param {number} [o.port] HTTP port (default: a free one)
 * @param {object} [o.env] S7T_* variables for the flows
 * @param {string} [o.userDir] default: a new temporary directory
 * @param {boolean} [o.keepUserDir] leave the user directory when stopped (default: removed)
 * @param {number} [o.timeoutMs] how long to wait for "Started flows"
 * @returns {Promise<{pid:number, port:number, url:string, userDir:string, timerDir:string, child:object,
 *   logs:()=>string, stop:(o?: {keep?: boolean})=>Promise<void>}>} stop({keep: true}) leaves the user directory
 */
async function startNodeRed(o) {
  const port = o.port || (await freePort());
  const userDir = o.userDir || fs.mkdtempSync(path.join(os.tmpdir(), `s7t-${o.role}-`));
  fs.mkdirSync(userDir, { recursive: true }); // a given one may be gone (a stop that removed it before a restart)
  let flowFile = o.flows;
  if (o.flows && typeof o.flows !== 'string') {
    flowFile = path.join(userDir, 'flows.json');
    fs.writeFileSync(flowFile, JSON.stringify(o.flows));
  }
  const timerDir = path.join(userDir, 'results');
  const removeDir = () => { if (!o.keepUserDir) fs.rmSync(userDir, { recursive: true, force: true }); };
  let p;
  try {
    p = await spawnNode({
      name: `Node-RED ${o.role}`,
      args: nodeRedCommand({ ...process.env, ...(o.env || {}) }),
      env: {
        S7T_ROLE: o.role,
        PORT: String(port),
        S7T_HOST: '127.0.0.1',
        ...(flowFile ? { S7T_FLOW_FILE: flowFile } : {}),
        S7T_USER_DIR: userDir,
        S7T_TIMER_DIR: timerDir,
        ...(o.env || {}),
      },
      ready: READY,
      fatal: FATAL,
      timeoutMs: o.timeoutMs,
    });
  } catch (err) {
    removeDir();
    throw err;
  }
  // keep: the user directory stays (a restart of this instance takes it again, as a real one
  // finds its disk); the last stop removes it.
  const stop = async ({ keep = false } = {}) => { await p.stop(); if (!keep) removeDir(); };
  return { ...p, port, url: `http://127.0.0.1:${port}`, userDir, timerDir, stop };
}

module.exports = { startNodeRed, nodeRedCommand, OLD_SPACE_MB, READY };
