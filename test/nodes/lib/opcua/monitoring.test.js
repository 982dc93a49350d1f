'use strict';
/**
 * nodes/lib/opcua/monitoring.js: the subscription of a client session and its items, against a
 * stand-in node-opcua session: one batch per publish, each node id asked for once, groups that go
 * only together.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createMonitoring } = require('../../../../nodes/lib/opcua/monitoring');
const { sessionOptions } = require('../../../../nodes/lib/opcua/session-options');
const { fakeOpcua } = require('./fake-opcua');

function setup(extra = {}) {
  const { opcua, world } = fakeOpcua();
  const o = sessionOptions({ endpointUrl: 'opc.tcp://h:1', ...extra });
  const counters = { notifications: 0, removeErrors: 0 };
  const batches = [];
  const m = createMonitoring({ o, counters, onValues: (b) => batches.push(b) });
  return { opcua, world, m, counters, batches };
}

const tick = () => new Promise((r) => setImmediate(r));

test('the first items are subscribed with the session; the changes of one publish arrive as one batch', async () => {
  const s = setup({ monitor: ['a', 'b'], samplingIntervalMs: 5, publishingIntervalMs: 20 });
  assert.equal(s.m.wanted, true);
  const session = await s.opcua.OPCUAClient.create({}).createSession({});
  await s.m.subscribe(session, s.opcua);
  const sub = session.subscriptions[0];
  assert.equal(sub.params.requestedPublishingInterval, 20);
  const [items, params, timestamps] = sub.calls[0];
  assert.deepEqual(items, [{ nodeId: 'a', attributeId: 13 }, { nodeId: 'b', attributeId: 13 }]);
  assert.equal(params.samplingInterval, 5);
  assert.equal(timestamps, s.opcua.TimestampsToReturn.Source, 'source timestamps order a publish');
  assert.equal(s.m.itemCount, 2);
  assert.deepEqual(s.m.revised, { publishingIntervalMs: 20, samplingIntervalMs: 5 });

  sub.groups[0].notify([['a', true], ['b', 3]]);
  sub.groups[0].notify([['a', false]]);
  assert.equal(s.batches.length, 0, 'handed on after the publish, not item by item');
  await tick();
  assert.equal(s.batches.length, 1);
  assert.deepEqual(s.batches[0].map((n) => [n.nodeId, n.value, n.clock]), [['a', true, null], ['b', 3, null], ['a', false, null]]);
  assert.equal(s.counters.notifications, 3);
  sub.groups[0].notify([['b', 4]]);
  await tick();
  assert.equal(s.batches.length, 2, 'the next publish is the next batch');
});

test('with server clocks the items ask for both timestamps and notifications carry the clock', async () => {
  const s = setup({ monitor: ['a'], serverClocks: true });
  const session = await s.opcua.OPCUAClient.create({}).createSession({});
  await s.m.subscribe(session, s.opcua);
  assert.equal(session.subscriptions[0].calls[0][2], s.opcua.TimestampsToReturn.Both);
  session.subscriptions[0].groups[0].notify([['a', 1, { serverTimestamp: new Date(2000), serverPicoseconds: 3 }]]);
  await tick();
  assert.equal(s.batches[0][0].clock, 2000n * 1000000000n + 3n);
});

test('ids asked for are never asked again; before the first session they join the first subscription', () => {
  const s = setup({ monitor: ['a'] });
  assert.deepEqual(s.m.unasked(['a', 'b', 'c']), ['b', 'c']);
  s.m.askFirst(['b']);
  assert.deepEqual(s.m.unasked(['a', 'b', 'c']), ['c']);
  const empty = setup();
  assert.equal(empty.m.wanted, false);
  empty.m.askFirst(['x']);
  assert.equal(empty.m.wanted, true);
});

test('add makes the subscription once for calls that wait together; a failed add can be tried again', async () => {
  const s = setup();
  const session = await s.opcua.OPCUAClient.create({}).createSession({});
  await Promise.all([s.m.add(session, s.opcua, ['r1'], 0), s.m.add(session, s.opcua, ['r2'], 0)]);
  assert.equal(session.subscriptions.length, 1);
  assert.equal(s.m.itemCount, 2);
  assert.equal(session.subscriptions[0].calls[0][1].samplingInterval, 0);
  assert.deepEqual(s.m.unasked(['r1', 'r2']), []);

  s.world.refuse.monitor = 'BadTooManyMonitoredItems';
  await assert.rejects(s.m.add(session, s.opcua, ['r3'], 10), /BadTooManyMonitoredItems/);
  assert.deepEqual(s.m.unasked(['r3']), ['r3'], 'not asked for any more: a later call tries again');
  delete s.world.refuse.monitor;
  await s.m.add(session, s.opcua, ['r3'], 10);
  assert.equal(s.m.itemCount, 3);
});

test('remove deletes only groups whose every id is given, only while live; a failed delete is counted and kept', async () => {
  const s = setup();
  const session = await s.opcua.OPCUAClient.create({}).createSession({});
  await s.m.add(session, s.opcua, ['a', 'b'], 10);
  await s.m.add(session, s.opcua, ['c'], 10);
  assert.deepEqual(await s.m.remove(['a', 'c'], () => true), ['c'], 'a goes only with b');
  assert.equal(s.m.itemCount, 2);
  assert.deepEqual(await s.m.remove(['a', 'b'], () => false), [], 'nothing without a live session');
  s.world.refuse.terminate = 'BadSessionClosed';
  assert.deepEqual(await s.m.remove(['a', 'b'], () => true), []);
  assert.equal(s.counters.removeErrors, 1);
  delete s.world.refuse.terminate;
  assert.deepEqual(await s.m.remove(['a', 'b'], () => true), ['a', 'b']);
  assert.equal(s.m.itemCount, 0);
  assert.deepEqual(s.m.unasked(['a', 'c']), ['a', 'c'], 'removed ids may be added again');
  s.m.clear();
  assert.deepEqual(s.m.revised, { publishingIntervalMs: null, samplingIntervalMs: null });
});
