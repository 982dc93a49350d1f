'use strict';
/**
 * Loopback figures of the WebSocket–S7 bridge nodes (docs/bridge.md): the example cloud and edge
 * flows in two Node-RED child processes, a snap7 S7 server as the PLC with a 10 ms "scan" that
 * copies probe requests (DB2) to responses (DB3), and one raw ws twin.
 *
 *   node bench/bridge-latency.js [--n 300] [--gap 20]
 *
 * Measures, in the twin's process with one monotonic clock:
 *   cmd → ack         twin → cloud → edge → one S7 write → edge → cloud → twin
 *   probe → probe-res twin → cloud → edge → S7 write DB2 → PLC scan copies → S7 read DB3 → … → twin
 * Do not over-read: one loaded 2-core machine, loopback, no WAN; the PLC scan is a timer.
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { summarise } = require('../nodes/lib/core/stats');
const { startNodeRed, waitFor } = require('../system');
const { startBareS7 } = require('../system/bare-s7');
const { openClient } = require('../system/ws-client');

const arg = (name, d) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : d; };
const N = arg('n', 300);
const GAP_MS = arg('gap', 20);
const EX = path.join(__dirname, '..', 'examples');

async function main() {
  const plc = await startBareS7({ scanMs: 10 });
  const env = { S7T_TWIN_TOKEN: 'bench', S7T_EDGE_TOKEN: 'bench-edge' };
  const cloud = await startNodeRed({ role: 'cloud', flows: path.join(EX, 's7twin-cloud.json'), env });
  const edge = await startNodeRed({
    role: 'edge', flows: path.join(EX, 's7twin-edge.json'),
    env: { ...env, S7T_CLOUD_URL: `${cloud.url.replace('http', 'ws')}/s7twin/edge`, S7T_PLC_HOST: '127.0.0.1', S7T_PLC_PORT: String(plc.port) },
  });
  const twin = await openClient(`${cloud.url.replace('http', 'ws')}/s7twin/twin`, { token: 'bench' });
  try {
    await twin.next((f) => f.k === 'snap' && 'c1' in f.d, 60000);
    const pending = new Map();
    const ack = [];
    const probe = [];
    twin.ws.on('message', (data) => {
      const f = JSON.parse(data);
      const key = f.ref ? `${f.ref.seq}` : null;
      if (key && pending.has(key)) {
        const p = pending.get(key);
        (f.k === 'ack' ? ack : probe).push(performance.now() - p);
        pending.delete(key);
      }
    });
    let seq = 0;
    for (let i = 0; i < N; i += 1) {
      seq += 1;
      pending.set(`${seq}`, performance.now());
      twin.send({ v: 1, k: 'cmd', src: 'bench-twin', seq, ts: Date.now(), d: { se: i % 2 } });
      await new Promise((r) => setTimeout(r, GAP_MS));
      seq += 1;
      pending.set(`${seq}`, performance.now());
      twin.send({ v: 1, k: 'probe', src: 'bench-twin', seq, ts: Date.now(), d: { [i % 64]: seq } });
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    await waitFor(() => pending.size === 0, 30000, 'every answer');
    const fmt = (s) => `n=${s.n} mean=${s.mean.toFixed(2)} median=${s.median.toFixed(2)} p95=${s.p95.toFixed(2)} p99=${s.p99.toFixed(2)} ` +
      `max=${s.max.toFixed(2)} ms`;
    console.log(`cmd -> ack          ${fmt(summarise(ack))}`);
    console.log(`probe -> probe-res  ${fmt(summarise(probe))}`);
  } finally {
    twin.ws.terminate();
    await edge.stop();
    await cloud.stop();
    plc.stop();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
