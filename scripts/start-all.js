'use strict';
/**
 * Run the whole system on one machine: the virtual S7-1500, the cloud Node-RED and the edge
 * Node-RED, each as its own process, with working defaults. Prints where everything listens and
 * stops everything on Ctrl-C (or SIGTERM).
 *
 *   node scripts/start-all.js [--no-plc] [--verbose] [--scan 10]
 *   node scripts/start-all.js --fleet [--instances 2] [--plants 2] [--verbose] [--scan 10]
 *
 * --no-plc     talk to a real PLC instead: set S7T_PLC_HOST / S7T_PLC_PORT (and the OPC UA and
 *              Modbus addresses) in the environment
 * --verbose    show every log line of every process (default: start-up lines, warnings, errors)
 * --fleet      a fleet (issue 17, docs/fleet.md): redis-server (Debian's; S7T_REDIS_PORT, 6380,
 *              or an existing one at S7T_REDIS_URL), N cloud instances on it and M plants, each a
 *              virtual PLC with its own edge. Instance i (from 1) listens on the single system's
 *              ports + 10·(i−1) (HTTP 1880, 1890, …; MQTT 1883, 1893, …), plant k's PLC and edge
 *              on theirs + 10·(k−1) (edge editor 1881, 1891, …; S7 10102, 10112, …). Every edge
 *              dials every instance, its own plant's first (plant k: instance ((k−1) mod N)+1),
 *              and moves to the next when it goes. OPC UA and Modbus are per instance: plant k
 *              bridges them to instance k where there is one (docs/fleet.md).
 * --instances  cloud instances in the fleet (default 2)
 * --plants     plants in the fleet (default 2)
 *
 * Every S7T_* variable already set in the environment wins over the defaults below.
 */
const { spawnWithLifeline } = require('./lifeline');
const { createBackoff } = require('../nodes/lib/core/backoff');
const path = require('node:path');

const { localEnv } = require('../nodes/lib/core/local');

const ROOT = path.join(__dirname, '..');
const STABLE_MS = 30000; // a part up this long counts as recovered: its restart back-off starts over

function parseArgs(argv) {
  const opts = { plc: true, verbose: false };
  const count = (a, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`${a} takes a whole number from 1 to 20 (got ${v})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-plc') opts.plc = false;
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--scan') opts.scan = argv[++i];
    else if (a === '--fleet') opts.fleet = true;
    else if (a === '--instances') opts.instances = count(a, argv[++i]);
    else if (a === '--plants') opts.plants = count(a, argv[++i]);
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown option ${a} (try --help)`);
  }
  if ((opts.instances || opts.plants) && !opts.fleet) throw new Error('--instances and --plants go with --fleet');
  if (opts.fleet && !opts.plc) throw new Error('--fleet runs virtual PLCs; --no-plc is for one real PLC');
  if (opts.fleet) { opts.instances = opts.instances || 2; opts.plants = opts.plants || 2; }
  return opts;
}

/** Environment for every child: defaults, then whatever the user set. */
function buildEnv(opts) {
  const env = localEnv(process.env);
  if (opts.scan) env.S7T_SCAN_MS = String(opts.scan);
  // The virtual PLC's own names (plc/cli.js) follow the shared ones unless set on their own.
  const plcEnv = {
    S7T_PLC_S7_PORT: env.S7T_PLC_PORT,
    S7T_PLC_SCAN_MS: env.S7T_SCAN_MS,
    S7T_PLC_PLANT: env.S7T_PLANT,
    S7T_PLC_MQTT_URL: `mqtt://127.0.0.1:${env.S7T_MQTT_PORT}`,
    S7T_PLC_MQTT_USER: env.S7T_MQTT_PLC_USER,
    S7T_PLC_MQTT_PASSWORD: env.S7T_MQTT_PLC_PASSWORD,
  };
  for (const [k, v] of Object.entries(plcEnv)) if (env[k] === undefined) env[k] = v;
  env.S7T_CLOUD_URL = env.S7T_CLOUD_URL || `ws://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}/s7twin/edge`;
  // The edge's view of the cloud's servers follows the cloud's own settings unless set apart.
  env.S7T_OPCUA_URL = env.S7T_OPCUA_URL || `opc.tcp://${env.S7T_CLOUD_HOST}:${env.S7T_OPCUA_PORT}`;
  env.S7T_MODBUS_CLOUD_HOST = env.S7T_MODBUS_CLOUD_HOST || env.S7T_CLOUD_HOST;
  env.S7T_MODBUS_CLOUD_PORT = env.S7T_MODBUS_CLOUD_PORT || env.S7T_MODBUS_PORT;
  env.S7T_TIMER_DIR = env.S7T_TIMER_DIR || path.join(ROOT, 'results', 'flow-timers');
  return env;
}

const RED = path.join(ROOT, 'node_modules', 'node-red', 'red.js');
const SETTINGS = path.join(ROOT, 'settings.js');

/** The processes, in start order; `ready` is the log line that says it is up. */
function services(env, opts) {
  const list = [];
  if (opts.plc) {
    list.push({ name: 'plc', args: [path.join(ROOT, 'plc', 'cli.js')], env: {}, ready: /listen|S7/i });
  }
  list.push({ name: 'cloud', args: [RED, '--settings', SETTINGS], env: { S7T_ROLE: 'cloud', PORT: env.S7T_CLOUD_PORT }, ready: /Started flows/ });
  list.push({ name: 'edge', args: [RED, '--settings', SETTINGS], env: { S7T_ROLE: 'edge', PORT: env.S7T_EDGE_PORT }, ready: /Started flows/ });
  return list;
}

/** The port of a numbered copy: the single system's port + 10 per copy after the first. */
const nth = (port, i) => String(Number(port) + 10 * i);

/**
 * The fleet's processes (see --fleet in the header), with each one's environment and, where it
 * differs from the assembled flows, its flow file.
 * @returns {{list: object[], fleet: object}}
 */
function fleetServices(env, opts) {
  const fs = require('node:fs');
  const { readFlows, withPathsDisabled } = require('../bench/lib/system');
  const n = opts.instances;
  const m = opts.plants;
  const plants = Array.from({ length: m }, (_, k) => `plant${k + 1}`);
  const redisPort = env.S7T_REDIS_PORT || '6380';
  const redisUrl = env.S7T_REDIS_URL || `redis://127.0.0.1:${redisPort}`;
  const host = env.S7T_CLOUD_HOST;
  const cloudPort = (i) => nth(env.S7T_CLOUD_PORT, i);
  const edgeToken = (plant) => `${env.S7T_EDGE_TOKEN}-${plant}`;
  // Scoped tokens: the twin and viewer tokens for every plant (twins name theirs with ?plant=),
  // an edge token per plant. Set S7T_TOKENS yourself to choose others.
  const tokens = env.S7T_TOKENS || [
    `${env.S7T_TWIN_TOKEN}:twin:*`,
    ...(env.S7T_VIEWER_TOKEN ? [`${env.S7T_VIEWER_TOKEN}:viewer:*`] : []),
    ...plants.map((p) => `${edgeToken(p)}:edge:${p}`),
  ].join(',');
  const list = [];
  if (!env.S7T_REDIS_URL) list.push({ name: 'redis', args: [path.join(__dirname, 'redis-child.js'), redisPort], env: {}, ready: /redis-server ready/ });
  const dirs = path.join(ROOT, '.fleet');
  fs.mkdirSync(dirs, { recursive: true });
  for (let i = 0; i < n; i++) {
    list.push({
      name: `cloud${i + 1}`,
      args: [RED, '--settings', SETTINGS],
      env: {
        S7T_ROLE: 'cloud', PORT: cloudPort(i), S7T_CLOUD_PORT: cloudPort(i), S7T_USER_DIR: path.join(dirs, `cloud${i + 1}`),
        S7T_REDIS_URL: redisUrl, S7T_TOKENS: tokens, S7T_EDGE_TOKEN: '',
        // This instance's OPC UA and Modbus servers carry plant i's values (docs/fleet.md).
        S7T_PLANT: plants[i] || `instance${i + 1}`,
        S7T_MQTT_PORT: nth(env.S7T_MQTT_PORT, i), S7T_MQTT_WS_PORT: nth(env.S7T_MQTT_WS_PORT, i),
        S7T_OPCUA_PORT: nth(env.S7T_OPCUA_PORT, i), S7T_MODBUS_PORT: nth(env.S7T_MODBUS_PORT, i),
        S7T_TIMER_DIR: path.join(env.S7T_TIMER_DIR, `cloud${i + 1}`),
      },
      ready: /Started flows/,
    });
  }
  const edgeFlowsNoBridges = withPathsDisabled(readFlows(path.join(ROOT, 'flows', 'edge.json')), new Set(['ws']));
  for (let k = 0; k < m; k++) {
    const plant = plants[k];
    const home = k % n;
    // OPC UA and Modbus are per instance: plant k bridges them to instance k, if there is one.
    const bridges = k < n;
    let flowFile = path.join(ROOT, 'flows', 'edge.json');
    if (!bridges) {
      flowFile = path.join(dirs, `edge-${plant}.flows.json`);
      fs.writeFileSync(flowFile, JSON.stringify(edgeFlowsNoBridges, null, 1));
    }
    list.push({
      name: `plc-${plant}`,
      args: [path.join(ROOT, 'plc', 'cli.js')],
      env: {
        S7T_PLC_S7_PORT: nth(env.S7T_PLC_PORT, k), S7T_PLC_OPCUA_PORT: nth(env.S7T_PLC_OPCUA_PORT, k), S7T_PLC_MODBUS_PORT: nth(env.S7T_PLC_MODBUS_PORT, k),
        S7T_PLC_PLANT: plant, S7T_PLC_MQTT_URL: `mqtt://${host}:${nth(env.S7T_MQTT_PORT, home)}`,
      },
      ready: /listen|S7/i,
    });
    list.push({
      name: `edge-${plant}`,
      args: [RED, '--settings', SETTINGS],
      env: {
        S7T_ROLE: 'edge', PORT: nth(env.S7T_EDGE_PORT, k), S7T_USER_DIR: path.join(dirs, `edge-${plant}`), S7T_FLOW_FILE: flowFile,
        S7T_PLANT: plant, S7T_EDGE_TOKEN: edgeToken(plant),
        S7T_CLOUD_URL: Array.from({ length: n }, (_, j) => `ws://${host}:${cloudPort((home + j) % n)}/s7twin/edge`).join(','),
        S7T_PLC_PORT: nth(env.S7T_PLC_PORT, k), S7T_PLC_OPCUA_PORT: nth(env.S7T_PLC_OPCUA_PORT, k), S7T_PLC_MODBUS_PORT: nth(env.S7T_PLC_MODBUS_PORT, k),
        S7T_OPCUA_URL: `opc.tcp://${host}:${nth(env.S7T_OPCUA_PORT, k)}`, S7T_MODBUS_CLOUD_PORT: nth(env.S7T_MODBUS_PORT, k),
      },
      ready: /Started flows/,
    });
  }
  return { list, fleet: { n, m, plants, redisUrl, cloudPort, edgeToken, bridges: Math.min(n, m) } };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(require('node:fs').readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*|^ \*/gm, ''));
    return;
  }
  const env = buildEnv(opts);
  const fleet = opts.fleet ? fleetServices(env, opts) : null;
  const list = []; // the services, in start order
  const live = new Map(); // name -> its current child process
  let stopping = false;

  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    for (const svc of list) clearTimeout(svc.timer);
    // Reverse order: edge first (it writes the PLC), the PLC last.
    const alive = list.map((svc) => live.get(svc.name)).filter((c) => c && c.exitCode === null && c.signalCode === null).reverse();
    let left = alive.length;
    if (!left) process.exit(code);
    const force = setTimeout(() => { for (const c of alive) c.kill('SIGKILL'); process.exit(code || 1); }, 15000);
    for (const c of alive) {
      c.once('exit', () => { if (--left === 0) { clearTimeout(force); process.exit(code); } });
      c.kill('SIGINT');
    }
  };
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));

  const pending = new Set();
  const start = (svc) => {
    // Killed outright, this script takes its children with it (scripts/lifeline.js).
    const child = spawnWithLifeline(svc.args, { cwd: ROOT, env: { ...env, ...svc.env } });
    live.set(svc.name, child);
    const prefix = `[${svc.name.padEnd(fleet ? 12 : 5)}] `;
    let partial = '';
    let up = false;
    const onData = (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const ready = !up && svc.ready.test(line);
        if (opts.verbose || ready || /\[(warn|error)\]|error|Error/.test(line) || /^plc/.test(svc.name)) console.log(prefix + line);
        if (!ready) continue;
        up = true;
        svc.upAt = Date.now();
        if (pending.delete(svc.name) && pending.size === 0) (fleet ? fleetSummary(env, fleet.fleet, live) : summary(env, opts, live));
        else if (svc.restarts) console.log(`${prefix}back up (restart ${svc.restarts}, pid ${child.pid})`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, sig) => {
      if (stopping) return;
      // A part that dies is restarted with back-off, as a supervisor would: the demo shows the
      // recovery the bridge is built for (the others reconnect by themselves). Ctrl-C stops all.
      if (svc.upAt && Date.now() - svc.upAt > STABLE_MS) svc.backoff.reset();
      const wait = svc.backoff.next();
      svc.restarts = (svc.restarts || 0) + 1;
      console.error(`${prefix}exited (${sig || code}); restarting in ${(wait / 1000).toFixed(1)} s`);
      svc.timer = setTimeout(() => { svc.timer = null; if (!stopping) start(svc); }, wait);
    });
  };
  for (const svc of (fleet ? fleet.list : services(env, opts))) {
    pending.add(svc.name);
    svc.backoff = createBackoff({ initialMs: 500, maxMs: 30000, stableMs: STABLE_MS });
    list.push(svc);
    start(svc);
  }
}

function summary(env, opts, live) {
  const cloud = `http://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}`;
  console.log(`
Everything is up.
  browser twin   ${cloud}/s7twin/ui/   (the plant in 3D: token ${env.S7T_TWIN_TOKEN} drives, ${env.S7T_VIEWER_TOKEN} watches)
  cloud editor   ${cloud}/
  edge editor    http://127.0.0.1:${env.S7T_EDGE_PORT}/
  twin endpoint  ws://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}/s7twin/twin   (token: S7T_TWIN_TOKEN=${env.S7T_TWIN_TOKEN})
  REST twins     ${cloud}/s7twin/rest/state, POST ${cloud}/s7twin/rest/cmd
  MQTT broker    mqtt://${env.S7T_CLOUD_HOST}:${env.S7T_MQTT_PORT}  ws://${env.S7T_CLOUD_HOST}:${env.S7T_MQTT_WS_PORT}/mqtt
  OPC UA server  opc.tcp://${env.S7T_CLOUD_HOST}:${env.S7T_OPCUA_PORT}
  Modbus server  ${env.S7T_CLOUD_HOST}:${env.S7T_MODBUS_PORT}
  ${opts.plc ? `virtual PLC    S7 ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT} (rack 0, slot 1), scan ${env.S7T_SCAN_MS} ms` : `PLC            ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT}`}
  flow-timers    ${env.S7T_TIMER_DIR}/
  processes      ${[...live].map(([name, c]) => `${name} pid ${c.pid}`).join(', ')} (one that dies is restarted)
Run a headless twin in another terminal:
  bash scripts/npm.sh run twin -- --protocol ws --boxes 20
Ctrl-C stops everything.`);
}

function fleetSummary(env, f, live) {
  const host = env.S7T_CLOUD_HOST;
  const instances = Array.from({ length: f.n }, (_, i) => `  cloud ${i + 1}        http://${host}:${f.cloudPort(i)}/   MQTT mqtt://${host}:${nth(env.S7T_MQTT_PORT, i)}   OPC UA opc.tcp://${host}:${nth(env.S7T_OPCUA_PORT, i)}   Modbus ${host}:${nth(env.S7T_MODBUS_PORT, i)}`);
  const plants = f.plants.map((p, k) => `  ${p.padEnd(14)} PLC S7 127.0.0.1:${nth(env.S7T_PLC_PORT, k)}, edge editor http://127.0.0.1:${nth(env.S7T_EDGE_PORT, k)}/, edge token ${f.edgeToken(p)}, dials cloud ${(k % f.n) + 1} first${k < f.n ? `, OPC UA/Modbus via cloud ${k + 1}` : ''}`);
  const urls = Array.from({ length: f.n }, (_, i) => `ws://${host}:${f.cloudPort(i)}/s7twin/twin`).join(',');
  console.log(`
The fleet is up: ${f.n} cloud instances on Redis ${f.redisUrl}, ${f.m} plants.
${instances.join('\n')}
${plants.join('\n')}
  twins          any instance's /s7twin/twin with ?plant=<plant>, token ${env.S7T_TWIN_TOKEN}${env.S7T_VIEWER_TOKEN ? ` (viewer ${env.S7T_VIEWER_TOKEN})` : ''}
  flow-timers    ${env.S7T_TIMER_DIR}/cloud<i>/
  processes      ${[...live].map(([name, c]) => `${name} pid ${c.pid}`).join(', ')} (one that dies is restarted)
Run a headless twin of plant2 that fails over between the instances:
  bash scripts/npm.sh run twin -- --protocol ws --plant ${f.plants[f.m - 1]} --url ${urls} --boxes 20
Ctrl-C stops everything.`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
}

module.exports = { buildEnv, parseArgs, fleetServices };
