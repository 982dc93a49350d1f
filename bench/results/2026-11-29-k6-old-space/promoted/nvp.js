// Preload (kept with the series, not part of the bundle): V8's --trace-gc-nvp in every process
// (one line per collection with the bytes it promoted and the heap's size before and after), plus
// any V8 flags in NVP_FLAGS set at run time, e.g. NVP_FLAGS=--no-allocation-site-pretenuring.
// Each process's pid and role go to TRACE_DIR/pids.txt.
//   TRACE_DIR=DIR NODE_OPTIONS="--require $PWD/…/nvp.js" node scripts/start-all.js --verbose > DIR/system.log
const v8 = require('node:v8');
const fs = require('node:fs');
const path = require('node:path');

fs.appendFileSync(path.join(process.env.TRACE_DIR || '/tmp', 'pids.txt'), `${process.pid} ${process.env.S7T_ROLE || process.argv[1]}\n`);
for (const f of ['--trace-gc-nvp', ...(process.env.NVP_FLAGS || '').split(' ').filter(Boolean)]) v8.setFlagsFromString(f);
