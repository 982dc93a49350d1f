'use strict';
/**
 * Are S7 client writes ever undone by the virtual PLC's scan? (docs/plc.md, "S7 memory").
 * The PLC used to write DB1 back by reading it, merging its own bits in and replacing it whole
 * (snap7's server lets JS replace a data block only whole); a client write that landed between
 * the read and the write was lost. It now writes its bytes through its own S7 client. This script
 * makes a loss as likely as it can: a 2 ms scan that writes DB1 every scan, a neighbour
 * allocating in the PLC's process (GC pauses, as an OPC UA server causes), and an S7 client
 * toggling an input bit and reading it back a few scans later, N times.
 *
 *   node bench/plc-write-race.js [--n 3000]
 *
 * Prints how many writes were lost (exit code 1 if any). With the merge: 3 of 3,000 lost while
 * it allocated between read and write; 0 of 3,000, 1 of 6,000, 2 of 9,000 without (2026-11-22).
 * With the PLC's own client: 0 of 3,000 (2026-11-23). All on this project's 2-core machine.
 * test/plc/s7-race.test.js places the client writes deterministically instead.
 */
const { startPlcInProcess } = require('../system/plc');
const { s7Connect } = require('../system/s7');

const argv = process.argv.slice(2);
const i = argv.indexOf('--n');
const N = i >= 0 ? Number(argv[i + 1]) : 3000;

async function main() {
  const plc = await startPlcInProcess({ opcua: false, modbus: false, scanMs: 2, scanCountEvery: 1 });
  const s7 = await s7Connect(plc.ports.s7);
  let junk = [];
  const hog = setInterval(() => { junk.push(Buffer.alloc(1e5)); if (junk.length > 200) junk = []; }, 1);
  let lost = 0;
  try {
    for (let k = 0; k < N; k++) {
      const v = k % 2 === 0;
      await s7.write({ 'DB1,X1.1': v }); // Piston3Front: an input the program only reads
      await new Promise((r) => setTimeout(r, 6)); // three scans
      if ((await s7.read(['DB1,X1.1']))['DB1,X1.1'] !== v) lost += 1;
    }
  } finally {
    clearInterval(hog);
    await s7.close();
    await plc.stop();
  }
  console.log(`S7 input writes ${N}, undone by the scan ${lost}`);
  process.exitCode = lost ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exit(2); });
