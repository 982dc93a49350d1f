#!/usr/bin/env node
'use strict';
/**
 * The benchmark's own load generator (bench/lib/load.js, the WebSocket twin transport) against a
 * system that is already running, e.g. `bash scripts/start.sh`: the same target k6 can be pointed
 * at (bench/k6/ws-probes.js), so the two generators are compared on one system. Prints the
 * level's statistics and the generator's own CPU time.
 *
 *   node bench/load-against.js [--url ws://127.0.0.1:1880/s7twin/twin] [--token dev-twin-token]
 *                              [--users 1000] [--seconds 25] [--think 500]
 */
const { parseArgs } = require('node:util');
const { runLoad } = require('./lib/load');
const { createTransport } = require('../twin/transports/ws');

async function main() {
  const { values: a } = parseArgs({
    options: {
      url: { type: 'string', default: 'ws://127.0.0.1:1880/s7twin/twin' },
      token: { type: 'string', default: 'dev-twin-token' },
      users: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '25' },
      think: { type: 'string', default: '500' },
    },
  });
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  const r = await runLoad({
    protocol: 'ws', users: Number(a.users), durationMs: Number(a.seconds) * 1000, thinkMs: Number(a.think),
    makeTransport: (u) => createTransport({ url: a.url, token: a.token, id: `load-${u}` }),
  });
  const cpu = process.cpuUsage(cpu0);
  const s = r.summary;
  const f = (x) => (typeof x === 'number' ? x.toFixed(1) : x);
  console.log(JSON.stringify({
    users: r.users, connected: r.connected, ok: r.ok, warmup: r.warmup, timeouts: r.timeouts, wrong: r.wrong, errorPct: r.errorPct,
    throughput: Number(r.throughput.toFixed(1)), mean: f(s.mean), median: f(s.median), p95: f(s.p95), p99: f(s.p99), max: f(s.max),
    generatorCpuPct: Number(((100 * (cpu.user + cpu.system)) / 1000 / (Date.now() - t0)).toFixed(1)),
  }));
}

main().then(() => process.exit(0), (err) => { console.error(`load-against: ${err.code || ''} ${err.message}`); process.exit(1); });
