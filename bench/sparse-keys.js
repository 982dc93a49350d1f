'use strict';
/**
 * What one object keyed by a probe slot costs on V8's heap, built the plain way and with
 * nodes/lib/core/sparse.js, next to JSON.parse's (the heap after a full collection, 2,000 kept):
 *
 *   node --expose-gc bench/sparse-keys.js
 */
const v8 = require('node:v8');
const { sparseObject } = require('../nodes/lib/core/sparse');

if (typeof global.gc !== 'function') { console.error('run with node --expose-gc'); process.exit(2); }
const N = 2000;
function perObject(make) {
  const keep = [];
  global.gc();
  const before = v8.getHeapStatistics().used_heap_size;
  for (let i = 0; i < N; i++) keep.push(make(900 + (i % 100), i));
  global.gc();
  return (v8.getHeapStatistics().used_heap_size - before) / N;
}
function nsPer(make) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 1e5; i++) make(900 + (i % 100), i);
  return Number(process.hrtime.bigint() - t) / 1e5;
}
const ways = {
  '{} then d[slot] = v': (s, v) => { const d = {}; d[s] = v; return d; },
  'sparseObject() then d[slot] = v': (s, v) => { const d = sparseObject(); d[s] = v; return d; },
  'JSON.parse': (s, v) => JSON.parse(`{"${s}":${v}}`),
  '{} then d[5] = v (a small slot)': (_s, v) => { const d = {}; d[5] = v; return d; },
};
for (const [name, make] of Object.entries(ways)) {
  console.log(`${name.padEnd(34)} ${perObject(make).toFixed(0).padStart(6)} bytes  ${nsPer(make).toFixed(0).padStart(5)} ns each (slots 900-999)`);
}
