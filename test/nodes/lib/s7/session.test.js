'use strict';
/**
 * nodes/lib/s7/session.js over a stand-in client (test/helpers/fake-s7-client.js): one request at
 * a time, reads first when wanted, write jobs answered once, failures handed to the connection.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSession } = require('../../../../nodes/lib/s7/session');
const { createWriteQueue } = require('../../../../nodes/lib/s7/write-queue');
const { createReadPacer } = require('../../../../nodes/lib/s7/read-pacer');
const { createReadList } = require('../../../../nodes/lib/s7/read-list');
const { createFakeS7Client } = require('../../../helpers/fake-s7-client');
const { waitFor } = require('../../../helpers/nodes');

const IO = 'DB1,BYTE0.16';
const flush = () => new Promise((r) => setImmediate(r));

function setup(o = {}) {
  const counters = {
    reads: 0, readErrors: 0, lastReadMs: 0, writes: 0, writeErrors: 0, batched: 0, writeJobs: 0,
    refused: 0, expired: 0, chaseReads: 0, chaseEnds: 0, rests: 0,
  };
  const client = createFakeS7Client({ ioAddr: IO });
  let t = 0;
  const queue = createWriteQueue({ maxWrites: 100, maxBatchItems: 20, transitMs: 5, counters, now: () => t });
  // No cyclic reads within a test (cycleMs 1000 s): every read is one the session was asked for.
  const pacer = createReadPacer({ cycleMs: 1e6, chaseMs: 0, readDuty: 1, maxRestMs: 5 }, counters);
  const reads = createReadList(IO);
  const data = [];
  const failures = [];
  const session = createSession({
    client, queue, pacer, reads, counters, timeoutMs: o.timeoutMs || 1e5, ioAddrs: [IO],
    onData: (buf, extra) => data.push({ buf, extra }), onFail: (err) => failures.push(err),
  });
  const write = (items, opts = {}) => {
    const out = { state: 'waiting' };
    queue.add(items, opts, () => { out.state = 'resolved'; }, (err) => { out.state = 'rejected'; out.err = err; });
    session.kick();
    return out;
  };
  return { session, client, queue, reads, counters, data, failures, write, setTime: (v) => { t = v; } };
}

test('starts with a read; a good read reaches onData as the I/O ranges\' Buffers with the watched items', (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.reads.follow(() => ['DB3,DWORD0.64']);
  s.session.start();
  assert.equal(s.client.reads.length, 1);
  assert.deepEqual(s.client.itemLists, [[IO, 'DB3,DWORD0.64']], 'new items set before the read');
  s.client.answerRead({ io: [1, 2], extra: { 'DB3,DWORD0.64': [7], other: [9] } });
  assert.equal(s.data.length, 1);
  assert.ok(Buffer.isBuffer(s.data[0].buf[0]));
  assert.deepEqual([...s.data[0].buf[0]], [1, 2]);
  assert.deepEqual(s.data[0].extra, { 'DB3,DWORD0.64': [7] });
  assert.equal(s.counters.reads, 1);
});

test('never two requests in flight: a write waits for the read, then a read follows the write', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  const w = s.write([{ addr: 'DB1,X0.2', value: true }]);
  assert.equal(s.client.writes.length, 0, 'the read is out');
  s.client.answerRead();
  assert.equal(s.client.writes.length, 1);
  assert.equal(s.client.reads.length, 0);
  s.client.answerWrite();
  await flush();
  assert.equal(w.state, 'resolved');
  assert.equal(s.counters.writes, 1);
  assert.equal(s.counters.writeJobs, 1);
  assert.equal(s.client.reads.length, 1, 'the PLC\'s reaction is read at once');
});

test('a write the PLC refuses is rejected E_WRITE; one nodes7 will not take, E_BUSY', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  s.client.answerRead();
  const bad = s.write([{ addr: 'DB1,X0.2', value: true }]);
  s.client.answerWrite(true);
  await flush();
  assert.equal(bad.err.code, 'E_WRITE');
  s.client.answerRead();
  s.client.takesWrites = false;
  const busy = s.write([{ addr: 'DB1,X0.3', value: true }]);
  await flush();
  assert.equal(busy.err.code, 'E_BUSY');
  assert.equal(s.counters.writeErrors, 2);
  assert.equal(s.failures.length, 0, 'the connection stays');
});

test('a write whose deadline passed while it waited is dropped, never handed to the client', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  const late = s.write([{ addr: 'DB1,X0.2', value: true }], { deadline: 50 });
  const fine = s.write([{ addr: 'DB1,X0.3', value: true }], { deadline: 500 });
  s.setTime(100);
  s.client.answerRead();
  await flush();
  assert.equal(late.err.code, 'E_EXPIRED');
  assert.deepEqual(s.client.writes[0].items, [{ addr: 'DB1,X0.3', value: true }]);
  s.client.answerWrite();
  await flush();
  assert.equal(fine.state, 'resolved');
});

test('a bad read fails the connection with E_READ', (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  s.client.answerRead({ bad: true });
  assert.equal(s.failures[0].code, 'E_READ');
  assert.equal(s.counters.readErrors, 1);
  assert.equal(s.data.length, 0);
});

test('a request that never comes back fails the connection with E_TIMEOUT', async (t) => {
  const s = setup({ timeoutMs: 5 });
  t.after(() => s.session.stop());
  s.session.start();
  await waitFor(() => s.failures.length, 5000, 'the read to time out');
  assert.equal(s.failures[0].code, 'E_TIMEOUT');
  assert.match(s.failures[0].message, /read timed out/);
});

test('stop hands back the write in flight and ignores its late answer', async () => {
  const s = setup();
  s.session.start();
  s.client.answerRead();
  const w = s.write([{ addr: 'DB1,X0.2', value: true }]);
  const op = s.session.stop();
  assert.deepEqual(op.items, [{ addr: 'DB1,X0.2', value: true }]);
  s.client.answerWrite();
  await flush();
  assert.equal(w.state, 'waiting', 'the caller answers it, not the late callback');
  assert.equal(s.counters.writes, 0);
  s.write([{ addr: 'DB1,X0.3', value: true }]);
  assert.equal(s.client.writes.length, 0, 'nothing starts after stop');
  assert.equal(s.session.stop(), null);
});

test('a write nodes7 gave up on after sending it (its own packet timer) is E_OUTCOME_UNKNOWN, not E_WRITE, and the connection goes', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  s.client.answerRead();
  const w = s.write([{ addr: 'DB1,X0.2', value: true }]);
  s.client.answerWrite(true, { timedOut: true });
  await flush();
  assert.equal(w.err.code, 'E_OUTCOME_UNKNOWN', 'the request left: the PLC may apply it when it resumes');
  assert.equal(s.failures[0].code, 'E_TIMEOUT', 'the connection is rebuilt');
});

test('the deadline is checked again right before the bytes go out, after the request was built, with a margin for the transit', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start();
  s.client.answerRead();
  // Building the request took long (nodes7's buffers, a garbage collection): the deadline passed meanwhile.
  s.client.beforeSend = () => s.setTime(49);
  const late = s.write([{ addr: 'DB1,X0.2', value: true }], { deadline: 50 });
  await flush();
  assert.equal(late.err && late.err.code, 'E_EXPIRED', 'within the transit margin of its deadline: not sent');
  assert.equal(s.client.writes.length, 0);
  assert.equal(s.client.held.length, 1);
});

test('a job whose earliest deadline passes while it is built: that write is refused, the others go out in a job of their own', async (t) => {
  const s = setup();
  t.after(() => s.session.stop());
  s.session.start(); // a read is out: the writes wait and then go as one job
  const a = s.write([{ addr: 'DB1,X0.3', value: true }], { deadline: 1000 });
  const b = s.write([{ addr: 'DB1,X0.4', value: true }], { deadline: 100 });
  s.client.beforeSend = (items) => { if (items.length === 2) s.setTime(97); };
  s.client.answerRead();
  await flush();
  assert.deepEqual(s.client.held, [[{ addr: 'DB1,X0.3', value: true }, { addr: 'DB1,X0.4', value: true }]], 'the merged job never went out');
  assert.equal(b.err && b.err.code, 'E_EXPIRED');
  assert.deepEqual(s.client.writes.map((w) => w.items), [[{ addr: 'DB1,X0.3', value: true }]], 'the other went out alone, in its order');
  s.client.answerWrite();
  await flush();
  assert.equal(a.state, 'resolved');
  assert.equal(s.counters.expired, 1);
});
