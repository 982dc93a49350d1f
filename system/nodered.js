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
/** The command line of a Node-RED of this project (its role and ports come from the environment). */
const NODE_RED_COMMAND = [RED, '--settings', SETTINGS];
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
      args: NODE_RED_COMMAND,
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

module.exports = { startNodeRed, NODE_RED_COMMAND, READY };
