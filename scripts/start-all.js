'use strict';
/**
 * Run the whole system on one machine: the virtual S7-1500, the cloud Node-RED and the edge
 * Node-RED, each as its own process, with working defaults. Prints where everything listens and
 * stops everything on Ctrl-C (or SIGTERM). The processes and their supervision are the
 * launcher's (system/start.js); this is its command line.
 *
 *   node scripts/start-all.js [--no-plc] [--verbose] [--scan 10]
 *   node scripts/start-all.js --fleet [--instances 2] [--plants 2] [--verbose] [--scan 10]
 *
 * --no-plc     talk to a real PLC instead: set S7T_PLC_HOST / S7T_PLC_PORT (and the OPC UA and
 *              Modbus addresses) in the environment
 * --verbose    show every log line of every process (default: start-up lines, warnings, errors)
 * --fleet      a fleet of cloud instances sharing the plants over Redis (docs/fleet.md):
 *              redis-server (Debian's; S7T_REDIS_PORT, 6380,
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
const system = require('../system');

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

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(require('node:fs').readFileSync(__filename, 'utf8').split('*/')[0].replace(/^\/\*\*|^ \*/gm, ''));
    return;
  }
  const env = system.buildEnv(opts);
  const fleet = opts.fleet ? system.fleetServices(env, opts) : null;
  const list = fleet ? fleet.list : system.services(env, opts);
  const run = system.supervise(list, {
    env,
    verbose: opts.verbose,
    nameWidth: fleet ? 12 : 5,
    onUp: () => (fleet ? fleetSummary(env, fleet.fleet, run.live) : summary(env, opts, run.live)),
  });
  let stopping = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    run.stop().then(() => process.exit(0), (err) => { console.error(err.message); process.exit(1); });
  };
  process.on('SIGINT', stopAll);
  process.on('SIGTERM', stopAll);
}

function summary(env, opts, live) {
  const cloud = `http://${env.S7T_CLOUD_HOST}:${env.S7T_CLOUD_PORT}`;
  const plc = opts.plc
    ? `virtual PLC    S7 ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT} (rack 0, slot 1), scan ${env.S7T_SCAN_MS} ms`
    : `PLC            ${env.S7T_PLC_HOST}:${env.S7T_PLC_PORT}`;
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
  ${plc}
  flow-timers    ${env.S7T_TIMER_DIR}/
  processes      ${[...live].map(([name, c]) => `${name} pid ${c.pid}`).join(', ')} (one that dies is restarted)
Run a headless twin in another terminal:
  bash scripts/npm.sh run twin -- --protocol ws --boxes 20
Ctrl-C stops everything.`);
}

function fleetSummary(env, f, live) {
  const host = env.S7T_CLOUD_HOST;
  const instances = Array.from({ length: f.n }, (_, i) => `  cloud ${i + 1}        http://${host}:${f.cloudPort(i)}/   ` +
    `MQTT mqtt://${host}:${system.nth(env.S7T_MQTT_PORT, i)}   OPC UA opc.tcp://${host}:${system.nth(env.S7T_OPCUA_PORT, i)}   ` +
    `Modbus ${host}:${system.nth(env.S7T_MODBUS_PORT, i)}`);
  const plants = f.plants.map((p, k) => `  ${p.padEnd(14)} PLC S7 127.0.0.1:${system.nth(env.S7T_PLC_PORT, k)}, ` +
    `edge editor http://127.0.0.1:${system.nth(env.S7T_EDGE_PORT, k)}/, edge token ${f.edgeToken(p)}, ` +
    `dials cloud ${(k % f.n) + 1} first${k < f.n ? `, OPC UA/Modbus via cloud ${k + 1}` : ''}`);
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

module.exports = { parseArgs };
