'use strict';
/**
 * The Modbus path stack for tests and measurements: a virtual PLC (Modbus only), a cloud
 * Node-RED with flows/parts/cloud-modbus.json and an edge Node-RED with edge-modbus.json, all on
 * ephemeral ports, every poll at `pollMs`.
 *
 *   const s = await startModbusStack({ pollMs: 10 }); ... runTwin({ protocol: 'modbus', url: s.url, pollMs: 10 }); await s.stop();
 *
 * As a program it measures round trips with the headless twin (figures in docs/modbus.md):
 *   node test/helpers/modbus.js [pollMs=80] [boxes=20] [plantProfile=fast]
 */
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed, freePort } = require('./nodered');
const { startPlc } = require('./plc');

const part = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'flows', 'parts', name), 'utf8'));

/**
 * @param {{pollMs?: number|string, edgeFlow?: (flow: object[]) => object[], env?: object}} [opts]
 * @returns {Promise<{plc, cloud, edge, mbPort:number, url:string, csv:string, stop():Promise<void>}>}
 */
async function startModbusStack(opts = {}) {
  const poll = String(opts.pollMs || 80);
  const plc = await startPlc({ s7: false, opcua: false });
  const mbPort = await freePort();
  let cloud;
  let edge;
  try {
    cloud = await startNodeRed({
      role: 'cloud', flows: part('cloud-modbus.json'), keepUserDir: true,
      env: { S7T_MODBUS_PORT: String(mbPort), S7T_MODBUS_CLOUD_POLL_MS: poll, ...opts.env },
    });
    const edgeFlow = opts.edgeFlow ? opts.edgeFlow(part('edge-modbus.json')) : part('edge-modbus.json');
    edge = await startNodeRed({
      role: 'edge', flows: edgeFlow,
      env: { S7T_MODBUS_CLOUD_PORT: String(mbPort), S7T_PLC_MODBUS_PORT: String(plc.ports.modbus), S7T_MODBUS_POLL_MS: poll, ...opts.env },
    });
  } catch (err) {
    if (cloud) { await cloud.stop(); fs.rmSync(cloud.userDir, { recursive: true, force: true }); }
    await plc.stop();
    throw err;
  }
  return {
    plc, cloud, edge, mbPort,
    url: `modbus://127.0.0.1:${mbPort}`,
    csv: path.join(cloud.userDir, 'results', 'flow-timer-modbus.csv'),
    async stop() {
      await edge.stop();
      await cloud.stop();
      fs.rmSync(cloud.userDir, { recursive: true, force: true });
      await plc.stop();
    },
  };
}

module.exports = { startModbusStack, part };

if (require.main === module) {
  (async () => {
    const { runTwin } = require('../../twin/run');
    const { summarise } = require('../../nodes/lib/core/stats');
    const [pollMs = '80', boxes = '20', profile = 'fast'] = process.argv.slice(2);
    const s = await startModbusStack({ pollMs });
    try {
      await new Promise((r) => setTimeout(r, 2000)); // clients connected, first polls done
      const r = await runTwin({ protocol: 'modbus', url: s.url, pollMs, boxes: Number(boxes), damaged: 0.3, profile, quiet: true });
      const f = (x) => (x.n
        ? `n=${x.n} mean=${x.mean.toFixed(1)} median=${x.median.toFixed(1)} p95=${x.p95.toFixed(1)} p99=${x.p99.toFixed(1)} ` +
          `min=${x.min.toFixed(1)} max=${x.max.toFixed(1)}`
        : 'n=0');
      console.log(`poll ${pollMs} ms, plant ${profile}: boxes ${r.boxes} packed ${r.packed} rejected ${r.rejected} missorted ${r.missorted} ` +
        `expired ${r.expired}`);
      console.log(`twin  all   ${f(summarise(Object.values(r.samples).flat()))}`);
      for (const [k, v] of Object.entries(r.samples)) console.log(`twin  ${k.padEnd(5)} ${f(summarise(v))}`);
      await new Promise((res) => setTimeout(res, 1500)); // CSV flush
      const ms = fs.readFileSync(s.csv, 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(',')[4]));
      console.log(`cloud flow-timer ${f(summarise(ms))}`);
      console.log(`twin bytes out ${r.transport.bytesOut} in ${r.transport.bytesIn}, ${(r.durationMs / 1000).toFixed(1)} s`);
    } finally {
      await s.stop();
    }
  })().catch((err) => { console.error(err); process.exitCode = 1; });
}
