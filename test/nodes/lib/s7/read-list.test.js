'use strict';
/** nodes/lib/s7/read-list.js: the I/O block plus watched items, and when nodes7 must be told. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReadList } = require('../../../../nodes/lib/s7/read-list');

test('take hands over the list when it changed since the last read, and only then', () => {
  const r = createReadList('DB1,BYTE0.16');
  assert.deepEqual(r.take(), ['DB1,BYTE0.16'], 'the first read hands the list over');
  assert.equal(r.take(), null, 'unchanged');
  let more = ['DB3,DWORD0.64', 'DB3,DWORD0.64', 'DB1,BYTE0.16'];
  const stop = r.follow(() => more);
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'DB3,DWORD0.64'], 'each address once');
  assert.equal(r.take(), null);
  r.touch(); // nodes7 was given other items
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'DB3,DWORD0.64']);
  more = [];
  assert.deepEqual(r.take(), ['DB1,BYTE0.16']);
  more = ['DB3,DWORD8.1'];
  stop();
  assert.equal(r.take(), null, 'no longer followed');
});

test('followers name addresses afresh for every read; extra picks the values of what the read asked for', () => {
  const r = createReadList(['DB1,BYTE0.16', 'MB0.4']);
  let next = ['DB3,DWORD0.2'];
  r.follow(() => next);
  r.follow(() => ['DB9,BYTE0.2']);
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'MB0.4', 'DB3,DWORD0.2', 'DB9,BYTE0.2']);
  assert.deepEqual(r.extra({ 'DB1,BYTE0.16': [0], 'MB0.4': [1], 'DB9,BYTE0.2': [2, 3], 'DB3,DWORD0.2': [4, 5] }),
    { 'DB9,BYTE0.2': [2, 3], 'DB3,DWORD0.2': [4, 5] });
  assert.equal(r.take(), null, 'the followers named the same');
  next = ['DB3,DWORD8.1', 'DB9,BYTE0.2'];
  assert.deepEqual(r.take(), ['DB1,BYTE0.16', 'MB0.4', 'DB3,DWORD8.1', 'DB9,BYTE0.2'], 'an address two followers name is asked once');
  assert.deepEqual(r.extra({ 'DB3,DWORD0.2': [4, 5], 'DB3,DWORD8.1': 6 }), { 'DB3,DWORD8.1': 6 }, 'only what this read asked for');
});
