'use strict';
/** nodes/lib/opcua/requests.js: Read and Write on a live session only, counted, bytes refreshed after each. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createRequests } = require('../../../../nodes/lib/opcua/requests');
const { fakeOpcua } = require('./fake-opcua');

async function setup() {
  const { opcua, world } = fakeOpcua();
  const session = await opcua.OPCUAClient.create({}).createSession({});
  const counters = { writes: 0, writeItems: 0, writeErrors: 0, reads: 0 };
  let live = session;
  let refreshed = 0;
  const r = createRequests({
    name: 'cloud', serverClocks: false, counters, live: () => live, opcua: () => opcua, refreshBytes: () => { refreshed += 1; },
  });
  return { r, world, session, counters, goDown: () => { live = null; }, refreshed: () => refreshed };
}

test('a Write of several items is one request; refused items are counted', async () => {
  const s = await setup();
  s.world.values.c1 = 'denied';
  const results = await s.r.write([{ nodeId: 'st', dataType: 'Boolean', value: true }, { nodeId: 'c1', dataType: 'Boolean', value: true }]);
  assert.deepEqual(results, [{ nodeId: 'st', status: 'Good', good: true }, { nodeId: 'c1', status: 'BadUserAccessDenied', good: false }]);
  assert.equal(s.world.writes.length, 1);
  assert.deepEqual(s.counters, { writes: 1, writeItems: 2, writeErrors: 1, reads: 0 });
  assert.equal(s.refreshed(), 1);
});

test('a failed Write is E_WRITE, every item counted as an error, bytes refreshed anyway', async () => {
  const s = await setup();
  s.world.refuse.write = 'socket closed';
  await assert.rejects(s.r.write([{ nodeId: 'a', dataType: 'Boolean', value: true }, { nodeId: 'b', dataType: 'Boolean', value: true }]),
    (err) => err.code === 'E_WRITE' && /cloud: write failed: socket closed/.test(err.message) && err.cause.message === 'socket closed');
  assert.equal(s.counters.writeErrors, 2);
  assert.equal(s.refreshed(), 1);
});

test('a Read asks for current values (maxAge 0); a failed one is E_READ', async () => {
  const s = await setup();
  s.world.values.st = true;
  const results = await s.r.read(['st', 'nope']);
  assert.deepEqual(results.map((x) => [x.nodeId, x.value, x.good, x.status, x.clock]),
    [['st', true, true, 'Good', null], ['nope', null, false, 'BadNodeIdUnknown', null]]);
  assert.equal(s.session.lastMaxAge, 0);
  assert.equal(s.counters.reads, 1);
  s.world.refuse.read = 'timeout';
  await assert.rejects(s.r.read(['st']), { code: 'E_READ' });
  assert.equal(s.refreshed(), 2);
});

test('without a live session nothing is sent: E_NOT_CONNECTED, nothing counted', async () => {
  const s = await setup();
  s.goDown();
  await assert.rejects(s.r.write([{ nodeId: 'st', dataType: 'Boolean', value: true }]), { code: 'E_NOT_CONNECTED', message: 'cloud: not connected' });
  await assert.rejects(s.r.read(['st']), { code: 'E_NOT_CONNECTED' });
  assert.deepEqual(s.counters, { writes: 0, writeItems: 0, writeErrors: 0, reads: 0 });
  assert.equal(s.world.writes.length, 0);
});
