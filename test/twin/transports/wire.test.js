'use strict';
/** Bytes on the wire, counted on the sockets a transport used (twin/transports/wire.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWireCounter } = require('../../../twin/transports/wire');

function sock(read = 0, written = 0) {
  return { bytesRead: read, bytesWritten: written, noDelay: false, setNoDelay(v) { this.noDelay = v; } };
}

test('live sockets are read live, retired ones add what they carried, each socket once', () => {
  const done = { in: 100, out: 50 };
  const w = createWireCounter(done);
  const a = sock(10, 20);
  const b = sock(1, 2);
  assert.equal(w.add(a), true);
  assert.equal(w.add(a), false, 'the same socket again: counted once');
  assert.equal(a.noDelay, true, 'TCP_NODELAY on every socket');
  w.add(b, { noDelay: false });
  assert.equal(b.noDelay, false, 'unless told otherwise');
  assert.deepEqual(w.bytes(), { in: 111, out: 72 });
  a.bytesRead = 30;
  assert.deepEqual(w.bytes(), { in: 131, out: 72 }, 'a live socket is read when asked');
  w.retire(a);
  assert.deepEqual(done, { in: 130, out: 70 }, 'the totals object holds the retired sockets');
  a.bytesRead = 1000;
  assert.deepEqual(w.bytes(), { in: 131, out: 72 }, 'a retired socket no longer counts');
  assert.equal(w.add(a), false, 'nor comes back');
  w.retire();
  assert.equal(w.live, 0);
  assert.deepEqual(w.bytes(), { in: 131, out: 72 });
});

test('use keeps one socket: the previous one is retired', () => {
  const w = createWireCounter();
  const a = sock(5, 5);
  const b = sock(7, 7);
  assert.equal(w.use(a), true);
  assert.equal(w.use(a), false, 'the socket in use already');
  w.use(b);
  assert.equal(w.live, 1);
  a.bytesRead = 500; // after its retirement: not counted
  assert.deepEqual(w.bytes(), { in: 12, out: 12 });
  assert.equal(w.use(null), false);
});
