'use strict';
/**
 * Figures of the virtual S7-1500's S7 interface (docs/plc.md), measured with nodes7 as an edge
 * would use it, against the PLC running in its own process (system/plc.js):
 *
 *   node bench/plc-bench.js [--n 1000] [--scan-ms 10] [--inproc]
 *
 *   read   one nodes7 read of the whole DB1 block (16 bytes), back to back
 *   read DB3  every probe response block (16 × 256 bytes, five PDUs) in one nodes7 read, with as
 *          many requests in flight as the server offers (8) and with one: snap7's server
 *          serves a connection's requests one by one, and pipelining them stalls
 *   probe  write a fresh value to a DB2 request slot, then read the DB3 response slot back to
 *          back until it holds that value: one PLC round trip including up to one scan of waiting.
 *          Measured twice: "random phase" waits a random 0..1 scan before each probe, so requests
 *          land anywhere in the cycle as a twin's would (expect about half a scan on average);
 *          "back to back" starts each probe right after the previous answer, which phase-locks
 *          the loop to the scan and costs a whole scan every time (what a polling edge sees).
 *   input → output  write StartButton (or StopButton) as the edge writes a twin's input, then
 *          read DB1 back to back until GreenLamp follows: the program's path, an input read at
 *          scan start and the output written into DB1 at scan end by the PLC's own S7 client
 *          (plc/s7.js); random phase as above. Both buttons are released after each sample.
 *
 * Do not over-read: loopback on one shared 2-core machine, the scan is a Node.js timer, and
 * nodes7 runs one job at a time. Compare runs made on the same machine only.
 */
const { performance } = require('node:perf_hooks');
const { summarise, round } = require('../nodes/lib/core/stats');
const { startPlc } = require('../system/plc');
const { s7Connect } = require('../system/s7');
// The PLC's probe slots: its table's (S7T_IO_TABLE's, else the demo plant's 1,024).
const { PROBE_SLOTS } = require('../nodes/lib/core/io-table').processTable();

const argv = process.argv.slice(2);
const arg = (name, d) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? Number(argv[i + 1]) : d; };
const N = arg('n', 1000);
const SCAN_MS = arg('scan-ms', 10);
const INPROC = argv.includes('--inproc');
const WARMUP = 50;

/** Start the PLC in a child process (S7 only, the launcher's) and return {port, stop}. */
async function startChildPlc() {
  const plc = await startPlc({ scanMs: SCAN_MS, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false });
  return { port: plc.ports.s7, stop: () => plc.stop() };
}

async function startInprocPlc() {
  const { createPlc } = require('../plc');
  const plc = await createPlc({ scanMs: SCAN_MS, s7: { port: 0 }, opcua: false, modbus: false });
  return { port: plc.ports.s7, stop: () => plc.stop() };
}

function line(name, s) {
  const f = (v) => round(v, 3).toFixed(3).padStart(8);
  return `${name.padEnd(26)} n=${s.n}  mean ${f(s.mean)}  median ${f(s.median)}  p95 ${f(s.p95)}  p99 ${f(s.p99)}  max ${f(s.max)} ms`;
}

async function main() {
  const plc = INPROC ? await startInprocPlc() : await startChildPlc();
  const s7 = await s7Connect(plc.port);
  try {
    const reads = [];
    for (let k = 0; k < N + WARMUP; k++) {
      const t0 = performance.now();
      await s7.read(['DB1,BYTE0.16']);
      if (k >= WARMUP) reads.push(performance.now() - t0);
    }
    let seq = 0;
    async function probes(randomPhase) {
      const trips = [];
      for (let k = 0; k < N + WARMUP; k++) {
        if (randomPhase) await new Promise((r) => setTimeout(r, Math.random() * SCAN_MS));
        seq += 1;
        const slot = seq % PROBE_SLOTS;
        const value = (0x10000 + seq) >>> 0;
        const req = `DB2,DWORD${4 * slot}`;
        const res = `DB3,DWORD${4 * slot}`;
        const t0 = performance.now();
        await s7.write({ [req]: value });
        while ((await s7.read([res]))[res] !== value) { /* poll back to back */ }
        if (k >= WARMUP) trips.push(performance.now() - t0);
      }
      return trips;
    }
    // Every probe response block at once (16 items of 256 bytes, 4 KB: five PDUs), as the edge
    // reads them under load, with as many requests in flight as the server offers and with one
    // (s7-connection's parallelJobs).
    const blocks = Array.from({ length: 16 }, (_, b) => `DB3,DWORD${256 * b}.64`);
    const offered = s7.conn.maxParallel;
    const blockReads = {};
    for (const par of [offered, 1]) {
      s7.conn.maxParallel = par;
      const t = [];
      for (let k = 0; k < N + WARMUP; k++) {
        const t0 = performance.now();
        await s7.read(blocks);
        if (k >= WARMUP) t.push(performance.now() - t0);
      }
      blockReads[par] = t;
    }
    s7.conn.maxParallel = offered;
    const random = await probes(true);
    const locked = await probes(false);
    // Input to output: start and stop presses, each timed until GreenLamp follows.
    const io = [];
    for (let k = 0; k < N + WARMUP; k++) {
      const on = k % 2 === 0;
      const button = on ? 'DB1,X0.0' : 'DB1,X0.1';
      await new Promise((r) => setTimeout(r, Math.random() * SCAN_MS));
      const t0 = performance.now();
      await s7.write({ [button]: true });
      while ((await s7.read(['DB1,X2.7']))['DB1,X2.7'] !== on) { /* poll back to back */ }
      if (k >= WARMUP) io.push(performance.now() - t0);
      await s7.write({ [button]: false });
    }
    const where = INPROC ? 'in-process' : 'child process';
    console.log(`virtual S7-1500 (${where}), scan ${SCAN_MS} ms, nodes7 over loopback, ${N} samples each after ${WARMUP} warm-up`);
    console.log(line('read DB1 (16 bytes)', summarise(reads)));
    for (const [par, t] of Object.entries(blockReads)) console.log(line(`read DB3 4 KB, ${par} in flight`, summarise(t)));
    console.log(line('probe, random phase', summarise(random)));
    console.log(line('probe, back to back', summarise(locked)));
    console.log(line('input → output', summarise(io)));
  } finally {
    await s7.close();
    await plc.stop();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
