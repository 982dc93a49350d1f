// Preload (kept with the series): --trace-gc-nvp in every process, and in the edge a full collection
// every second (V8's gc(), exposed at run time), to see how much of what scavenges promote is kept
// there only by old objects that are garbage. Pids and roles go to /tmp/nvp/pids.txt.
//   NODE_OPTIONS="--require $PWD/…/gc-each-second.js" node scripts/start-all.js --verbose > /tmp/nvp/system.log
const v8 = require('node:v8'); const fs = require('node:fs');
fs.appendFileSync('/tmp/nvp/pids.txt', `${process.pid} ${process.env.S7T_ROLE || process.argv[1]}\n`);
v8.setFlagsFromString('--trace-gc-nvp');
if (process.env.S7T_ROLE === 'edge') {
  v8.setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc');
  setInterval(() => gc(), 1000).unref();
}
