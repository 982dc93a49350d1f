'use strict';
/**
 * The Modbus transport's requests (twin/transports/modbus/requests.js) on a stand-in client whose
 * every request the test answers by hand: one at a time, writes first, coalescing, the poll's snap
 * then changes, probe answers, exceptions versus broken connections, answers of a connection given up.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createRequests, CMD, STATE } = require('../../../../twin/transports/modbus/requests');
const codec = require('../../../../nodes/lib/modbus/codec');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();

/** A client that records each request and leaves it pending until answered. */
function fakeClient() {
  const c = { calls: [] };
  const call = (name) => (...args) => new Promise((resolve, reject) => c.calls.push({ name, args, resolve, reject }));
  c.writeRegister = call('writeRegister');
  c.writeRegisters = call('writeRegisters');
  c.readHoldingRegisters = call('readHoldingRegisters');
  c.last = () => c.calls[c.calls.length - 1];
  return c;
}

function rig() {
  const image = {};
  const stats = { writes: 0, polls: 0, received: 0, probesSent: 0, probesAnswered: 0, coalesced: 0, exceptions: 0 };
  const seen = { values: [], probes: [], errors: [], broken: 0 };
  const requests = createRequests({
    image, stats, countError: (code) => seen.errors.push(code),
    valueCbs: [(v, kind) => seen.values.push([kind, v])], probeCbs: [(slot, v) => seen.probes.push([slot, v])],
    onBroken: () => { seen.broken += 1; },
  });
  return { image, stats, seen, requests };
}

const tick = () => new Promise((r) => setImmediate(r));
const stateWords = (values) => codec.encode(STATE.address, STATE.count, values);

test('on a new connection: the image first, then the poll, reported whole as a snap', async () => {
  const { image, stats, seen, requests } = rig();
  const c = fakeClient();
  Object.assign(image, { st: 1, se: 1 });
  requests.attach(c, true);
  assert.equal(c.calls.length, 1, 'one request at a time');
  assert.deepEqual(c.last().args, [CMD, tags.packRegister(CMD, { st: 1, se: 1 })]);
  c.last().resolve();
  await tick();
  assert.equal(stats.writes, 1);
  assert.equal(c.last().name, 'readHoldingRegisters');
  assert.deepEqual(c.last().args, [STATE.address, STATE.count]);
  c.last().resolve({ data: stateWords({ grn: 1, ng: 3 }) });
  await tick();
  assert.equal(seen.values[0][0], 'snap');
  assert.equal(seen.values[0][1].grn, 1);
  assert.equal(seen.values[0][1].ng, 3);
  requests.pollDue();
  c.last().resolve({ data: stateWords({ grn: 1, ng: 4 }) });
  await tick();
  assert.deepEqual(seen.values[1], ['state', { ng: 4 }], 'then only what changed');
  requests.pollDue();
  c.last().resolve({ data: stateWords({ grn: 1, ng: 4 }) });
  await tick();
  assert.equal(seen.values.length, 2, 'nothing changed: nothing reported');
  assert.equal(stats.polls, 3);
});

test('changes while a request is in flight are coalesced into one write of the whole image; writes go first', async () => {
  const { image, stats, requests } = rig();
  const c = fakeClient();
  requests.attach(c, false);
  assert.equal(c.last().name, 'readHoldingRegisters', 'nothing to write: the poll');
  image.st = 1;
  requests.command();
  image.se = 1;
  requests.command();
  image.sp = 1;
  requests.command();
  assert.equal(c.calls.length, 1, 'the writes wait for the poll in flight');
  assert.equal(stats.coalesced, 2);
  c.last().resolve({ data: stateWords({}) });
  await tick();
  assert.equal(c.last().name, 'writeRegister');
  assert.deepEqual(c.last().args, [CMD, tags.packRegister(CMD, { st: 1, se: 1, sp: 1 })], 'one write with the whole image');
  requests.pollDue();
  requests.probe(2, 0x10002);
  image.st = 0;
  requests.command();
  c.last().resolve();
  await tick();
  assert.equal(c.last().name, 'writeRegister', 'a due write goes before the probe and the poll');
  c.last().resolve();
  await tick();
  assert.equal(c.last().name, 'writeRegisters', 'then the probe');
  assert.deepEqual(c.last().args, [codec.PROBE_REQUEST_BASE + 4, [1, 2]], 'a UDInt, high word first');
  c.last().resolve();
  await tick();
  assert.equal(c.last().name, 'readHoldingRegisters', 'then the poll');
  assert.equal(stats.probesSent, 1);
  assert.equal(stats.writes, 2);
  assert.equal(c.calls.length, 5);
});

test('a probe is answered once its response register holds the value written', async () => {
  const { stats, seen, requests } = rig();
  const c = fakeClient();
  requests.attach(c, false);
  c.last().resolve({ data: stateWords({}) }); // the first poll
  await tick();
  requests.probe(1, 0xdeadbeef);
  assert.equal(c.last().name, 'writeRegisters');
  c.last().resolve(); // the probe write
  await tick();
  requests.pollDue();
  c.last().resolve({ data: stateWords({}) });
  await tick();
  assert.deepEqual(c.last().args, [codec.PROBE_RESPONSE_BASE + 2, 2]);
  c.last().resolve({ data: [0, 0] }); // not there yet
  await tick();
  assert.equal(requests.pendingProbes, 1);
  requests.pollDue();
  c.last().resolve({ data: stateWords({}) });
  await tick();
  c.last().resolve({ data: [0xdead, 0xbeef] });
  await tick();
  assert.deepEqual(seen.probes, [[1, 0xdeadbeef]]);
  assert.equal(stats.probesAnswered, 1);
  assert.equal(requests.pendingProbes, 0);
});

test('a Modbus exception is an answer; a timeout breaks the connection; a late answer of a connection given up is ignored', async () => {
  const { image, stats, seen, requests } = rig();
  const c = fakeClient();
  image.st = 1;
  requests.attach(c, true);
  c.last().reject(Object.assign(new Error('Illegal data address'), { modbusCode: 2 }));
  await tick();
  assert.equal(stats.exceptions, 1);
  assert.deepEqual(seen.errors, ['E_MODBUS_EXCEPTION_2']);
  assert.equal(seen.broken, 0);
  assert.equal(c.last().name, 'readHoldingRegisters', 'the next request goes on');
  c.last().reject(Object.assign(new Error('Timed out'), { errno: 'ETIMEDOUT' }));
  await tick();
  assert.deepEqual(seen.errors, ['E_MODBUS_EXCEPTION_2', 'E_TIMEOUT']);
  assert.equal(seen.broken, 1, 'the transport drops the connection');

  // Given up while a request was in flight: a new connection's requests are not held up by it.
  const d = fakeClient();
  requests.attach(d, true);
  const inFlight = d.last();
  requests.detach();
  const e = fakeClient();
  requests.attach(e, true);
  assert.equal(e.calls.length, 1);
  inFlight.resolve();
  await tick();
  assert.equal(e.calls.length, 1, 'the old answer freed nothing');
  e.last().resolve();
  await tick();
  assert.equal(e.calls.length, 2, 'the new connection\'s own answer does');
});
