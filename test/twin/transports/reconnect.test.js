'use strict';
/** The link counted up and down, and retries after a back-off (twin/transports/reconnect.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReconnect } = require('../../../twin/transports/reconnect');

/** A back-off that records what it was told and always waits `ms`. */
function fakeBackoff(ms = 5) {
  const calls = [];
  return { calls, next: () => { calls.push('next'); return ms; }, connected: () => calls.push('connected'), disconnected: () => calls.push('disconnected') };
}

test('up and down count connects and reconnects, and tell the back-off', () => {
  const stats = { connected: false, connects: 0, reconnects: 0 };
  const backoff = fakeBackoff();
  const rc = createReconnect({ stats, backoff, open: () => {} });
  assert.equal(rc.down(), false, 'down before any connection: it had not been up');
  assert.deepEqual(backoff.calls, [], 'the back-off hears of a drop only after a connection');
  assert.equal(rc.up(), false, 'the first connection is not a reconnect');
  assert.deepEqual(stats, { connected: true, connects: 1, reconnects: 0 });
  assert.equal(rc.down(), true);
  assert.equal(stats.connected, false);
  assert.equal(rc.up(), true, 'the second one is');
  assert.deepEqual(stats, { connected: true, connects: 2, reconnects: 1 });
  assert.deepEqual(backoff.calls, ['connected', 'disconnected', 'connected']);
});

test('schedule makes one attempt after the back-off, tells onWait, and none after close', async () => {
  const stats = {};
  const backoff = fakeBackoff(5);
  let opens = 0;
  const waits = [];
  const rc = createReconnect({ stats, backoff, open: () => { opens += 1; }, onWait: (ms) => waits.push(ms) });
  assert.equal(stats.connects, 0, 'the counters exist from the start');
  rc.schedule();
  rc.schedule(); // one at a time
  assert.equal(rc.pending, true);
  assert.deepEqual(waits, [5]);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(opens, 1);
  assert.equal(rc.pending, false);
  rc.schedule();
  rc.close();
  assert.equal(rc.pending, false, 'close cancels the scheduled attempt');
  assert.equal(rc.closed, true);
  rc.schedule();
  assert.equal(rc.pending, false, 'no attempt is scheduled once closed');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(opens, 1);
  assert.equal(backoff.calls.filter((c) => c === 'next').length, 2);
});
