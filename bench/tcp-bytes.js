#!/usr/bin/env node
'use strict';
/**
 * Table 3's bytes per box checked from a packet capture, by tshark (Wireshark's command line)
 * rather than by the twin transports' own counters: the TCP payload bytes of every production
 * twin's connection, both ways, divided by the boxes the report says were sorted. Capture the
 * loopback while the benchmark runs, then read it:
 *
 *   tcpdump -i lo -s 0 -w /tmp/bench.pcap tcp &          # as root; stop it after the run
 *   node bench/run.js --protocols ws,mqtt ... --out bench/results/<day>
 *   node bench/tcp-bytes.js /tmp/bench.pcap bench/results/<day>/summary.json
 *
 * Prints a Markdown table: per profile and path, productions found, bytes up and down, boxes,
 * bytes per box from the capture and from the report. Which streams count: bench/lib/tcp-bytes.js
 * (the run's own, by the ports its logs name: `<results>/logs/<profile>-cloud.log`).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { productionStreams, perProduction, portsOf, totals } = require('./lib/tcp-bytes');

const MAX_BUFFER = 1024 * 1024 * 1024;

/** tshark's tab-separated fields of the packets a display filter keeps. */
function tshark(pcap, filter, fields) {
  const args = ['-r', pcap, '-n', '-Y', filter, '-T', 'fields', '-E', 'separator=/t', ...fields.flatMap((f) => ['-e', f])];
  const out = execFileSync('tshark', args, { encoding: 'utf8', maxBuffer: MAX_BUFFER, stdio: ['ignore', 'pipe', 'inherit'] });
  return out.split('\n').filter(Boolean).map((l) => l.split('\t'));
}

function main() {
  const [pcap, summaryFile] = process.argv.slice(2);
  if (!pcap || !summaryFile) {
    console.error('usage: node bench/tcp-bytes.js <capture.pcap> <results>/summary.json');
    process.exit(2);
  }
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  // Packets that open a WebSocket twin connection or name a production twin (its first frame, an
  // MQTT CONNECT): enough to tell which streams are productions.
  const named = tshark(pcap, 'tcp.len > 0 && (tcp.payload matches "^GET /s7twin/" || tcp.payload matches "twin-p[0-9]{1,3}x[a-z0-9]{5}"'
    + ' || tcp.payload[0] == 0x10)',
  ['tcp.stream', 'frame.time_epoch', 'tcp.srcport', 'tcp.dstport', 'tcp.payload'])
    .map(([stream, time, srcPort, dstPort, payload]) => ({
      stream: Number(stream), time: Number(time), srcPort: Number(srcPort), dstPort: Number(dstPort), payload,
    }));
  const streams = productionStreams(named);
  if (!streams.size) throw new Error('no production twin connection in the capture');
  const sizes = tshark(pcap, `tcp.len > 0 && tcp.stream in {${[...streams.keys()].join(', ')}}`, ['tcp.stream', 'tcp.srcport', 'tcp.len'])
    .map(([stream, srcPort, len]) => ({ stream: Number(stream), srcPort: Number(srcPort), len: Number(len) }));
  const dir = path.dirname(summaryFile);
  const logs = Object.fromEntries(Object.keys(summary.profiles).map((n) => {
    const file = path.join(dir, 'logs', `${n}-cloud.log`);
    return [n, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''];
  }));
  const rows = totals(perProduction(streams, sizes), summary, portsOf(logs));
  const f = (x) => (x === null || x === undefined ? '–' : Math.round(x).toLocaleString('en'));
  console.log('| profile | path | productions (capture / report) | bytes up | bytes down | boxes | bytes per box, capture | bytes per box, report |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const cells = [r.profile, r.protocol, `${r.productions} / ${f(r.reportProductions)}`, f(r.up), f(r.down), f(r.boxes), f(r.perBox), f(r.reportPerBox)];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

try {
  main();
} catch (err) {
  console.error(`tcp-bytes: ${err.message}`);
  process.exit(1);
}
