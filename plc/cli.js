'use strict';
/**
 * `npm run plc` (`node plc/cli.js`) — run the virtual S7-1500 until SIGINT/SIGTERM. Flags win over environment
 * variables, which win over defaults.
 */
const { parseArgs } = require('node:util');
const { check, refusal } = require('../nodes/lib/access/security');
const { caFile } = require('../nodes/lib/access/tls');
const { loadTable } = require('../nodes/lib/core/io-table');
const { createPlc } = require('./index');

const HELP = `Usage: npm run plc -- [options]

  --table <file>         the plant's I/O table (JSON, CSV or  S7T_IO_TABLE (the demo plant's)
                         a TIA Portal .db source); the demo
                         plant's runs the box-sorting program,
                         any other runs as an I/O image
  --host <ip>            address every server binds to       S7T_PLC_HOST (127.0.0.1)
  --scan-ms <ms>         scan cycle                          S7T_PLC_SCAN_MS (10)
  --s7-port <port>       S7comm (snap7) port, 0 = free port  S7T_PLC_S7_PORT (10102)
  --opcua-port <port>    OPC UA port, 0 = free port          S7T_PLC_OPCUA_PORT (4840)
  --modbus-port <port>   Modbus TCP port, 0 = free port      S7T_PLC_MODBUS_PORT (5020)
  --no-s7, --no-opcua, --no-modbus   switch an interface off S7T_PLC_S7=0, S7T_PLC_OPCUA=0, S7T_PLC_MODBUS=0
  --mqtt <url>           MQTT broker (MQTT off without it)   S7T_PLC_MQTT_URL
  --plant <id>           MQTT plant id                       S7T_PLC_PLANT (plant1)
  --mqtt-user <name>     MQTT username                       S7T_PLC_MQTT_USER
  --mqtt-password <pw>   MQTT password                       S7T_PLC_MQTT_PASSWORD
  --mqtt-qos <0|1>       MQTT QoS                            S7T_PLC_MQTT_QOS (0)
  --pki-dir <dir>        OPC UA PKI folder                   S7T_PLC_PKI_DIR (<tmp>/s7twin-plc-pki)
  --input-log <file>     a JSON line per scan whose inputs   S7T_PLC_INPUT_LOG (off)
                         changed (plc/input-log.js)
  --signal-hz <n>        sample a vibration signal at n Hz   S7T_PLC_SIGNAL_HZ (off)
                         into a ring buffer (docs/plc.md)
  --signal-db <n>        the ring buffer's data block        S7T_PLC_SIGNAL_DB (100)
  --signal-block <n>     samples per block                   S7T_PLC_SIGNAL_BLOCK (one scan's)
  -h, --help             this text

  The MQTT client verifies an mqtts:// or wss:// broker with the CA file S7T_CA_FILE (if set).
  Bound beyond loopback, the PLC refuses to start while its MQTT password is unset or a
  development one (node scripts/gen-env.js makes one).
`;

/**
 * Turn argv + env into createPlc options.
 * @param {string[]} argv
 * @param {object} env
 * @returns {{help: boolean, opts: object}}
 * @throws {Error} code E_CONFIG for a bad flag or value
 */
function parse(argv, env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' }, 'scan-ms': { type: 'string' },
        's7-port': { type: 'string' }, 'opcua-port': { type: 'string' }, 'modbus-port': { type: 'string' },
        'no-s7': { type: 'boolean' }, 'no-opcua': { type: 'boolean' }, 'no-modbus': { type: 'boolean' },
        mqtt: { type: 'string' }, plant: { type: 'string' }, 'mqtt-user': { type: 'string' },
        'mqtt-password': { type: 'string' }, 'mqtt-qos': { type: 'string' }, 'pki-dir': { type: 'string' },
        'input-log': { type: 'string' }, table: { type: 'string' },
        'signal-hz': { type: 'string' }, 'signal-db': { type: 'string' }, 'signal-block': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    const e = new Error(err.message);
    e.code = 'E_CONFIG';
    throw e;
  }
  const num = (flag, envName, dflt) => {
    const raw = values[flag] ?? env[envName];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      const e = new Error(`--${flag} / ${envName}: "${raw}" is not a whole number 0..65535`);
      e.code = 'E_CONFIG';
      throw e;
    }
    return n;
  };
  const off = (flag, envName) => values[flag] === true || env[envName] === '0' || env[envName] === 'false';
  const host = values.host ?? env.S7T_PLC_HOST ?? '127.0.0.1';
  const mqttUrl = values.mqtt ?? env.S7T_PLC_MQTT_URL;
  const opts = {
    host,
    scanMs: num('scan-ms', 'S7T_PLC_SCAN_MS', 10),
    s7: off('no-s7', 'S7T_PLC_S7') ? false : { host, port: num('s7-port', 'S7T_PLC_S7_PORT', 10102) },
    opcua: off('no-opcua', 'S7T_PLC_OPCUA') ? false : {
      host, port: num('opcua-port', 'S7T_PLC_OPCUA_PORT', 4840),
      ...(values['pki-dir'] ?? env.S7T_PLC_PKI_DIR ? { pkiDir: values['pki-dir'] ?? env.S7T_PLC_PKI_DIR } : {}),
    },
    modbus: off('no-modbus', 'S7T_PLC_MODBUS') ? false : { host, port: num('modbus-port', 'S7T_PLC_MODBUS_PORT', 5020) },
    mqtt: mqttUrl ? {
      url: mqttUrl,
      plant: values.plant ?? env.S7T_PLC_PLANT ?? 'plant1',
      username: values['mqtt-user'] ?? env.S7T_PLC_MQTT_USER,
      password: values['mqtt-password'] ?? env.S7T_PLC_MQTT_PASSWORD,
      qos: num('mqtt-qos', 'S7T_PLC_MQTT_QOS', 0),
      ...(caFile(env) ? { ca: caFile(env) } : {}),
    } : false,
  };
  // The table is read here, so a bad one is refused before anything listens (E_TABLE names the tag).
  opts.table = loadTable({ file: values.table, env });
  const inputLog = values['input-log'] ?? env.S7T_PLC_INPUT_LOG;
  if (inputLog) opts.inputLog = inputLog;
  const signalHz = values['signal-hz'] ?? env.S7T_PLC_SIGNAL_HZ;
  if (signalHz !== undefined && signalHz !== '') {
    const rateHz = Number(signalHz);
    if (!Number.isInteger(rateHz) || rateHz < 1) {
      const e = new Error(`--signal-hz / S7T_PLC_SIGNAL_HZ: "${signalHz}" is not a whole number of samples a second`);
      e.code = 'E_CONFIG';
      throw e;
    }
    opts.signal = { rateHz, db: num('signal-db', 'S7T_PLC_SIGNAL_DB', 100) };
    const block = num('signal-block', 'S7T_PLC_SIGNAL_BLOCK', 0);
    if (block) opts.signal.blockSamples = block;
  }
  if (opts.scanMs < 1) {
    const e = new Error('--scan-ms must be at least 1');
    e.code = 'E_CONFIG';
    throw e;
  }
  return { help: Boolean(values.help), opts };
}

/** One line saying what listens where. */
function describe(plc, opts) {
  const h = opts.host;
  const parts = [
    plc.ports.s7 ? `S7 ${h}:${plc.ports.s7} (rack 0 slot 1)` : 'S7 off',
    plc.ports.opcua ? `OPC UA opc.tcp://${h}:${plc.ports.opcua}` : 'OPC UA off',
    plc.ports.modbus ? `Modbus ${h}:${plc.ports.modbus}` : 'Modbus off',
    opts.mqtt ? `MQTT ${opts.mqtt.url.replace(/\/\/[^@/]*@/, '//***@')} plant ${opts.mqtt.plant}` : 'MQTT off',
  ];
  const s = plc.signal;
  if (s) parts.push(`signal ${s.rateHz} Hz into DB${s.db} (${s.blocks} blocks of ${s.blockSamples} samples, ${s.size} bytes)`);
  const t = plc.table;
  const what = t.program ? `the ${t.program} program` : `an I/O image${t.tags.some((x) => x.echo) ? ' with echo rules' : ''}`;
  return `virtual S7-1500 running ${what} for table "${t.name}" (${t.tags.length} tags, ${t.areas.map((a) => a.key).join(' ')}), `
    + `scanning every ${opts.scanMs} ms: ${parts.join(', ')}`;
}

/** Entry point of `npm run plc`. */
async function main(argv) {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    // A bad flag gets the help; a refused table gets its findings (they name the tags).
    const findings = (err.errors || []).map((e) => `  ${e.message}\n`).join('');
    process.stderr.write(`error ${err.code}: ${err.message}\n${err.code === 'E_CONFIG' ? `\n${HELP}` : findings}`);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) { process.stdout.write(HELP); return; }
  // Reachable beyond loopback, the MQTT password must be a real one (nodes/lib/access/security.js).
  const exposure = check({
    role: 'plc',
    hosts: { S7T_PLC_HOST: parsed.opts.host },
    secrets: parsed.opts.mqtt ? { S7T_PLC_MQTT_PASSWORD: parsed.opts.mqtt.password } : {},
  });
  if (exposure.problems.length) {
    process.stderr.write(`${refusal('virtual PLC', exposure)}\n`);
    process.exitCode = 2;
    return;
  }
  let plc;
  try {
    plc = await createPlc(parsed.opts);
  } catch (err) {
    process.stderr.write(`error ${err.code || 'E_START'}: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${describe(plc, parsed.opts)}\n`);
  let stopping = false;
  const shutdown = async (sig) => {
    if (stopping) return;
    stopping = true;
    try {
      await plc.stop();
      process.stdout.write(`stopped on ${sig} after ${plc.counters.scans} scans (${plc.counters.overruns} overruns)\n`);
      process.exit(0);
    } catch (err) {
      process.stderr.write(`error while stopping: ${err.message}\n`);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

module.exports = { main, parse, describe, HELP };

// The entry point of `npm run plc` (plc/index.js is the library: createPlc).
if (require.main === module) main(process.argv.slice(2));
