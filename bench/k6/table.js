#!/usr/bin/env node
'use strict';
/**
 * The table of kept k6 runs (bench/k6/runs.sh), from their --summary-export JSON files: per run the probes
 * measured, p50, p99, max (ms), and the failed probes (timeouts + err answers + wrong values),
 * failed connects and binary frames (0: the server spoke JSON, as asked).
 *
 *   node bench/k6/table.js DIR | file.json ...     (a folder: every *.json in it)
 */
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
if (!args.length) { console.error('usage: node bench/k6/table.js DIR | file.json ...'); process.exit(2); }
const files = args.flatMap((a) => (fs.statSync(a).isDirectory()
  ? fs.readdirSync(a).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(a, f)) : [a]));
const count = (m, name) => (m[name] ? m[name].count : 0);
const fix = (x) => (typeof x === 'number' ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : '–');
console.log('| run | probes | p50 ms | p99 ms | max ms | failed (timeout/err/wrong) | connects failed | binary frames |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const f of files) {
  const m = JSON.parse(fs.readFileSync(f, 'utf8')).metrics;
  const r = m.probe_rtt || {};
  const t = count(m, 'probe_timeouts'); const e = count(m, 'probe_errors'); const w = count(m, 'probe_wrong');
  console.log(`| ${path.basename(f, '.json')} | ${r.count || 0} | ${fix(r.med)} | ${fix(r['p(99)'])} | ${fix(r.max)} | `
    + `${t + e + w} (${t}/${e}/${w}) | ${count(m, 'twin_connect_failed')} | ${count(m, 'frames_binary')} |`);
}
