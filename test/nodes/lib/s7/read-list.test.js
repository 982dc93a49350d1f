'use strict';
/** nodes/lib/s7/read-list.js: the I/O block plus watched items, and when nodes7 must be told. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReadList } = require('../../../../nodes/lib/s7/read-list');

test('take hands over the list when it changed since the last read, and only then', () => {
  const r = createReadList('DB1,BYTE0.16');
  assert.deepEqual(r.take(), ['DB1,BYTE0.16'], 'the first read hands the list over');
  assert.equal(r.take(), null, 'unchanged');
  r.watch('DB3,DWORD0.64');
  r.watch('DB3,DWORD0.64');
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'DB3,DWORD0.64']);
  assert.equal(r.take(), null);
  r.unwatch('DB3,DWORD256.64'); // never watched
  assert.equal(r.take(), null);
  r.touch(); // nodes7 was given other items
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'DB3,DWORD0.64']);
  r.unwatch('DB3,DWORD0.64');
  assert.deepEqual(r.take(), ['DB1,BYTE0.16']);
});

test('a follower names addresses afresh for every read; extra picks the values of what the read asked for', () => {
  const r = createReadList(['DB1,BYTE0.16', 'MB0.4']);
  let next = ['DB3,DWORD0.2'];
  const stop = r.follow(() => next);
  r.watch('DB9,BYTE0.2');
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'MB0.4', 'DB9,BYTE0.2', 'DB3,DWORD0.2']);
  assert.deepEqual(r.extra({ 'DB1,BYTE0.16': [0], 'MB0.4': [1], 'DB9,BYTE0.2': [2, 3], 'DB3,DWORD0.2': [4, 5] }),
    { 'DB9,BYTE0.2': [2, 3], 'DB3,DWORD0.2': [4, 5] });
  assert.equal(r.take(), null, 'the follower named the same');
  next = ['DB3,DWORD8.1', 'DB9,BYTE0.2'];
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'MB0.4', 'DB9,BYTE0.2', 'DB3,DWORD8.1'], 'an address watched already is not asked twice');
  assert.deepEqual(r.extra({ 'DB3,DWORD0.2': [4, 5], 'DB3,DWORD8.1': 6 }), { 'DB3,DWORD8.1': 6 }, 'only what this read asked for');
  stop();
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'MB0.4', 'DB9,BYTE0.2']);
});
