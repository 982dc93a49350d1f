// Preload (kept with the series, not part of the bundle): V8's --trace-gc in every process, and
// each process's clock origin in TRACE_DIR/origin-<pid>.txt, so that trace lines (ms since the
// process started) can be set beside k6's windows of slow probes (UTC).
//   TRACE_DIR=DIR NODE_OPTIONS="--require $PWD/…/tracegc.js" node scripts/start-all.js --verbose > DIR/system.log
const v8 = require('node:v8');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const role = process.env.S7T_ROLE || (process.argv[1] || 'node').split('/').slice(-2).join('/');
fs.appendFileSync(path.join(process.env.TRACE_DIR || '/tmp', `origin-${process.pid}.txt`),
  `${role} pid ${process.pid} timeOrigin ${performance.timeOrigin} ${new Date(performance.timeOrigin).toISOString()}\n`);
v8.setFlagsFromString('--trace-gc');
