'use strict';
/**
 * Run the whole system on one machine: the virtual S7-1500, the cloud Node-RED and the edge
 * Node-RED, each as its own process, with working defaults. Prints where everything listens and
 * stops everything on Ctrl-C (or SIGTERM).
 *
 *   node scripts/start-all.js [--no-plc] [--verbose] [--scan 10]
 *
 * --no-plc   talk to a real PLC instead: set S7T_PLC_HOST / S7T_PLC_PORT (and the OPC UA and
 *            Modbus addresses) in the environment
 * --verbose  show every log line of every process (default: start-up lines, warnings, errors)
 *
 * Every S7T_* variable already set in the environment wins over the defaults below.
 */
const { spawnWithLifeline } = require('./lifeline');
const { createBackoff } = require('../nodes/lib/backoff');
const path = require('node:path');

const { localEnv } = require('../twin/local');

const ROOT = path.join(__dirname, '..');
const STABLE_MS = 30000; // a part up this long counts as recovered: its restart back-off starts over

function parseArgs(argv) {
  const opts = { plc: true, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-plc') opts.plc = false;
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--scan') opts.scan = argv[++i];
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown option ${a} (try --help)`);
  }
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
    list.push({ name: 'plc', args: [path.join(ROOT, 'plc', 'index.js')], env: {}, ready: /listen|S7/i });
  }
  list.push({ name: 'cloud', args: [RED, '--settings', SETTINGS], env: { S7T_ROLE: 'cloud', PORT: env.S7T_CLOUD_PORT }, ready: /Started flows/ });
  list.push({ name: 'edge', args: [RED, '--settings', SETTINGS], env: { S7T_ROLE: 'edge', PORT: env.S7T_EDGE_PORT }, ready: /Started flows/ });
  return list;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(require('node:fs').readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*|^ \*/gm, ''));
    return;
  }
  const env = buildEnv(opts);
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
    const prefix = `[${svc.name.padEnd(5)}] `;
    let partial = '';
    let up = false;
    const onData = (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const ready = !up && svc.ready.test(line);
        if (opts.verbose || ready || /\[(warn|error)\]|error|Error/.test(line) || svc.name === 'plc') console.log(prefix + line);
        if (!ready) continue;
        up = true;
        svc.upAt = Date.now();
        if (pending.delete(svc.name) && pending.size === 0) summary(env, opts, live);
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
  for (const svc of services(env, opts)) {
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

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
}

module.exports = { buildEnv };
