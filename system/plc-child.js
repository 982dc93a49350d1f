'use strict';
/**
 * The virtual PLC as its own process (system/plc.js starts it), so its scan cycle does not share
 * an event loop with the load generator or a test (a real S7-1500 does not either).
 *   node system/plc-child.js '<createPlc options as JSON>'
 * Prints one line `S7T_PLC_READY {"ports":{...}}` when every interface listens, and a line
 * `S7T_PLC_COUNTERS {...}` on SIGUSR2. Stops cleanly on SIGTERM/SIGINT.
 */
const { createPlc } = require('../plc');

async function main() {
  const opts = JSON.parse(process.argv[2] || '{}');
  const plc = await createPlc(opts);
  plc.on('error', (err) => process.stderr.write(`plc scan error: ${err.code || ''} ${err.message}\n`));
  process.stdout.write(`S7T_PLC_READY ${JSON.stringify({ ports: plc.ports, scanMs: plc.scanMs })}\n`);
  process.on('SIGUSR2', () => process.stdout.write(`S7T_PLC_COUNTERS ${JSON.stringify(plc.counters)}\n`));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const t = setTimeout(() => process.exit(1), 8000);
    try { await plc.stop(); } catch (err) { process.stderr.write(`plc stop: ${err.message}\n`); }
    clearTimeout(t);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`S7T_PLC_FAILED ${err.code || ''} ${err.stack || err.message}\n`);
  process.exit(2);
});
