#!/usr/bin/env node
'use strict';
/**
 * How the cloud's and the edge's event loops fared during a k6 run, from each runtime's
 * GET /s7twin/metrics (prom-client's process metrics): the event loop's delay (max and p99 since
 * the previous scrape: prom-client resets its histogram at every scrape) and the garbage
 * collections (pauses by kind, how many took over 10 ms). A p99 of the probes far above their p50
 * is either the loops held up (this shows it) or work queued behind the PLC's requests (it does not).
 *
 *   node bench/k6/loops.js mark FILE     scrape both now (resets the delay histograms), keep the GC figures in FILE
 *   node bench/k6/loops.js since FILE    scrape again: one line per runtime, the figures since `mark`
 *
 * Env: S7T_CLOUD_PORT (1880), S7T_EDGE_PORT (1881), S7T_METRICS_TOKEN (when the runtimes ask for one).
 */
const fs = require('node:fs');

const RUNTIMES = { cloud: process.env.S7T_CLOUD_PORT || 1880, edge: process.env.S7T_EDGE_PORT || 1881 };

/** The samples of a Prometheus text exposition: [{name, labels, value}]. */
function samples(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const [, k, v] of (m[2] || '').matchAll(/(\w+)="([^"]*)"/g)) labels[k] = v;
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** One runtime's loop delay and cumulative GC figures, from its metrics text. */
function figuresOf(text) {
  const s = samples(text);
  const one = (name) => (s.find((x) => x.name === name) || { value: NaN }).value;
  const gc = {};
  for (const x of s) {
    const kind = x.labels.kind;
    if (!kind) continue;
    gc[kind] = gc[kind] || { count: 0, sum: 0, upTo10ms: 0 };
    if (x.name === 'nodejs_gc_duration_seconds_count') gc[kind].count = x.value;
    if (x.name === 'nodejs_gc_duration_seconds_sum') gc[kind].sum = x.value;
    if (x.name === 'nodejs_gc_duration_seconds_bucket' && x.labels.le === '0.01') gc[kind].upTo10ms = x.value;
  }
  for (const g of Object.values(gc)) g.over10ms = g.count - g.upTo10ms;
  return { lagMaxMs: one('nodejs_eventloop_lag_max_seconds') * 1000, lagP99Ms: one('nodejs_eventloop_lag_p99_seconds') * 1000, gc };
}

/** One line for a runtime: its loop delay now, and its collections since `before` (figuresOf's). */
function describe(name, now, before) {
  const gc = ['minor', 'major'].filter((kind) => now.gc[kind]).map((kind) => {
    const g = now.gc[kind];
    const b = (before && before.gc[kind]) || { count: 0, sum: 0, over10ms: 0 };
    return `${kind} ${g.count - b.count} (${Math.round((g.sum - b.sum) * 1000)} ms, ${g.over10ms - b.over10ms} over 10 ms)`;
  });
  return `${name}: loop delay max ${now.lagMaxMs.toFixed(1)} ms, p99 ${now.lagP99Ms.toFixed(1)} ms; GC ${gc.join(', ')}`;
}

/** A runtime's figures now (its GET /s7twin/metrics on loopback). */
async function scrape(port) {
  const headers = process.env.S7T_METRICS_TOKEN ? { authorization: `Bearer ${process.env.S7T_METRICS_TOKEN}` } : {};
  const res = await fetch(`http://127.0.0.1:${port}/s7twin/metrics`, { headers });
  if (!res.ok) throw new Error(`GET :${port}/s7twin/metrics: ${res.status}`);
  return figuresOf(await res.text());
}

async function main() {
  const [mode, file] = process.argv.slice(2);
  if (!['mark', 'since'].includes(mode) || !file) {
    console.error('usage: node bench/k6/loops.js mark|since FILE');
    process.exit(2);
  }
  const now = {};
  for (const [name, port] of Object.entries(RUNTIMES)) now[name] = await scrape(port);
  if (mode === 'mark') { fs.writeFileSync(file, JSON.stringify(now)); return; }
  const before = JSON.parse(fs.readFileSync(file, 'utf8'));
  console.log(Object.entries(now).map(([name, r]) => describe(name, r, before[name])).join(' | '));
}

if (require.main === module) main().catch((err) => { console.error(err.message); process.exit(1); });

module.exports = { samples, figuresOf, describe };
