'use strict';
/**
 * Start a real Node-RED runtime (a child process with the project's settings.js) for flow and
 * end-to-end tests, and stop it again. Each runtime gets its own temporary user directory and an
 * ephemeral port.
 */
const { spawnWithLifeline } = require('../../scripts/lifeline');
const { freePort } = require('../../plc/net');
const { waitFor } = require('./wait');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const RED = path.join(ROOT, 'node_modules', 'node-red', 'red.js');

/**
 * Start Node-RED with settings.js.
 * @param {object} opts
 * @param {'edge'|'cloud'} opts.role
 * @param {object[]|string} [opts.flows] the flow array, or a path to a flow file; none: settings.js
 *   runs its own copy of flows/<role>.json in the user directory, as `npm start` does
 * @param {object} [opts.env] extra environment (S7T_* variables the flows read)
 * @param {number} [opts.port] default: a free port
 * @param {string} [opts.userDir] default: a new temporary directory
 * @param {number} [opts.timeoutMs] how long to wait for "Started flows"
 * @returns {Promise<{port:number, url:string, userDir:string, logs:()=>string, stop:()=>Promise<void>, child}>}
 */
async function startNodeRed(opts) {
  const port = opts.port || (await freePort());
  const userDir = opts.userDir || fs.mkdtempSync(path.join(os.tmpdir(), `s7t-${opts.role}-`));
  let flowFile = opts.flows;
  if (opts.flows && typeof opts.flows !== 'string') {
    flowFile = path.join(userDir, 'flows.json');
    fs.writeFileSync(flowFile, JSON.stringify(opts.flows));
  }
  const env = {
    ...process.env,
    S7T_ROLE: opts.role,
    PORT: String(port),
    S7T_HOST: '127.0.0.1',
    ...(flowFile ? { S7T_FLOW_FILE: flowFile } : {}),
    S7T_USER_DIR: userDir,
    S7T_TIMER_DIR: path.join(userDir, 'results'),
    ...(opts.env || {}),
  };
  // A test run killed outright takes its Node-RED with it (scripts/lifeline.js).
  const child = spawnWithLifeline([RED, '--settings', path.join(ROOT, 'settings.js')], { cwd: ROOT, env });
  let out = '';
  const collect = (d) => { out += d; if (out.length > 2e6) out = out.slice(-1e6); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, sig) => resolve({ code, sig })));
  let dead = false;
  exited.then(() => { dead = true; });

  const stop = async () => {
    if (!dead) {
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(t);
    }
    if (!opts.keepUserDir) fs.rmSync(userDir, { recursive: true, force: true });
  };

  let fatal;
  try {
    await waitFor(() => {
      if (dead) fatal = `Node-RED (${opts.role}) exited`;
      else if (/\[(?:info|warn|error)\] (?:Failed to start|Waiting for missing types)/.test(out)) {
        fatal = `Node-RED (${opts.role}) could not start its flows`;
      }
      return fatal || /Started flows/.test(out);
    }, opts.timeoutMs || 60000, `Node-RED ${opts.role} to start`);
    if (fatal) throw new Error(`${fatal}:\n${out}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, url: `http://127.0.0.1:${port}`, userDir, logs: () => out, stop, child };
}

/**
 * The counters of every s7twin node of a running Node-RED (GET /s7twin/stats), by node name.
 * @param {{url: string}} red from startNodeRed
 * @returns {Promise<Object<string, object>>} name (or id when unnamed) -> counters
 */
async function nodeStats(red) {
  const { nodes } = await (await fetch(`${red.url}/s7twin/stats`)).json();
  return Object.fromEntries(nodes.map((n) => [n.name || n.id, n.counters]));
}

/**
 * Wait until the edge's bridges towards the PLC have their baselines (issue 16: what a twin
 * commands before that is not applied): the OPC UA bridge's commands and probe requests, the
 * Modbus codecs "commands → PLC" and "probe requests → PLC" (every probe block), as far as the
 * edge runs them.
 * @param {{url: string}} edge
 * @param {{opcua?: boolean, modbus?: boolean, modbusProbeBlocks?: number, since?: object, timeoutMs?: number}} opts
 *   since: counters of an earlier nodeStats() call; baselines must have grown past them
 */
async function edgeReady(edge, opts) {
  const before = opts.since || {};
  const grew = (now, was, key) => now && now[key] > ((was && was[key]) || 0);
  await waitFor(async () => {
    const s = await nodeStats(edge);
    if (opts.opcua) {
      const b = s['OPC UA bridge'];
      const was = before['OPC UA bridge'];
      if (!b || b.commands.holding || !grew(b.commands, was && was.commands, 'baselines')) return false;
      if (b.probes && (b.probes.requests.holding || !grew(b.probes.requests, was && was.probes && was.probes.requests, 'baselines'))) return false;
    }
    if (opts.modbus) {
      if (!grew(s['commands → PLC'], before['commands → PLC'], 'baselines')) return false;
      const p = s['probe requests → PLC'];
      const blocks = opts.modbusProbeBlocks ?? 0;
      if (blocks && !(p && p.baselines >= (((before['probe requests → PLC'] || {}).baselines) || 0) + blocks)) return false;
    }
    return true;
  }, opts.timeoutMs || 60000, 'the edge\'s bridges to have their baselines');
}

module.exports = { ROOT, freePort, waitFor, startNodeRed, nodeStats, edgeReady };
