'use strict';
/**
 * plc/s7-own-client.js with a stand-in node-snap7 client and server: one job at a time, the
 * items as snap7 variables, and while the connection is down the write-back without it and a
 * reconnect.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOwnClient, toVars, keysOf } = require('../../plc/s7-own-client');
const { createPushQueue } = require('../../plc/s7-push');
const { waitFor } = require('../helpers/plc');

const CONST = { S7AreaDB: 0x84, S7AreaMK: 0x83, S7WLBit: 1, S7WLByte: 2 };

function setup() {
  const jobs = []; // pending WriteMultiVars: {vars, cb}
  const connects = []; // pending ConnectTo callbacks
  const log = [];
  const client = {
    ...CONST,
    WriteMultiVars(vars, cb) { jobs.push({ vars, cb }); },
    Disconnect() { log.push('disconnect'); },
    ConnectTo(host, rack, slot, cb) { log.push(`connect ${host}`); connects.push(cb); },
  };
  const areas = { 1: Buffer.alloc(16), 2: Buffer.alloc(16) };
  const getArea = (e) => { assert.equal(e.area, 'DB'); return Buffer.from(areas[e.db]); };
  const setArea = (e, buf) => { assert.equal(e.area, 'DB'); areas[e.db] = Buffer.from(buf); };
  const mask = Buffer.alloc(16);
  const queue = createPushQueue({ mask, ioDb: 1, reqDb: 2 });
  const announced = [];
  const events = {
    writing: (k) => announced.push(['writing', ...k]), writeFailed: (k) => announced.push(['failed', ...k]),
    connecting: () => announced.push(['connecting']), connectFailed: () => announced.push(['connectFailed']),
    disconnecting: () => announced.push(['disconnecting']),
  };
  const counters = { s7PushJobs: 0, s7PushErrors: 0, s7PushFallbacks: 0 };
  const own = createOwnClient({ client, getArea, setArea, queue, events, counters, host: '127.0.0.1', backoff: { initialMs: 1, maxMs: 1 } });
  return { own, queue, jobs, connects, log, areas, announced, counters };
}

test('toVars and keysOf: bits as single bits, bytes as byte ranges, of a data block or the M area', () => {
  const items = [{ area: 'DB', db: 1, start: 2, bit: 3, data: Buffer.from([1]) }, { area: 'DB', db: 2, start: 8, bit: -1, data: Buffer.alloc(8) },
    { area: 'M', db: 0, start: 10, bit: -1, data: Buffer.alloc(2) }];
  assert.deepEqual(toVars(CONST, items).map(({ Data, ...v }) => v), [
    { Area: 0x84, DBNumber: 1, Amount: 1, WordLen: 1, Start: 19 },
    { Area: 0x84, DBNumber: 2, Amount: 8, WordLen: 2, Start: 8 },
    { Area: 0x83, DBNumber: 0, Amount: 2, WordLen: 2, Start: 10 },
  ]);
  assert.deepEqual(keysOf(items), ['1:2:1', '2:8:8', '0:10:2']);
});

test('one job at a time: what is queued meanwhile goes in the next job', async (t) => {
  const s = setup();
  t.after(() => s.own.stop());
  s.queue.probe(0, 7);
  s.own.flush();
  s.queue.probe(1, 8);
  s.own.flush();
  assert.equal(s.jobs.length, 1, 'the second waits');
  assert.deepEqual(s.announced[0], ['writing', '2:0:4']);
  s.jobs.shift().cb(null, [{ Result: 0 }]);
  assert.equal(s.jobs.length, 1, 'the next job follows at once');
  assert.equal(s.jobs[0].vars[0].Start, 4);
  s.jobs.shift().cb(null, []);
  assert.equal(s.counters.s7PushJobs, 2);
  assert.equal(s.counters.s7PushErrors, 0);
});

test('a failed job: its entries written back without the client, then a reconnect and the client again', async (t) => {
  const s = setup();
  t.after(() => s.own.stop());
  s.queue.probe(2, 0x01020304);
  s.own.flush();
  s.jobs.shift().cb(new Error('connection lost'));
  assert.equal(s.own.up, false);
  assert.deepEqual([...s.areas[2].subarray(8, 12)], [1, 2, 3, 4], 'written back by GetArea/SetArea');
  assert.equal(s.counters.s7PushFallbacks, 1);
  assert.equal(s.counters.s7PushErrors, 1);
  assert.deepEqual(s.announced.slice(1, 3), [['failed', '2:8:4'], ['disconnecting']]);
  s.queue.probe(3, 9);
  s.own.flush(); // down: written back at once
  assert.equal(s.areas[2][15], 9);
  await waitFor(() => s.connects.length === 1, 5000, 'a reconnect');
  s.connects.shift()(null);
  assert.equal(s.own.up, true);
  s.queue.probe(4, 1);
  s.own.flush();
  assert.equal(s.jobs.length, 1, 'through the client again');
  s.jobs.shift().cb(null, []); // answered: stop() has nothing to wait for
});

test('a reconnect that fails is retried; stop ends the retries and waits for the call in flight', async () => {
  const s = setup();
  s.queue.probe(0, 1);
  s.own.flush();
  s.jobs.shift().cb(new Error('lost'));
  await waitFor(() => s.connects.length === 1, 5000, 'a reconnect');
  s.connects.shift()(new Error('refused'));
  assert.ok(s.announced.some((a) => a[0] === 'connectFailed'));
  await waitFor(() => s.connects.length === 1, 5000, 'another reconnect');
  let stopped = false;
  const stopping = s.own.stop().then(() => { stopped = true; });
  await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, 'the connect call is still in flight');
  s.connects.shift()(null);
  await stopping;
  assert.equal(s.own.up, false, 'a connect answered after stop changes nothing');
});
