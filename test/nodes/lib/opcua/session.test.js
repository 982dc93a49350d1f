'use strict';
/**
 * nodes/lib/opcua/session.js: the client session as its users see it, against a stand-in
 * node-opcua (the real one is exercised by server.test.js, probes.test.js and pulses.test.js):
 * events, items asked for before and after the first session, and the old factory name.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const path = require('node:path');
const session = require('../../../../nodes/lib/opcua/session');
const { fakeOpcua } = require('./fake-opcua');

const PKI = path.join(os.tmpdir(), 's7twin-test-session-pki');

function open(extra = {}) {
  session.resetCertificateManagers();
  const { opcua, world } = fakeOpcua();
  const s = session.createSession({ endpointUrl: 'opc.tcp://cloud:4841', name: 'cloud', pkiDir: PKI, load: () => opcua, ...extra });
  const events = [];
  s.on('status', (st) => events.push(st));
  s.on('session', () => events.push('session'));
  return { s, world, events };
}

test('connect, then status and session events; stats count the wire', async () => {
  const { s, events } = open();
  assert.equal(s.connected, false);
  await s.connect();
  assert.equal(s.connected, true);
  assert.equal(s.status, 'connected');
  assert.deepEqual(events, ['connecting', 'connected', 'session']);
  assert.equal(s.stats().bytesOut, 100);
  await s.close();
  assert.equal(s.connected, false);
});

test('items asked for before the first session are part of its first subscription, each once', async () => {
  const { s, world } = open({ monitor: ['a'] });
  await s.addMonitor(['a', 'b']);
  await s.addMonitor(['b']);
  await s.connect();
  const sub = world.sessions[0].subscriptions[0];
  assert.deepEqual(sub.calls.map(([items]) => items.map((i) => i.nodeId)), [['a', 'b']]);
  assert.equal(s.monitoredItemCount, 2);
});

test('after the first session: items go on the live subscription with their own sampling; E_NOT_CONNECTED when down', async () => {
  const { s, world } = open();
  await s.connect();
  await s.addMonitor(['r1'], { samplingIntervalMs: 0 });
  await s.addMonitor(['r1']); // asked for already: nothing to do
  const sub = world.sessions[0].subscriptions[0];
  assert.equal(sub.calls.length, 1);
  assert.equal(sub.calls[0][1].samplingInterval, 0);
  assert.deepEqual(await s.removeMonitor(['r1']), ['r1']);
  world.clients[0].emit('connection_lost');
  await assert.rejects(s.addMonitor(['r2']), { code: 'E_NOT_CONNECTED' });
  assert.deepEqual(await s.removeMonitor(['r1']), [], 'nothing removed without a live session');
  world.clients[0].emit('connection_reestablished');
  world.refuse.monitor = 'BadTooManyMonitoredItems';
  await assert.rejects(s.addMonitor(['r2']), (err) => err.code === 'E_SUBSCRIBE' && /could not monitor 1 more item/.test(err.message));
  delete world.refuse.monitor;
  await s.addMonitor(['r2']);
  assert.equal(s.monitoredItemCount, 1);
});

test('values of one publish arrive as one event; read and write go through the session', async () => {
  const { s, world } = open({ monitor: ['st'] });
  const batches = [];
  s.on('values', (b) => batches.push(b));
  await s.connect();
  world.sessions[0].subscriptions[0].groups[0].notify([['st', true], ['st', false]]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(batches.map((b) => b.map((n) => n.value)), [[true, false]]);
  world.values.st = false;
  assert.deepEqual((await s.read(['st'])).map((r) => r.value), [false]);
  assert.equal((await s.write([{ nodeId: 'st', dataType: 'Boolean', value: true }]))[0].good, true);
  assert.deepEqual({ reads: s.counters.reads, writes: s.counters.writes }, { reads: 1, writes: 1 });
});

test('bad options are E_CONFIG', () => {
  assert.throws(() => session.createSession({ endpointUrl: 'http://x' }), { code: 'E_CONFIG', name: 'OpcuaSessionError' });
});
