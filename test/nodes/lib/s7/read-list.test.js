'use strict';
/** nodes/lib/s7/read-list.js: the I/O block plus watched items, and when nodes7 must be told. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReadList } = require('../../../../nodes/lib/s7/read-list');

test('watching and unwatching changes the list and marks it dirty; repeats change nothing', () => {
  const r = createReadList('DB1,BYTE0.16');
  assert.deepEqual(r.list(), ['DB1,BYTE0.16']);
  assert.equal(r.dirty, false);
  r.watch('DB3,DWORD0.64');
  assert.equal(r.dirty, true);
  r.clean();
  r.watch('DB3,DWORD0.64');
  assert.equal(r.dirty, false, 'already watched');
  r.unwatch('DB3,DWORD256.64');
  assert.equal(r.dirty, false, 'never watched');
  r.watch('DB3,DWORD256.64');
  assert.deepEqual(r.list(), ['DB1,BYTE0.16', 'DB3,DWORD0.64', 'DB3,DWORD256.64']);
  r.clean();
  r.unwatch('DB3,DWORD0.64');
  assert.equal(r.dirty, true);
  assert.deepEqual(r.list(), ['DB1,BYTE0.16', 'DB3,DWORD256.64']);
});

test('extra picks the watched items a read returned', () => {
  const r = createReadList('DB1,BYTE0.16');
  r.watch('DB3,DWORD0.64');
  r.watch('DB3,DWORD256.64');
  assert.deepEqual(r.extra({ 'DB1,BYTE0.16': [0], 'DB3,DWORD0.64': [1, 2] }), { 'DB3,DWORD0.64': [1, 2] });
});
