'use strict';
/** nodes/lib/s7/reconnector.js: fresh client per attempt, failures torn down, back-off retries. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReconnector } = require('../../../../nodes/lib/s7/reconnector');
const { createFakeS7Client } = require('../../../helpers/fake-s7-client');
const { waitFor } = require('../../../helpers/nodes');

function setup(o = {}) {
  const clients = [];
  const events = [];
  const errors = [];
  const counters = { connects: 0, reconnects: 0 };
  const backoff = { nexts: 0, ups: 0, downs: 0, next() { this.nexts += 1; return 0; }, connected() { this.ups += 1; }, disconnected() { this.downs += 1; } };
  const r = createReconnector({
    o: { host: 'plc', port: 102, timeoutMs: 1e5, ...o }, counters, backoff,
    open: () => { const c = createFakeS7Client(); clients.push(c); return c; },
    onConnecting: () => events.push('connecting'),
    onUp: (c) => events.push(['up', clients.indexOf(c)]),
    onDown: (err, wasUp) => { errors.push(err); events.push(['down', err.code, wasUp]); },
  });
  return { r, clients, events, errors, counters, backoff };
}

test('connects, and after a loss tears the client down and connects a fresh one', async (t) => {
  const s = setup();
  t.after(() => s.r.close());
  s.r.start();
  s.r.start(); // idempotent
  assert.equal(s.clients.length, 1);
  s.clients[0].up();
  assert.deepEqual(s.events, ['connecting', ['up', 0]]);
  assert.equal(s.counters.connects, 1);
  s.clients[0].drop();
  assert.equal(s.clients[0].destroyed, true);
  assert.deepEqual(s.events[2], ['down', 'E_PLC_DOWN', true]);
  assert.equal(s.backoff.downs, 1);
  await waitFor(() => s.clients.length === 2, 5000, 'a second attempt');
  s.clients[1].up();
  assert.equal(s.counters.connects, 2);
  assert.equal(s.counters.reconnects, 1);
});

test('a refused attempt reports E_CONNECT (not up before) and retries', async (t) => {
  const s = setup();
  t.after(() => s.r.close());
  s.r.start();
  s.clients[0].refuse(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }));
  assert.deepEqual(s.events[1], ['down', 'E_CONNECT', false]);
  assert.equal(s.backoff.downs, 0, 'no connection was lost');
  await waitFor(() => s.clients.length === 2, 5000, 'a second attempt');
  assert.equal(s.counters.connects, 0);
});

test('an attempt that hangs fails after the timeout plus a second', async (t) => {
  const s = setup({ timeoutMs: 1 });
  t.after(() => s.r.close());
  s.r.start();
  await waitFor(() => s.events.length > 1, 10000, 'the attempt to time out');
  assert.equal(s.events[1][1], 'E_CONNECT');
  assert.match(s.errors[0].message, /no S7 connection to plc:102 within 1 ms/);
  assert.equal(s.clients[0].destroyed, true);
});

test('failures of a client already replaced are ignored; close stops retrying and hands back the client', async () => {
  const s = setup();
  s.r.start();
  s.clients[0].up();
  const first = s.clients[0];
  s.r.fail(first, new Error('gone'));
  const n = s.events.length;
  s.r.fail(first, new Error('gone again'));
  assert.equal(s.events.length, n, 'one loss, one report');
  await waitFor(() => s.clients.length === 2, 5000, 'a second attempt');
  assert.equal(s.r.close(), s.clients[1]);
  s.clients[1].up(); // too late: closed
  assert.equal(s.events.filter((e) => e[0] === 'up').length, 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(s.clients.length, 2, 'no attempt after close');
});
