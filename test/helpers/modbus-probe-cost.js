'use strict';
/**
 * What the edge's probe relay costs (figures in docs/modbus.md "Probe relay"): for each probe
 * slot count N, the Modbus stack (virtual PLC, cloud and edge Node-RED, test/helpers/modbus.js)
 * with every poll at `pollMs`, CPU of the edge and the cloud Node-RED processes (user + system
 * time from /proc, % of one core) over `seconds`, first idle (no probe changes: the relay's reads
 * only), then busy (a driver writes a new value into one slot of every block on the cloud server
 * every `pollMs`, so every block changes every poll and the relay writes every block both ways).
 * With `rtt` as the fourth argument it measures instead one probe at a time from one twin
 * (twin/transports/modbus.js), 20 on slot 1 and 20 on the last relayed slot: the relay's latency.
 * Not a test: a measurement, run on a quiet machine.
 *
 *   node test/helpers/modbus-probe-cost.js [pollMs=10] [seconds=15] [slots=0,61,122,244,1024] [rtt]
 */
const fs = require('node:fs');
const ModbusRTU = require('modbus-serial');
const { startModbusStack } = require('./modbus');
const codec = require('../../nodes/lib/modbus/codec');
const { createTransport } = require('../../twin/transports/modbus');

const CLK_TCK = 100; // jiffies per second on Linux

/** CPU time (ms) of a process, user + system. */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

/** CPU % of one core of each pid over `ms`, while `during` runs (optional). */
async function measure(pids, ms) {
  const t0 = Date.now();
  const c0 = pids.map(cpuMs);
  await sleep(ms);
  const dt = Date.now() - t0;
  return pids.map((p, i) => (100 * (cpuMs(p) - c0[i])) / dt);
}

async function run(pollMs, seconds, slots) {
  const s = await startModbusStack({ pollMs, env: { S7T_MODBUS_PROBE_SLOTS: String(slots), S7T_MODBUS_CLOUD_POLL_MS: String(pollMs) } });
  const drv = new ModbusRTU();
  let timer = null;
  try {
    await sleep(3000); // connections up, first rounds done
    const pids = [s.edge.child.pid, s.cloud.child.pid];
    const idle = await measure(pids, seconds * 1000);
    await drv.connectTCP('127.0.0.1', { port: s.mbPort });
    drv.setID(1);
    drv.setTimeout(5000);
    const blocks = codec.probeBlocks(slots, codec.PROBE_REQUEST_BASE);
    let v = 0;
    let busy = false;
    let writes = 0;
    timer = setInterval(async () => {
      if (busy || !blocks.length) return; // one round of writes at a time
      busy = true;
      try {
        for (const b of blocks) {
          v = (v + 1) >>> 0;
          await drv.writeRegisters(b.address + b.quantity - 2, [v >>> 16, v & 0xffff]);
          writes += 1;
        }
      } catch { /* counted by its absence */ }
      busy = false;
    }, pollMs);
    await sleep(1000);
    const loaded = await measure(pids, seconds * 1000);
    clearInterval(timer);
    timer = null;
    return { slots, blocks: blocks.length, idle, loaded, writes };
  } finally {
    if (timer) clearInterval(timer);
    drv.close(() => {});
    await s.stop();
  }
}

/** Sequential probes on slot 1 and slot slots-1: {slot: {mean, median, max}} in ms. */
async function rtt(pollMs, slots, count = 20) {
  const s = await startModbusStack({ pollMs, env: { S7T_MODBUS_PROBE_SLOTS: String(slots), S7T_MODBUS_CLOUD_POLL_MS: String(pollMs) } });
  const tr = createTransport({ url: s.url, pollMs });
  let answer = null;
  tr.onProbe((slot, v) => { if (answer) answer(slot, v); });
  try {
    await tr.connect();
    await sleep(2000);
    const out = {};
    for (const slot of [...new Set([1, slots - 1])].filter((x) => x >= 1)) {
      const ms = [];
      for (let i = 1; i <= count; i++) {
        const value = 1000 * slot + i;
        const t0 = performance.now();
        await new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`slot ${slot} not answered in 5 s`)), 5000);
          answer = (sl, v) => { if (sl === slot && v === value) { clearTimeout(timer); resolve(); } };
          tr.probe(slot, value);
        });
        ms.push(performance.now() - t0);
        await sleep(50);
      }
      ms.sort((a, b) => a - b);
      out[slot] = { mean: ms.reduce((a, b) => a + b, 0) / ms.length, median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
    }
    return out;
  } finally {
    await tr.close();
    await s.stop();
  }
}

if (require.main === module) {
  const pollMs = Number(process.argv[2]) || 10;
  const seconds = Number(process.argv[3]) || 15;
  const list = (process.argv[4] || '0,61,122,244,1024').split(',').map(Number);
  (async () => {
    if (process.argv[5] === 'rtt') {
      console.log(`polls ${pollMs} ms, one probe at a time, ms`);
      console.log('| slots | slot | mean | median | max |');
      console.log('| --- | --- | --- | --- | --- |');
      for (const n of list.filter((x) => x > 1)) {
        for (const [slot, r] of Object.entries(await rtt(pollMs, n))) {
          console.log(`| ${n} | ${slot} | ${r.mean.toFixed(1)} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} |`);
        }
      }
      return;
    }
    console.log(`polls ${pollMs} ms, ${seconds} s per measurement, CPU % of one core`);
    console.log('| slots | blocks per side | edge idle | cloud idle | edge busy | cloud busy |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const n of list) {
      const r = await run(pollMs, seconds, n);
      const f = (x) => x.toFixed(1);
      console.log(`| ${n} | ${r.blocks} | ${f(r.idle[0])} | ${f(r.idle[1])} | ${f(r.loaded[0])} | ${f(r.loaded[1])} |`);
    }
  })().catch((err) => { console.error(err); process.exitCode = 1; });
}

module.exports = { run, rtt };
