'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { rowsOf, framesOf } = require('../../../../nodes/lib/history/rows');

test('rowsOf: live frames are filed under their arrival, backfill under the edge time on the cloud clock', () => {
  assert.deepEqual(rowsOf('p1', { k: 'state', seq: 4, ts: 900, d: { c1: 2, grn: true } }, 1000),
    [['p1', 1000, 900, 4, 'state', 'c1', 2], ['p1', 1000, 900, 4, 'state', 'grn', 1]]);
  assert.deepEqual(rowsOf('p1', { k: 'backfill', seq: 9, ts: 500, ct: 520, d: { msg: 'r1' } }, 5000),
    [['p1', 520, 500, 9, 'backfill', 'msg', 'r1']]);
  // A backfill frame without a cloud time is filed under its arrival.
  assert.deepEqual(rowsOf('p1', { k: 'backfill', seq: 9, ts: 500, d: { c1: 1 } }, 5000)[0].slice(0, 3), ['p1', 5000, 500]);
});

test('rowsOf: kinds, plants and values the history does not keep give no rows', () => {
  assert.deepEqual(rowsOf('p1', { k: 'ack', ref: {} }, 1), []);
  assert.deepEqual(rowsOf(undefined, { k: 'state', d: { c1: 1 } }, 1), []);
  assert.deepEqual(rowsOf('p1', { k: 'state', d: { a: null, b: NaN, c: {} } }, 1), []);
  assert.deepEqual(rowsOf('p1', null, 1), []);
});

test('framesOf: consecutive rows of one frame make one frame', () => {
  const rows = [
    { plant: 'p1', t: 1, ets: null, seq: 1, kind: 'snap', tag: 'a', value: 1 },
    { plant: 'p1', t: 1, ets: null, seq: 1, kind: 'snap', tag: 'b', value: 0 },
    { plant: 'p1', t: 2, ets: 2, seq: 2, kind: 'backfill', tag: 'a', value: 2 },
  ];
  assert.deepEqual(framesOf(rows), [
    { plant: 'p1', t: 1, ets: null, seq: 1, k: 'snap', d: { a: 1, b: 0 } },
    { plant: 'p1', t: 2, ets: 2, seq: 2, k: 'backfill', d: { a: 2 } },
  ]);
});
