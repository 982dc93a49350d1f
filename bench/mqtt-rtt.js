#!/usr/bin/env node
'use strict';
/**
 * Round trips of the MQTT path on loopback, per configuration: the virtual PLC's own MQTT client,
 * the cloud Node-RED running flows/parts/cloud-mqtt.json, and the headless twin over
 * twin/transports/mqtt.js. Prints the twin's full-loop statistics (input written → PLC output
 * seen) and the cloud flow-timer's (broker → PLC → broker) for each configuration.
 *
 *   node bench/mqtt-rtt.js [--boxes 20] [--configs tuned,stock,qos1,study]
 *
 * Configurations:
 *   tuned  QoS 0, TCP noDelay on every socket (broker, twin, PLC), plant profile "fast"
 *   stock  QoS 0, no noDelay on the broker nor the twin (a stock aedes server and mqtt.js
 *          client), plant profile "fast"
 *   qos1   as tuned, QoS 1 on the PLC and the twin
 *   study  as tuned, plant profile "study" (the study's conveyor speeds and box interval)
 *
 * One loaded 2-core machine shares these figures with everything else that runs on it: compare
 * configurations measured in one run, not against figures from another day.
 */
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startNodeRed, waitFor } = require('../system');
const { freePort } = require('../plc/net');
const { createPlc } = require('../plc');
const { runTwin } = require('../twin/run');
const { summarise } = require('../nodes/lib/core/stats');

const ROOT = path.join(__dirname, '..');
const PW = { twin: 'bench-twin-pw', plc: 'bench-plc-pw', monitor: 'bench-monitor-pw' };
const CONFIGS = {
  tuned: { qos: 0, noDelay: true, profile: 'fast' },
  stock: { qos: 0, noDelay: false, profile: 'fast' },
  qos1: { qos: 1, noDelay: true, profile: 'fast' },
  study: { qos: 0, noDelay: true, profile: 'study' },
};

async function measure(name, cfg, boxes) {
  const flows = JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', 'parts', 'cloud-mqtt.json'), 'utf8'));
  for (const n of flows) if (n.type === 's7twin-mqtt-broker') n.noDelay = cfg.noDelay;
  const port = await freePort();
  const red = await startNodeRed({
    role: 'cloud', flows, keepUserDir: true,
    env: {
      S7T_MQTT_PORT: String(port), S7T_MQTT_WS_PORT: 'off',
      S7T_MQTT_USERS: Object.entries(PW).map(([u, p]) => `${u}:${p}:${u}`).join(','),
      S7T_MQTT_MONITOR_USER: 'monitor', S7T_MQTT_MONITOR_PASSWORD: PW.monitor,
    },
  });
  let plc;
  try {
    await waitFor(() => /Connected to broker/.test(red.logs()), 30000, 'the monitor');
    const url = `mqtt://127.0.0.1:${port}`;
    plc = await createPlc({
      scanMs: 10, s7: false, opcua: false, modbus: false, mqtt: { url, plant: 'plant1', username: 'plc', password: PW.plc, qos: cfg.qos },
    });
    await waitFor(() => plc.counters.mqttConnects > 0, 20000, 'the PLC');
    const r = await runTwin({
      protocol: 'mqtt', url, username: 'twin', password: PW.twin, qos: cfg.qos, noDelay: cfg.noDelay, boxes, profile: cfg.profile, seed: 11,
    });
    await red.stop();
    const csv = fs.readFileSync(path.join(red.userDir, 'results', 'flow-timer-mqtt.csv'), 'utf8').trim().split('\n').slice(1);
    const cloud = summarise(csv.map((l) => Number(l.split(',')[4])));
    return { name, ok: r.ok, missorted: r.missorted, twin: r.summary.overall, cloud, perVariable: r.summary };
  } finally {
    if (plc) await plc.stop();
    await red.stop();
    fs.rmSync(red.userDir, { recursive: true, force: true });
  }
}

const f = (v) => (typeof v === 'number' ? v.toFixed(1) : '-');

async function main() {
  const { values } = parseArgs({ options: { boxes: { type: 'string', default: '20' }, configs: { type: 'string', default: 'tuned,stock,qos1,study' } } });
  const boxes = Number(values.boxes);
  const rows = [];
  for (const name of values.configs.split(',')) {
    if (!CONFIGS[name]) throw new Error(`unknown config ${name} (${Object.keys(CONFIGS).join(', ')})`);
    const r = await measure(name, CONFIGS[name], boxes);
    rows.push(r);
    console.log(`${name}: ok=${r.ok} missorted=${r.missorted}`);
    for (const [k, s] of Object.entries(r.perVariable)) {
      if (k !== 'overall') console.log(`  ${k.padEnd(5)} n=${s.n} mean=${f(s.mean)} median=${f(s.median)} p95=${f(s.p95)} p99=${f(s.p99)}`);
    }
  }
  console.log('\nconfig  where           n     mean  median    p95    p99    max   (ms)');
  for (const r of rows) {
    for (const [where, s] of [['twin full loop', r.twin], ['cloud flow-timer', r.cloud]]) {
      console.log(`${r.name.padEnd(7)} ${where.padEnd(16)} ${String(s.n).padStart(4)} ${f(s.mean).padStart(7)} ${f(s.median).padStart(7)} ` +
        `${f(s.p95).padStart(6)} ${f(s.p99).padStart(6)} ${f(s.max).padStart(6)}`);
    }
  }
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { measure, CONFIGS };
