#!/usr/bin/env node
'use strict';
/**
 * Round trips of the OPC UA path on loopback, per profile: the virtual PLC's OPC UA server (in
 * this process), an edge Node-RED running flows/parts/edge-opcua.json, a cloud Node-RED running
 * flows/parts/cloud-opcua.json, and the headless twin over twin/transports/opcua.js. Prints the
 * twin's full loop (input written → PLC output seen) and the cloud flow-timer's
 * (cloud server → edge → PLC → edge → cloud server) for each profile.
 *
 *   node bench/opcua-rtt.js [--boxes 20] [--profiles study,tuned,tuned-plc10]
 *
 * Profiles:
 *   study  as the study ran it: cloud server minimum sampling 50 ms (the value the study patched
 *          into node-red-contrib-opcua), edge subscriptions 10 ms, twin reads every 50 ms
 *   tuned  cloud server minimum sampling 0 (reports on every change), edge and twin subscribe
 *          with sampling 0 and a 10 ms publishing interval
 *   tuned-plc10  tuned, with the PLC's server floors at its 10 ms scan (run last: the floors are
 *          class-wide in node-opcua, so they stay lowered in this process)
 * The PLC's own server keeps node-opcua's 50 ms sampling and publishing floors (plc/opcua.js)
 * in study and tuned.
 *
 * One loaded 2-core machine shares these figures with everything else that runs on it: compare
 * profiles measured in one run, not against figures from another day.
 */
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startNodeRed, waitFor } = require('../system');
const { pkiDir, countMonitoredItems } = require('../system/opcua');
const { freePort } = require('../plc/net');
const { createPlc } = require('../plc');
const { runTwin } = require('../twin/run');
const { summarise } = require('../nodes/lib/core/stats');

const ROOT = path.join(__dirname, '..');
const PROFILES = {
  study: { serverMinSampling: 50, edgeSampling: 10, edgePublishing: 10, twin: { mode: 'poll', pollMs: 50 } },
  tuned: { serverMinSampling: 0, edgeSampling: 0, edgePublishing: 10, twin: { mode: 'subscribe', samplingIntervalMs: 0, publishingIntervalMs: 10 } },
  // tuned, and the PLC's server lets a subscriber sample and publish at its 10 ms scan instead of
  // node-opcua's 50 ms floors (see docs/opcua.md: the PLC side dominates the tuned loop).
  'tuned-plc10': {
    serverMinSampling: 0, edgeSampling: 0, edgePublishing: 10, plcFloorMs: 10, twin: { mode: 'subscribe', samplingIntervalMs: 0, publishingIntervalMs: 10 },
  },
};

async function measure(name, p, boxes) {
  const plcPort = await freePort();
  const opcPort = await freePort();
  const url = `opc.tcp://127.0.0.1:${opcPort}`;
  const stops = [];
  if (p.plcFloorMs) {
    const { MonitoredItem, Subscription } = require('node-opcua-server');
    MonitoredItem.minimumSamplingInterval = p.plcFloorMs;
    Subscription.minimumPublishingInterval = p.plcFloorMs;
  }
  try {
    const plc = await createPlc({ scanMs: 10, s7: false, modbus: false, opcua: { host: '127.0.0.1', port: plcPort, pkiDir: pkiDir('plc') } });
    stops.push(() => plc.stop());
    const cloud = await startNodeRed({
      role: 'cloud', flows: path.join(ROOT, 'flows', 'parts', 'cloud-opcua.json'), keepUserDir: true,
      // The nodes have no default password; the twin below logs in as the transport's twin/twin.
      env: {
        S7T_OPCUA_PORT: String(opcPort), S7T_OPCUA_PKI_DIR: pkiDir('cloud-server'), S7T_OPCUA_MIN_SAMPLING_MS: String(p.serverMinSampling),
        S7T_OPCUA_TWIN_PASSWORD: 'twin', S7T_OPCUA_EDGE_PASSWORD: 'edge',
      },
    });
    stops.push(async () => { await cloud.stop(); fs.rmSync(cloud.userDir, { recursive: true, force: true }); });
    const edge = await startNodeRed({
      role: 'edge', flows: path.join(ROOT, 'flows', 'parts', 'edge-opcua.json'),
      env: {
        S7T_PLC_HOST: '127.0.0.1', S7T_PLC_OPCUA_PORT: String(plcPort), S7T_OPCUA_URL: url, S7T_OPCUA_CLIENT_PKI_DIR: pkiDir('edge-client'),
        S7T_OPCUA_SAMPLING_MS: String(p.edgeSampling), S7T_OPCUA_PUBLISHING_MS: String(p.edgePublishing), S7T_OPCUA_EDGE_PASSWORD: 'edge',
      },
    });
    stops.push(() => edge.stop());
    await waitFor(async () => (await countMonitoredItems(url, { user: 'twin', password: 'twin' })).items === 10, 30000, 'the edge bridge');
    const r = await runTwin({ protocol: 'opcua', url, profile: 'fast', boxes, damaged: 0.3, seed: 7, pkiDir: pkiDir('twin-client'), ...p.twin });
    await cloud.stop(); // flushes the flow-timer CSV
    const csv = path.join(cloud.userDir, 'results', 'flow-timer-opcua.csv');
    const cloudMs = fs.existsSync(csv) ? fs.readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(',')[4])) : [];
    return {
      name, ok: r.ok, missorted: r.missorted, twin: r.summary.overall, cloud: summarise(cloudMs),
      bytes: { out: r.transport.bytesOut, in: r.transport.bytesIn },
    };
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
  }
}

const fmt = (s) => (s && s.n
  ? `n=${s.n} mean=${s.mean.toFixed(1)} median=${s.median.toFixed(1)} p95=${s.p95.toFixed(1)} p99=${s.p99.toFixed(1)} max=${s.max.toFixed(1)}`
  : 'n=0');

async function main() {
  const { values } = parseArgs({ options: { boxes: { type: 'string' }, profiles: { type: 'string' } } });
  const boxes = Number(values.boxes || 20);
  const names = (values.profiles || 'study,tuned,tuned-plc10').split(',');
  for (const n of names) {
    if (!PROFILES[n]) throw new Error(`unknown profile ${n} (${Object.keys(PROFILES).join(', ')})`);
    const r = await measure(n, PROFILES[n], boxes);
    console.log(`${n}: sorted ${r.ok ? 'ok' : 'NOT ok'} (missorted ${r.missorted}), twin bytes out/in ${r.bytes.out}/${r.bytes.in}`);
    console.log(`  twin full loop ms   ${fmt(r.twin)}`);
    console.log(`  cloud flow-timer ms ${fmt(r.cloud)}`);
  }
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { PROFILES, measure };
