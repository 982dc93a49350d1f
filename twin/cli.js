#!/usr/bin/env node
'use strict';
/**
 * The headless twin's command line (`npm run twin`): a production of N boxes through the plant
 * model against a PLC reached over one protocol (the engine is twin/run.js), then its report.
 *
 *   npm run twin -- --protocol ws --url ws://127.0.0.1:1880/s7twin/twin --token T \
 *                   --boxes 20 --damaged 0.3 --profile fast --csv results/twin-ws.csv
 *
 * Exit code 0 when every box was sorted correctly, 1 when a box was mis-sorted or the plant
 * stalled, 2 on bad arguments or when the PLC could not be reached. Options it does not know
 * are passed on to the transport (camelCased: --client-id → clientId).
 */
const path = require('node:path');
const { DEFAULTS, TwinError, runTwin, formatTable } = require('./run');
const { transportDefaults } = require('../nodes/lib/core/local');
const paths = require('../nodes/lib/core/paths');
const { caFile } = require('../nodes/lib/access/tls');

const USAGE = `usage: npm run twin -- [options]
  --protocol ${paths.bundle().join('|')}   transport (default ws)
  --url URL                         endpoint, e.g. ws://127.0.0.1:1880/s7twin/twin
  --token T                         bearer token (or S7T_TWIN_TOKEN)
  --ca FILE                         CA certificate(s) for wss:// or mqtts:// (or S7T_CA_FILE)
  --boxes N                         boxes to produce (default 20)
  --damaged F|PATTERN               fraction damaged (0.3) or a 0/1 pattern (0010)
  --seed N                          RNG seed for the damaged boxes (default 1)
  --profile fast|study              plant speeds (default fast)
  --csv FILE                        append round trips (time,protocol,variable,ms)
  --timeout MS                      round trip counted as expired after MS (default 5000)
  --encoding compact|json           ws: the frames' encoding (default compact; json is readable)
  --json                            print the result as JSON instead of a table
  --quiet                           no progress output
  other --options are passed to the transport (--client-id → clientId)`;

const FLAGS = new Set(['json', 'quiet', 'help', 'h']);

/**
 * `--key value`, `--key=value` and `--flag` into an object. Hand-rolled rather than
 * util.parseArgs because unknown options must pass through to the transport with their values.
 */
function readArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--?([A-Za-z][\w-]*)(?:=(.*))?$/.exec(a);
    if (!m) throw new TwinError('E_ARGS', `unexpected argument "${a}"`);
    if (m[2] !== undefined) out[m[1]] = m[2];
    else if (FLAGS.has(m[1]) || i + 1 >= argv.length || argv[i + 1].startsWith('--')) out[m[1]] = true;
    else out[m[1]] = argv[++i];
  }
  return out;
}

/** Parse argv into runTwin options. */
function parseCli(argv) {
  const values = readArgs(argv);
  if (values.help || values.h) return { help: true };
  const o = {};
  for (const [k, v] of Object.entries(values)) o[k.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = v;
  const num = (k, min) => {
    if (o[k] === undefined) return;
    const n = Number(o[k]);
    if (!Number.isFinite(n) || n < min) throw new TwinError('E_ARGS', `--${k} must be a number >= ${min}, got ${JSON.stringify(o[k])}`);
    o[k] = n;
  };
  num('boxes', 0); num('seed', 0); num('tickMs', 1);
  if (o.timeout !== undefined) { o.timeoutMs = o.timeout; delete o.timeout; num('timeoutMs', 1); }
  // A 0/1 string of two or more characters is a pattern ("0010"); anything else is a fraction.
  if (o.damaged !== undefined && !/^[01]{2,}$/.test(String(o.damaged))) {
    num('damaged', 0);
    if (o.damaged > 1) throw new TwinError('E_ARGS', `--damaged must be a fraction 0..1 or a 0/1 pattern, got ${o.damaged}`);
  }
  // A private CA for wss:// / mqtts:// endpoints: --ca FILE, else S7T_CA_FILE (nodes/lib/access/tls.js).
  const ca = caFile(o.ca !== undefined ? { S7T_CA_FILE: String(o.ca) } : process.env);
  if (ca) o.ca = ca; else delete o.ca;
  // Whatever was not given reaches the one-machine system that `npm start` runs.
  for (const [k, v] of Object.entries(transportDefaults(o.protocol || DEFAULTS.protocol))) if (o[k] === undefined) o[k] = v;
  if (o.csv) o.csv = path.resolve(String(o.csv));
  return o;
}

async function main() {
  let o;
  try {
    o = parseCli(process.argv.slice(2));
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    return 2;
  }
  if (o.help) { console.log(USAGE); return 0; }
  const quiet = Boolean(o.quiet);
  let bar = null;
  if (!quiet && process.stdout.isTTY) {
    try {
      const cliProgress = require('cli-progress');
      const format = 'boxes [{bar}] {value}/{total} packed {packed} rejected {rejected} mis-sorted {missorted}';
      bar = new cliProgress.SingleBar({ format, hideCursor: true }, cliProgress.Presets.shades_classic);
    } catch { bar = null; } // cli-progress is a dev dependency; plain lines otherwise
  }
  const boxes = o.boxes === undefined ? DEFAULTS.boxes : o.boxes;
  if (bar) bar.start(boxes, 0, { packed: 0, rejected: 0, missorted: 0 });
  o.onProgress = (s, ev, box) => {
    if (ev === 'arrived') return;
    const done = s.packed + s.rejected;
    if (bar) bar.update(done, s);
    else if (!quiet) console.log(`box ${box.id} ${ev}${box.damaged ? ' (damaged)' : ''}${box.missorted ? ' MIS-SORTED' : ''}  ${done}/${s.boxes}`);
  };
  o.log = quiet ? () => {} : (line) => { if (!bar) console.error(line); };
  let r;
  try {
    r = await runTwin(o);
  } catch (err) {
    if (bar) bar.stop();
    console.error(`twin: ${err.code ? `${err.code}: ` : ''}${err.message}`);
    return 2;
  } finally {
    if (bar) bar.stop();
  }
  if (o.json) {
    const { samples, ...rest } = r;
    console.log(JSON.stringify(rest, null, 2));
  } else {
    console.log(`\n${o.protocol || DEFAULTS.protocol}: ${r.boxes} boxes, ${r.packed} packed, ${r.rejected} rejected, ${r.missorted} mis-sorted, ` +
      `${(r.durationMs / 1000).toFixed(1)} s`);
    console.log('round trips, input event → PLC output seen at the twin (ms):');
    console.log(formatTable(r.summary));
    const codes = Object.entries(r.errorCodes).map(([c, n]) => `${c}×${n}`).join(' ');
    if (r.errors) console.log(`errors: ${r.errors} (expired round trips ${r.expired}${codes ? `; ${codes}` : ''})`);
  }
  if (!r.ok) { console.error(`twin: FAILED: ${r.reason}`); return 1; }
  return 0;
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code; }, (err) => { console.error(err); process.exitCode = 2; });
}

module.exports = { parseCli, main, USAGE };
