'use strict';
/**
 * The system as `npm start` (`bash scripts/start.sh`, scripts/start-all.js) runs it: on the fixed
 * ports and development credentials of nodes/lib/core/local.js (every S7T_* variable set in the
 * environment wins), each part a supervised process that is restarted with back-off when it dies,
 * as a supervisor would. One plant (a virtual PLC unless a real one is used, the cloud, the edge),
 * or a fleet (redis-server, N cloud instances, M plants) with copies of a port at +10 each.
 */
const fs = require('node:fs');
const path = require('node:path');
const { createBackoff } = require('../nodes/lib/core/backoff');
const { localEnv } = require('../nodes/lib/core/local');
const paths = require('../nodes/lib/core/paths');
const { spawnWithLifeline } = require('./lifeline');
const { nodeRedCommand, READY } = require('./nodered');
const { PLC_COMMAND } = require('./plc');
const { plantIds, homeInstance, dialOrder, fleetTokens, fleetEdgeFlows } = require('./fleet');

const ROOT = path.join(__dirname, '..');
const STABLE_MS = 30000; // a part up this long counts as recovered: its restart back-off starts over
const STOP_MS = 15000; // Ctrl-C: a part still running after this is killed
/** The log line of the virtual PLC (plc/cli.js) that says it is up. */
const PLC_READY = /listen|S7/i;
const REDIS_CHILD = path.join(__dirname, 'redis-child.js');

/**
 * Environment for every part: the local defaults, then whatever the user set, then what follows
 * from them (the virtual PLC's own names, the edge's view of the cloud).
 * @param {{scan?: string|number}} opts
 * @param {object} [env] default process.env
 * @returns {object}
 */
function buildEnv(opts, env = process.env) {
  const e = localEnv(env);
  if (opts.scan) e.S7T_SCAN_MS = String(opts.scan);
  // The virtual PLC's own names (plc/cli.js) follow the shared ones unless set on their own.
  const plcEnv = {
    S7T_PLC_S7_PORT: e.S7T_PLC_PORT,
    S7T_PLC_SCAN_MS: e.S7T_SCAN_MS,
    S7T_PLC_PLANT: e.S7T_PLANT,
    S7T_PLC_MQTT_URL: `mqtt://127.0.0.1:${e.S7T_MQTT_PORT}`,
    S7T_PLC_MQTT_USER: e.S7T_MQTT_PLC_USER,
    S7T_PLC_MQTT_PASSWORD: e.S7T_MQTT_PLC_PASSWORD,
  };
  for (const [k, v] of Object.entries(plcEnv)) if (e[k] === undefined) e[k] = v;
  // The edge's view of the cloud's servers (nodes/lib/core/paths.js) follows the cloud's own
  // settings unless set apart.
  const ports = Object.fromEntries(Object.entries(paths.SERVICES).map(([name, svc]) => [name, e[svc.env]]));
  const view = paths.edgeEnv({ host: e.S7T_CLOUD_HOST, ...ports }, paths.bundle());
  for (const [k, v] of Object.entries(view)) if (e[k] === undefined) e[k] = v;
  e.S7T_TIMER_DIR = e.S7T_TIMER_DIR || path.join(ROOT, 'results', 'flow-timers');
  return e;
}

/**
 * The one-plant system's processes, in start order; `ready` is the log line that says each is up.
 * @param {object} env buildEnv()
 * @param {{plc: boolean}} opts plc false: a real PLC, set in the environment
 */
function services(env, opts) {
  const list = [];
  if (opts.plc) list.push({ name: 'plc', args: PLC_COMMAND, env: {}, ready: PLC_READY });
  const nodeRed = nodeRedCommand(env);
  list.push({ name: 'cloud', args: nodeRed, env: { S7T_ROLE: 'cloud', PORT: env.S7T_CLOUD_PORT }, ready: READY });
  list.push({ name: 'edge', args: nodeRed, env: { S7T_ROLE: 'edge', PORT: env.S7T_EDGE_PORT }, ready: READY });
  return list;
}

/** The port of a numbered copy: the single system's port + 10 per copy after the first. */
const nth = (port, i) => String(Number(port) + 10 * i);

/**
 * The fleet's processes (redis-server unless S7T_REDIS_URL names one, N cloud instances, M plants
 * each a virtual PLC and an edge), with each one's environment and, where it differs from the
 * assembled flows, its flow file. Instance i (from 1) listens on the single system's ports +
 * 10·(i−1), plant k's PLC and edge on theirs + 10·(k−1). Every edge dials every instance, its own
 * plant's first, and moves to the next when it goes. OPC UA and Modbus are per instance: plant k
 * bridges them to instance k where there is one (docs/fleet.md).
 * @param {object} env buildEnv()
 * @param {{instances: number, plants: number, dir?: string}} opts dir: the instances' user
 *   directories and flow files (default .fleet/ in the checkout)
 * @returns {{list: object[], fleet: object}}
 */
function fleetServices(env, opts) {
  const n = opts.instances;
  const m = opts.plants;
  const plants = plantIds(m);
  const redisPort = env.S7T_REDIS_PORT || '6380';
  const redisUrl = env.S7T_REDIS_URL || `redis://127.0.0.1:${redisPort}`;
  const host = env.S7T_CLOUD_HOST;
  const cloudPort = (i) => nth(env.S7T_CLOUD_PORT, i);
  const edgeToken = (plant) => `${env.S7T_EDGE_TOKEN}-${plant}`;
  const nodeRed = nodeRedCommand(env);
  // Set S7T_TOKENS yourself to choose other tokens.
  const tokens = env.S7T_TOKENS || fleetTokens({ twin: env.S7T_TWIN_TOKEN, viewer: env.S7T_VIEWER_TOKEN, edge: edgeToken, plants });
  const list = [];
  if (!env.S7T_REDIS_URL) list.push({ name: 'redis', args: [REDIS_CHILD, redisPort], env: {}, ready: /redis-server ready/ });
  const dirs = opts.dir || path.join(ROOT, '.fleet');
  fs.mkdirSync(dirs, { recursive: true });
  for (let i = 0; i < n; i++) {
    list.push({
      name: `cloud${i + 1}`,
      args: nodeRed,
      env: {
        S7T_ROLE: 'cloud', PORT: cloudPort(i), S7T_CLOUD_PORT: cloudPort(i), S7T_USER_DIR: path.join(dirs, `cloud${i + 1}`),
        S7T_REDIS_URL: redisUrl, S7T_TOKENS: tokens, S7T_EDGE_TOKEN: '',
        // This instance's OPC UA and Modbus servers carry plant i's values (docs/fleet.md).
        S7T_PLANT: plants[i] || `instance${i + 1}`,
        S7T_MQTT_PORT: nth(env.S7T_MQTT_PORT, i), S7T_MQTT_WS_PORT: nth(env.S7T_MQTT_WS_PORT, i),
        S7T_OPCUA_PORT: nth(env.S7T_OPCUA_PORT, i), S7T_MODBUS_PORT: nth(env.S7T_MODBUS_PORT, i),
        S7T_TIMER_DIR: path.join(env.S7T_TIMER_DIR, `cloud${i + 1}`),
      },
      ready: READY,
    });
  }
  const edgeFlowsNoBridges = fleetEdgeFlows();
  for (let k = 0; k < m; k++) {
    const plant = plants[k];
    const home = homeInstance(k, n);
    // OPC UA and Modbus are per instance: plant k bridges them to instance k, if there is one.
    const bridges = k < n;
    let flowFile = path.join(ROOT, 'flows', 'edge.json');
    if (!bridges) {
      flowFile = path.join(dirs, `edge-${plant}.flows.json`);
      fs.writeFileSync(flowFile, JSON.stringify(edgeFlowsNoBridges, null, 1));
    }
    list.push({
      name: `plc-${plant}`,
      args: PLC_COMMAND,
      env: {
        S7T_PLC_S7_PORT: nth(env.S7T_PLC_PORT, k), S7T_PLC_OPCUA_PORT: nth(env.S7T_PLC_OPCUA_PORT, k), S7T_PLC_MODBUS_PORT: nth(env.S7T_PLC_MODBUS_PORT, k),
        S7T_PLC_PLANT: plant, S7T_PLC_MQTT_URL: `mqtt://${host}:${nth(env.S7T_MQTT_PORT, home)}`,
      },
      ready: PLC_READY,
    });
    list.push({
      name: `edge-${plant}`,
      args: nodeRed,
      env: {
        S7T_ROLE: 'edge', PORT: nth(env.S7T_EDGE_PORT, k), S7T_USER_DIR: path.join(dirs, `edge-${plant}`), S7T_FLOW_FILE: flowFile,
        S7T_PLANT: plant, S7T_EDGE_TOKEN: edgeToken(plant),
        S7T_CLOUD_URL: dialOrder(home, n, (j) => `ws://${host}:${cloudPort(j)}/s7twin/edge`),
        S7T_PLC_PORT: nth(env.S7T_PLC_PORT, k), S7T_PLC_OPCUA_PORT: nth(env.S7T_PLC_OPCUA_PORT, k), S7T_PLC_MODBUS_PORT: nth(env.S7T_PLC_MODBUS_PORT, k),
        S7T_OPCUA_URL: `opc.tcp://${host}:${nth(env.S7T_OPCUA_PORT, k)}`, S7T_MODBUS_CLOUD_PORT: nth(env.S7T_MODBUS_PORT, k),
      },
      ready: READY,
    });
  }
  return { list, fleet: { n, m, plants, redisUrl, cloudPort, edgeToken, bridges: Math.min(n, m) } };
}

/**
 * Run processes as a supervisor does: start each with its lifeline (killed outright, the
 * supervisor takes them with it), print what matters of their output with a name prefix, restart
 * one that exits with back-off, and stop them all (the last started first) on stop().
 * @param {object[]} list services() or fleetServices().list: {name, args, env, ready}
 * @param {object} o
 * @param {object} o.env environment for every process (each service's own env on top)
 * @param {boolean} [o.verbose] every log line (default: start-up lines, warnings, errors, the PLC's)
 * @param {number} [o.nameWidth] width of the name prefix
 * @param {() => void} [o.onUp] called once every process has said it is up
 * @param {(line: string) => void} [o.out] standard output lines
 * @param {(line: string) => void} [o.err] error output lines
 * @returns {{live: Map<string, object>, stop: () => Promise<void>}} live: name → its current child
 */
function supervise(list, o) {
  const out = o.out || ((l) => console.log(l));
  const err = o.err || ((l) => console.error(l));
  const width = o.nameWidth || 5;
  const live = new Map();
  const pending = new Set(list.map((svc) => svc.name));
  let stopping = false;

  const start = (svc) => {
    const child = spawnWithLifeline(svc.args, { cwd: ROOT, env: { ...o.env, ...svc.env } });
    live.set(svc.name, child);
    const prefix = `[${svc.name.padEnd(width)}] `;
    let partial = '';
    let up = false;
    const onData = (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const ready = !up && svc.ready.test(line);
        if (o.verbose || ready || /\[(warn|error)\]|error|Error/.test(line) || /^plc/.test(svc.name)) out(prefix + line);
        if (!ready) continue;
        up = true;
        svc.upAt = Date.now();
        if (pending.delete(svc.name) && pending.size === 0) {
          if (o.onUp) o.onUp();
        } else if (svc.restarts) {
          out(`${prefix}back up (restart ${svc.restarts}, pid ${child.pid})`);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, sig) => {
      if (stopping) return;
      // The others reconnect by themselves: the demo shows the recovery the bridge is built for.
      if (svc.upAt && Date.now() - svc.upAt > STABLE_MS) svc.backoff.reset();
      const wait = svc.backoff.next();
      svc.restarts = (svc.restarts || 0) + 1;
      err(`${prefix}exited (${sig || code}); restarting in ${(wait / 1000).toFixed(1)} s`);
      svc.timer = setTimeout(() => { svc.timer = null; if (!stopping) start(svc); }, wait);
    });
  };
  for (const svc of list) {
    svc.backoff = createBackoff({ initialMs: 500, maxMs: 30000, stableMs: STABLE_MS });
    start(svc);
  }

  /** Stop everything, the last started first (the edge, which writes the PLC, before the PLC). */
  const stop = () => {
    stopping = true;
    for (const svc of list) clearTimeout(svc.timer);
    const alive = list.map((svc) => live.get(svc.name)).filter((c) => c && c.exitCode === null && c.signalCode === null).reverse();
    return new Promise((resolve, reject) => {
      let left = alive.length;
      if (!left) { resolve(); return; }
      const force = setTimeout(() => {
        for (const c of alive) c.kill('SIGKILL');
        reject(Object.assign(new Error('a part did not stop on SIGINT: killed'), { code: 'E_STOP_TIMEOUT' }));
      }, STOP_MS);
      for (const c of alive) {
        c.once('exit', () => { if (--left === 0) { clearTimeout(force); resolve(); } });
        c.kill('SIGINT');
      }
    });
  };
  return { live, stop };
}

module.exports = { buildEnv, services, fleetServices, supervise, nth };
