'use strict';
/**
 * What one cyclic read of the edge costs, in CPU of the reading process and of the virtual PLC
 * (its own process), for the ways the probe response slots can be read at 1,000 twins:
 *
 *   node bench/s7-read-cost.js [--n 3000]
 *
 *   blocks whole     DB1 and the 16 response blocks of 64 slots (4 KB, six requests), the same
 *                    list every read: how the edge read them before 2026-11-29
 *   ranges, nodes7   DB1 and 16 small ranges that change with every read, nodes7 rebuilding its
 *                    items for each (removeItems/addItems)
 *   ranges, edge     the same, through lib/s7/nodes7-client.js (items kept and re-aimed, the
 *                    request laid out there): how the edge reads them now
 *   DB1 only         one small item, for scale
 *
 * CPU from process.cpuUsage() and /proc/<pid>/stat of the PLC; each row twice. Compare runs on
 * one machine only.
 */
const fs = require('node:fs');
const { startPlc } = require('../system/plc');
const { s7Connect } = require('../system/s7');
const { createNodes7Client } = require('../nodes/lib/s7/nodes7-client');

const argv = process.argv.slice(2);
const N = argv.includes('--n') ? Number(argv[argv.indexOf('--n') + 1]) : 3000;
const ticksMs = 1000 / 100; // USER_HZ
const procCpuMs = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * ticksMs;
};

let seed = 1;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const blocks = ['DB1,BYTE0.16', ...Array.from({ length: 16 }, (_, b) => `DB3,DWORD${256 * b}.64`)];
const ranges = () => ['DB1,BYTE0.16', ...Array.from({ length: 16 }, (_, b) => `DB3,DWORD${256 * b + 4 * rnd(50)}.${1 + rnd(6)}`)];

async function main() {
  const plc = await startPlc({ scanMs: 10, s7: { host: '127.0.0.1', port: 0 }, opcua: false, modbus: false, mqtt: false });
  const s7 = await s7Connect(plc.ports.s7);
  s7.conn.maxParallel = 1;
  const edge = createNodes7Client({ host: '127.0.0.1', port: plc.ports.s7, rack: 0, slot: 1, timeoutMs: 2000, parallelJobs: 1 });
  await new Promise((resolve, reject) => edge.connect((err) => (err ? reject(err) : resolve()), () => {}));
  const stock = {
    set(addrs) { s7.conn.removeItems(); s7.conn.addItems(addrs); },
    read: () => new Promise((resolve, reject) => s7.conn.readAllItems((bad) => (bad ? reject(new Error('bad read'))
      : resolve(s7.conn.readPacketArray.length)))),
  };
  const ours = {
    set: (addrs) => edge.setItems(addrs),
    read: () => new Promise((resolve, reject) => edge.read((bad, _v, pdus) => (bad ? reject(new Error('bad read')) : resolve(pdus)))),
  };
  const rows = [
    ['blocks whole', stock, () => blocks, false],
    ['ranges, nodes7', stock, ranges, true],
    ['ranges, edge', ours, ranges, true],
    ['DB1 only', stock, () => ['DB1,BYTE0.16'], false],
  ];
  try {
    for (let rep = 0; rep < 2; rep++) {
      for (const [name, c, list, changing] of rows) {
        c.set(list());
        await c.read();
        const u0 = process.cpuUsage();
        const p0 = procCpuMs(plc.pid);
        const t0 = process.hrtime.bigint();
        let pdus = 0;
        for (let k = 0; k < N; k++) {
          if (changing) c.set(list());
          pdus += await c.read();
        }
        const wallUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
        const u = process.cpuUsage(u0);
        const plcUs = ((procCpuMs(plc.pid) - p0) * 1000) / N;
        const us = (v) => v.toFixed(0).padStart(4);
        console.log(`${name.padEnd(16)} requests ${(pdus / N).toFixed(1)}  wall ${us(wallUs)} µs  reader CPU ${us((u.user + u.system) / N)} µs`
          + `  PLC CPU ${us(plcUs)} µs  a read`);
      }
    }
  } finally {
    edge.destroy();
    await s7.close();
    await plc.stop();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
