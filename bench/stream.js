#!/usr/bin/env node
'use strict';
/**
 * The high-frequency stream benchmark: the AMQP, MQTT, Kafka, ZeroMQ and OPC UA study's experiment
 * rerun over every edge↔cloud link transport of the bundle (WebSocket, AMQP on RabbitMQ, Kafka,
 * MQTT on the bundle's broker and on Mosquitto, ZeroMQ), loopback and the WAN profile: the S7
 * ceiling, the PLC-sourced stream, the study's Table 2 grid, the study's figures beside ours and
 * its guideline rerun with our numbers. Writes report.md, summary.json, cells.csv and plots/ into
 * --out. docs/link-transports.md ("High-frequency streams") says what runs and what it means.
 *
 *   node bench/stream.js                                  # everything (about 30 minutes here)
 *   node bench/stream.js --smoke                          # each transport once, loopback, a few seconds
 *   node bench/stream.js --transports zmq,amqp --profiles wan --grid 25x40,100x10 --plc-rates 1000
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { runStream, GRID, DEFAULTS } = require('./stream/run');
const { TRANSPORTS } = require('./stream/system');
const { writeStreamReport } = require('./stream/report');
const { machine, versions } = require('./run');

const ROOT = path.join(__dirname, '..');
const SMOKE = {
  profiles: ['local'], seconds: 2, warmupS: 1, plcRates: [1000], ceilingRates: [1000, 10000], ceilingSeconds: 2, grid: ['25x40', '100x10'],
};

const HELP = `Usage: node bench/stream.js [options]

  --transports <list>   ${Object.keys(TRANSPORTS).join(',')} (default: all)
  --profiles <list>     network profiles of bench/profiles.json (default: local,wan)
  --seconds <s>         measured per cell (default ${DEFAULTS.seconds}; the study ran 30)
  --warmup <s>          before each cell's window (default ${DEFAULTS.warmupS})
  --plc-rates <list>    the PLC's signal rates for the PLC-sourced stream, Hz; 'ceiling': the ceiling
                        run's ceiling, the last rate read whole before the first loss (default ${DEFAULTS.plcRates.join(',')})
  --ceiling <list>      rates the S7 ceiling is looked for at, Hz ('' = none; default ${DEFAULTS.ceilingRates.join(',')})
  --grid <list>         the study's Table 2 cells, KBxRATE (default all: ${GRID.map((g) => `${g.kb}x${g.rate}`).join(',')})
  --scale <f>           stream sizes × f (a machine that cannot hold the study's rates; the report says so)
  --out <dir>           results folder (default bench/results/<date>-stream)
  --rewrite             measure nothing: write the report of --out again from its summary.json
  --smoke               loopback only, two grid cells, a few seconds each
  -h, --help
`;

function parse(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      transports: { type: 'string' }, profiles: { type: 'string' }, seconds: { type: 'string' }, warmup: { type: 'string' },
      'plc-rates': { type: 'string' }, ceiling: { type: 'string' }, grid: { type: 'string' }, scale: { type: 'string' },
      out: { type: 'string' }, smoke: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
      rewrite: { type: 'boolean', default: false },
    },
  });
  const d = { ...DEFAULTS, ...(values.smoke ? SMOKE : {}) };
  const list = (v) => String(v).split(',').map((s) => s.trim()).filter(Boolean);
  const nums = (v) => list(v).map(Number);
  const o = {
    help: values.help,
    smoke: values.smoke,
    rewrite: values.rewrite,
    transports: values.transports ? list(values.transports) : d.transports,
    profiles: values.profiles ? list(values.profiles) : d.profiles,
    seconds: values.seconds ? Number(values.seconds) : d.seconds,
    warmupS: values.warmup ? Number(values.warmup) : d.warmupS,
    plcRates: values['plc-rates'] !== undefined ? list(values['plc-rates']).map((r) => (r === 'ceiling' ? r : Number(r))) : d.plcRates,
    ceilingRates: values.ceiling !== undefined ? nums(values.ceiling) : d.ceilingRates,
    ceilingSeconds: d.ceilingSeconds,
    grid: values.grid !== undefined ? list(values.grid) : d.grid,
    scale: values.scale ? Number(values.scale) : d.scale,
    scanMs: d.scanMs,
    drainMs: d.drainMs,
    out: values.out || path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-stream`),
  };
  const bad = (msg) => Object.assign(new Error(msg), { code: 'E_BENCH_ARGS' });
  for (const t of o.transports) if (!TRANSPORTS[t]) throw bad(`unknown transport "${t}" (${Object.keys(TRANSPORTS).join(', ')})`);
  for (const k of ['seconds', 'warmupS', 'scale']) if (!(o[k] > 0)) throw bad(`--${k === 'warmupS' ? 'warmup' : k} must be > 0`);
  for (const r of [...o.plcRates.filter((x) => x !== 'ceiling'), ...o.ceilingRates]) {
    if (!(Number.isInteger(r) && r > 0)) throw bad(`a signal rate must be a whole number of Hz (or 'ceiling'), got ${r}`);
  }
  return o;
}

async function main(argv) {
  let o;
  try { o = parse(argv); } catch (err) { process.stderr.write(`error ${err.code || ''}: ${err.message}\n\n${HELP}`); process.exitCode = 2; return; }
  if (o.help) { process.stdout.write(HELP); return; }
  if (o.rewrite) {
    const s = JSON.parse(fs.readFileSync(path.join(o.out, 'summary.json'), 'utf8'));
    await writeStreamReport(s, o.out);
    process.stdout.write(`report: ${path.join(o.out, 'report.md')} (from its summary.json)\n`);
    return;
  }
  o.profileDefs = JSON.parse(fs.readFileSync(path.join(__dirname, 'profiles.json'), 'utf8'));
  const log = (l) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${l}\n`);
  const started = new Date();
  const loadStart = os.loadavg();
  const results = await runStream(o, log);
  const summary = {
    command: `node bench/stream.js ${argv.join(' ')}`.trim(),
    started: started.toISOString(),
    ended: new Date().toISOString(),
    loadavg: { start: loadStart, end: os.loadavg() },
    options: { ...o, profileDefs: undefined, help: undefined },
    profileDefs: Object.fromEntries(o.profiles.map((p) => [p, o.profileDefs[p]])),
    machine: machine(),
    versions: versions(),
    ...results,
  };
  const out = await writeStreamReport(summary, o.out);
  log(`report: ${path.relative(process.cwd(), path.join(out.dir, 'report.md'))}`);
}

module.exports = { parse, HELP };

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err.stack || err.message}\n`);
    process.exit(1);
  });
}
