'use strict';
/**
 * lib/link/heartbeat.js: a sync at once and then every heartbeat, a silent cloud cut off, and the
 * cloud's answers turned into a clock-offset estimate (no estimate: no local deadline).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const clock = require('../../../../nodes/lib/core/clock');
const { createHeartbeat } = require('../../../../nodes/lib/link/heartbeat');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const counters = () => ({ framesOut: 0, bytesOut: 0, timeouts: 0, syncs: 0, syncRttMs: null, offsetMs: null, offsetUncertaintyMs: null });

test('a sync goes at once on start and then every heartbeat; stop ends them', async (t) => {
  const c = counters();
  const hb = createHeartbeat({ sender: envelope.createSender('edge-link'), heartbeatMs: 10, linkTimeoutMs: 60000, counters: c });
  t.after(() => hb.stop());
  const conn = fakeConnection();
  hb.start(conn);
  assert.deepEqual(conn.frames().map((f) => f.k), ['sync'], 'the first sync goes at once');
  await waitFor(() => conn.sent.length >= 3);
  assert.equal(c.framesOut, conn.sent.length);
  hb.stop();
  const n = conn.sent.length;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(conn.sent.length, n);
});

test('a cloud silent for linkTimeoutMs is cut off; one heard from is kept', async (t) => {
  const c = counters();
  const hb = createHeartbeat({ sender: envelope.createSender('edge-link'), heartbeatMs: 10, linkTimeoutMs: 80, counters: c });
  t.after(() => hb.stop());
  const heard = fakeConnection();
  hb.start(heard);
  const keep = setInterval(() => hb.heard(), 10);
  await waitFor(() => heard.sent.length >= 15);
  clearInterval(keep);
  assert.equal(heard.terminated, false);
  await waitFor(() => heard.terminated, 5000, 'the silent cloud to be cut off');
  assert.equal(c.timeouts, 1);
});

test('answers to syncs give the clock-offset estimate; a new connection starts without one', (t) => {
  const c = counters();
  const hb = createHeartbeat({ sender: envelope.createSender('edge-link'), heartbeatMs: 60000, linkTimeoutMs: 60000, counters: c });
  t.after(() => hb.stop());
  const conn = fakeConnection();
  hb.start(conn);
  assert.equal(hb.localDeadline(clock.now() + 1000), null, 'no estimate: nothing may be written');
  const t1 = clock.now();
  hb.onSyncRes({ ts: t1 + 2, d: { t1, t2: t1 + 1 } }, t1 + 3);
  assert.equal(c.syncs, 1);
  assert.equal(typeof c.offsetMs, 'number');
  assert.ok(c.syncRttMs >= 0);
  const dl = hb.localDeadline(t1 + 1000);
  assert.ok(dl !== null && dl <= t1 + 1000);
  assert.ok(hb.estimate());
  hb.start(fakeConnection());
  assert.equal(hb.localDeadline(t1 + 1000), null, 'samples of an earlier connection do not bound the new one');
});

test('a stepped wall clock changes nothing: a cloud that goes silent as the clock steps back is still cut off', async (t) => {
  const c = counters();
  const realNow = Date.now;
  t.after(() => { Date.now = realNow; });
  const hb = createHeartbeat({ sender: envelope.createSender('edge-link'), heartbeatMs: 10, linkTimeoutMs: 80, counters: c });
  t.after(() => hb.stop());
  const conn = fakeConnection();
  hb.start(conn);
  hb.heard();
  Date.now = () => realNow() - 600000; // NTP (or a person) steps the clock back 10 minutes
  await waitFor(() => conn.terminated, 3000, 'the silent cloud to be cut off');
});
