'use strict';
/** nodes/lib/core/sparse.js: an object for number keys that V8 keeps small. */
const test = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const { sparseObject } = require('../../../../nodes/lib/core/sparse');

test('behaves as a plain object: keys in ascending order, JSON the same, nothing of the trick left', () => {
  const d = sparseObject();
  d[937] = 5;
  d[3] = 1;
  d.x = 2;
  assert.deepEqual(Object.keys(d), ['3', '937', 'x']);
  assert.equal(JSON.stringify(d), '{"3":1,"937":5,"x":2}');
  assert.deepEqual(d, { 3: 1, 937: 5, x: 2 });
  assert.equal(Object.getPrototypeOf(d), Object.prototype);
  assert.equal(Object.keys(sparseObject()).length, 0);
});

test('one slot key near 1,000 takes a few hundred bytes of heap, not the 11 KB a plain object takes', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc'); // full collections around each count
  const per = (make) => {
    const keep = [];
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    for (let i = 0; i < 500; i++) keep.push(make(900 + (i % 100)));
    gc();
    return (v8.getHeapStatistics().used_heap_size - before) / keep.length;
  };
  const plain = per((s) => { const o = {}; o[s] = 1; return o; });
  const sparse = per((s) => { const o = sparseObject(); o[s] = 1; return o; });
  assert.ok(plain > 5000, `a plain object with key ~950 holds ${plain.toFixed(0)} bytes (V8 changed?)`);
  assert.ok(sparse < 1500, `a sparse one ${sparse.toFixed(0)} bytes`);
});
