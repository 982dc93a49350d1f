#!/usr/bin/env node
'use strict';
// What the old generation of a process gained under load, from a --trace-gc-nvp log (nvp.js):
// over the middle 60 % of its collections after line FROM of the log, the growth of the heap
// (total_size_after, first to last), the bytes scavenges promoted, the bytes allocated, and the
// full collections among them, all a second.
//   node promoted.js LOG[.gz] FROM PID...
const fs = require('node:fs');
const zlib = require('node:zlib');

const [log, from, ...pids] = process.argv.slice(2);
const raw = fs.readFileSync(log);
const lines = (log.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8').split('\n').slice(Number(from) || 0);
const field = (l, k) => { const m = l.match(new RegExp(` ${k}=([\\d.]+)`)); return m ? Number(m[1]) : 0; };
for (const pid of pids) {
  const rows = lines.filter((l) => l.includes(`[${pid}:0x`) && l.includes('total_size_after')).map((l) => ({
    ms: Number(l.match(/\]\s+(\d+) ms/)[1]), full: !/ gc=s /.test(l),
    after: field(l, 'total_size_after'), promoted: field(l, 'promoted'), allocated: field(l, 'allocated'),
  }));
  const mid = rows.slice(Math.floor(rows.length / 5), Math.floor((rows.length * 4) / 5));
  if (mid.length < 2) { console.log(`${pid}: too few collections (${rows.length})`); continue; }
  const s = (mid[mid.length - 1].ms - mid[0].ms) / 1000;
  const sum = (k) => mid.slice(1).reduce((n, r) => n + r[k], 0);
  const mb = (b) => (b / s / 1e6).toFixed(2);
  console.log(`${pid}: ${rows.length} collections (${rows.filter((r) => r.full).length} full), ${s.toFixed(1)} s measured:`
    + ` heap growth ${mb(mid[mid.length - 1].after - mid[0].after)} MB/s, promoted ${mb(sum('promoted'))} MB/s, allocated ${mb(sum('allocated'))} MB/s`);
}
