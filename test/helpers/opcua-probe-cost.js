'use strict';
/**
 * What the OPC UA probe slots cost while idle (figures in docs/opcua.md "Probe slots"): for each
 * slot count N, the virtual PLC (OPC UA only, its own process), the cloud OPC UA server and the
 * edge bridge (each in a child process of its own) with N probe slots, CPU % of one core of each
 * process (user + system from /proc) over `seconds`, after a settle time. N = 0 is the bridge
 * without the probe relay. Not a test: a measurement, run on a quiet machine.
 *
 *   node test/helpers/opcua-probe-cost.js [seconds=10] [slots=0,128,1024]
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort, waitFor } = require('./nodered');
const { pkiDir } = require('./opcua');

const ROOT = path.join(__dirname, '..', '..');
const CLK_TCK = 100; // jiffies per second on Linux
const SETTLE_MS = 3000; // after everything is connected, before measuring

function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

/** A child process; ready(re) waits until its output matches re. */
function child(args, label) {
  const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
  let out = '';
  c.stdout.on('data', (d) => { out += d; });
  c.stderr.on('data', (d) => { out += d; });
  c.ready = (re) => waitFor(() => re.test(out) || c.exitCode !== null, 60000, `${label} up`).then(() => {
    if (c.exitCode !== null) throw new Error(`${label} exited: ${out.slice(-2000)}`);
  });
  c.stop = () => new Promise((r) => { if (c.exitCode !== null) { r(); return; } c.once('exit', r); c.kill('SIGINT'); });
  return c;
}

const SERVER = `
const { createOpcuaServer } = require('./nodes/lib/opcua/server');
const srv = createOpcuaServer({ port: Number(process.argv[1]), pkiDir: process.argv[2], probeSlots: Number(process.argv[3]) });
srv.start().then(() => console.log('ready'));
process.on('SIGINT', () => srv.stop().then(() => process.exit(0)));`;
const BRIDGE = `
const { createOpcuaBridge } = require('./nodes/lib/opcua/bridge');
const b = createOpcuaBridge({ plcEndpoint: process.argv[1], cloudEndpoint: process.argv[2], cloudCredentials: { user: 'edge', password: 'edge' },
  pkiDir: process.argv[3], probeSlots: Number(process.argv[4]) });
b.start().then(() => console.log('ready'));
process.on('SIGINT', () => b.stop().then(() => process.exit(0)));`;

async function one(n, seconds) {
  const plcPort = await freePort();
  const cloudPort = await freePort();
  const plc = child([path.join(ROOT, 'plc', 'cli.js'), '--opcua-port', String(plcPort), '--no-s7', '--no-modbus', '--pki-dir', pkiDir('plc')], 'PLC');
  const srv = child(['-e', SERVER, String(cloudPort), pkiDir('cloud-server'), String(n)], 'cloud server');
  try {
    await Promise.all([plc.ready(/scanning every/), srv.ready(/ready/)]);
    const br = child(['-e', BRIDGE, `opc.tcp://127.0.0.1:${plcPort}`, `opc.tcp://127.0.0.1:${cloudPort}`, pkiDir('client'), String(n)], 'bridge');
    try {
      await br.ready(/ready/);
      await sleep(SETTLE_MS);
      const procs = { plc, cloud: srv, edge: br };
      const t0 = performance.now();
      const c0 = Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, cpuMs(p.pid)]));
      await sleep(seconds * 1000);
      const dt = performance.now() - t0;
      return Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, (100 * (cpuMs(p.pid) - c0[k])) / dt]));
    } finally {
      await br.stop();
    }
  } finally {
    await Promise.all([plc.stop(), srv.stop()]);
  }
}

async function main() {
  const seconds = Number(process.argv[2] || 10);
  const slots = (process.argv[3] || '0,128,1024').split(',').map(Number);
  console.log('| probe slots N | PLC CPU % | cloud server CPU % | edge bridge CPU % |');
  console.log('| --- | --- | --- | --- |');
  for (const n of slots) {
    const r = await one(n, seconds);
    console.log(`| ${n} | ${r.plc.toFixed(1)} | ${r.cloud.toFixed(1)} | ${r.edge.toFixed(1)} |`);
  }
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { one };
