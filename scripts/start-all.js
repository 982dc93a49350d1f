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
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** Local defaults: one place, so the flows, the PLC and the printed summary agree. */
const DEFAULTS = {
  S7T_PLANT: 'plant1',
  S7T_CLOUD_PORT: '1880',
  S7T_EDGE_PORT: '1881',
  S7T_CLOUD_HOST: '127.0.0.1',
  S7T_PLC_HOST: '127.0.0.1',
  S7T_PLC_PORT: '10102', // S7comm (a real PLC listens on 102)
  S7T_PLC_OPCUA_PORT: '4840',
  S7T_PLC_MODBUS_PORT: '5020',
  S7T_MQTT_PORT: '1883',
  S7T_MQTT_WS_PORT: '8883',
  S7T_OPCUA_PORT: '4841', // the cloud's OPC UA server
  S7T_MODBUS_PORT: '5021', // the cloud's Modbus server
  S7T_SCAN_MS: '10',
  // Development tokens and passwords: set your own for anything but a laptop.
  S7T_TWIN_TOKEN: 'dev-twin-token',
  S7T_EDGE_TOKEN: 'dev-edge-token',
  S7T_MQTT_USERS: 'twin:dev-twin-pw:twin,plc:dev-plc-pw:plc,monitor:dev-monitor-pw:monitor',
  S7T_MQTT_PLC_USER: 'plc',
  S7T_MQTT_PLC_PASSWORD: 'dev-plc-pw',
  S7T_MQTT_MONITOR_USER: 'monitor',
  S7T_MQTT_MONITOR_PASSWORD: 'dev-monitor-pw',
};

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
  const env = { ...DEFAULTS };
  for (const [k, v] of Object.entries(process.env)) if (v !== '') env[k] = v;
  if (opts.scan) env.S7T_SCAN_MS = String(opts.scan);
  env.S7T_CLOUD_URL = env.S7T_CLOUD_URL || `ws://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}/s7twin/edge`;
  env.S7T_MQTT_URL = env.S7T_MQTT_URL || `mqtt://${env.S7T_CLOUD_HOST}:${env.S7T_MQTT_PORT}`;
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
  const children = [];
  let stopping = false;

  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    // Reverse order: edge first (it writes the PLC), the PLC last.
    const alive = children.filter((c) => c.exitCode === null && c.signalCode === null).reverse();
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
  for (const svc of services(env, opts)) {
    pending.add(svc.name);
    const child = spawn(process.execPath, svc.args, { cwd: ROOT, env: { ...env, ...svc.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const prefix = `[${svc.name.padEnd(5)}] `;
    let partial = '';
    const onData = (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const up = pending.has(svc.name) && svc.ready.test(line);
        if (opts.verbose || up || /\[(warn|error)\]|error|Error/.test(line) || svc.name === 'plc') console.log(prefix + line);
        if (up) {
          pending.delete(svc.name);
          if (pending.size === 0) summary(env, opts);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, sig) => {
      if (!stopping) {
        console.error(`${prefix}exited (${sig || code}); stopping the rest`);
        stopAll(1);
      }
    });
  }
}

function summary(env, opts) {
  const cloud = `http://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}`;
  console.log(`
Everything is up.
  cloud editor   ${cloud}/
  edge editor    http://127.0.0.1:${env.S7T_EDGE_PORT}/
  twin endpoint  ws://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}/s7twin/twin   (token: S7T_TWIN_TOKEN=${env.S7T_TWIN_TOKEN})
  MQTT broker    mqtt://${env.S7T_CLOUD_HOST}:${env.S7T_MQTT_PORT}  ws://${env.S7T_CLOUD_HOST}:${env.S7T_MQTT_WS_PORT}
  OPC UA server  opc.tcp://${env.S7T_CLOUD_HOST}:${env.S7T_OPCUA_PORT}
  Modbus server  ${env.S7T_CLOUD_HOST}:${env.S7T_MODBUS_PORT}
  ${opts.plc ? `virtual PLC    S7 ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT} (rack 0, slot 1), scan ${env.S7T_SCAN_MS} ms` : `PLC            ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT}`}
  flow-timers    ${env.S7T_TIMER_DIR}/
Run a headless twin in another terminal:
  npm run twin -- --protocol ws --boxes 20
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

module.exports = { DEFAULTS, buildEnv };
