'use strict';
/**
 * nodes/lib/opcua/probe-writer.js: the probe relay's writer to one side, against a stand-in
 * session: the latest value per slot, bounded Writes, what the side has not written again, and
 * what could not be written dropped (PLC) or kept unless newer (cloud).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createProbeWriter } = require('../../../../nodes/lib/opcua/probe-writer');

function setup({ keepUnwritten = false, maxItemsPerWrite = 256 } = {}) {
  const side = {
    connected: true,
    writes: [],
    fail: null,
    refuse: new Set(),
    async write(items) {
      if (this.fail) { const e = this.fail; this.fail = null; throw e; }
      this.writes.push(items.map((i) => [i.nodeId, i.value, i.dataType]));
      return items.map((i) => (this.refuse.has(i.nodeId) ? { good: false, status: 'BadTypeMismatch' } : { good: true, status: 'Good' }));
    },
  };
  const counters = { toCloud: 0, toCloudWrites: 0, unchanged: 0, dropped: 0, writeErrors: 0 };
  const errors = [];
  let stopped = false;
  const writer = createProbeWriter({
    side, nodeIdOf: (i) => `Res[${i}]`, maxItemsPerWrite, counters, countAs: { values: 'toCloud', writes: 'toCloudWrites' },
    keepUnwritten, isStopped: () => stopped, fail: (e) => errors.push(e),
    refusedError: (slot, status) => Object.assign(new Error(`slot ${slot}: ${status}`), { code: 'E_WRITE_REFUSED' }),
  });
  return { writer, side, counters, errors, stop: () => { stopped = true; } };
}

const drain = () => new Promise((r) => setTimeout(r, 5));

test('the latest value per slot, all pending slots in one UInt32 Write; a value the side has is not written again', async () => {
  const s = setup();
  s.writer.set(1, 10);
  s.writer.set(2, 20);
  s.writer.set(1, 11); // only the newest request of a slot matters
  s.writer.flush();
  await drain();
  assert.deepEqual(s.side.writes, [[['Res[1]', 11, 'UInt32'], ['Res[2]', 20, 'UInt32']]]);
  assert.deepEqual([s.counters.toCloud, s.counters.toCloudWrites], [2, 1]);
  s.writer.set(1, 11);
  s.writer.flush();
  await drain();
  assert.equal(s.side.writes.length, 1);
  assert.equal(s.counters.unchanged, 1);
});

test('at most maxItemsPerWrite slots per Write', async () => {
  const s = setup({ maxItemsPerWrite: 2 });
  for (let i = 0; i < 5; i++) s.writer.set(i, i + 1);
  s.writer.flush();
  await drain();
  assert.deepEqual(s.side.writes.map((w) => w.length), [2, 2, 1]);
});

test('PLC: a failed Write is dropped and counted; a side that went away loses what is pending', async () => {
  const s = setup();
  s.side.fail = new Error('socket closed');
  s.writer.set(1, 5);
  s.writer.flush();
  await drain();
  assert.deepEqual([s.counters.dropped, s.counters.writeErrors, s.errors.length, s.writer.queued], [1, 1, 1, 0]);
  s.side.connected = false;
  s.writer.set(2, 6);
  s.writer.flush();
  await drain();
  assert.equal(s.counters.dropped, 2);
  assert.equal(s.writer.queued, 0);
});

test('cloud: a failed Write is kept unless a newer value came; a new session gets the responses back', async () => {
  const s = setup({ keepUnwritten: true });
  s.side.fail = new Error('timeout');
  s.writer.set(1, 5);
  s.writer.set(2, 6);
  const first = s.writer.flush();
  s.writer.set(2, 7); // arrives while the failing Write runs
  await first;
  assert.equal(s.counters.dropped, 0);
  assert.equal(s.writer.queued, 2);
  s.writer.flush();
  await drain();
  assert.deepEqual(s.side.writes.at(-1), [['Res[2]', 7, 'UInt32'], ['Res[1]', 5, 'UInt32']]);
  s.writer.resync(new Map([[1, 5], [3, 9]])); // what it had is forgotten: slot 1 is written again
  await drain();
  assert.deepEqual(s.side.writes.at(-1), [['Res[1]', 5, 'UInt32'], ['Res[3]', 9, 'UInt32']]);
});

test('a refused slot is reported with its error and not believed written; nothing is written once stopped', async () => {
  const s = setup();
  s.side.refuse.add('Res[4]');
  s.writer.set(4, 1);
  s.writer.set(5, 1);
  s.writer.flush();
  await drain();
  assert.equal(s.errors[0].code, 'E_WRITE_REFUSED');
  assert.equal(s.counters.toCloud, 1);
  s.side.refuse.clear();
  s.writer.set(4, 1);
  s.writer.flush();
  await drain();
  assert.deepEqual(s.side.writes.at(-1), [['Res[4]', 1, 'UInt32']], 'written again: the refused one was not believed written');
  s.stop();
  s.writer.set(6, 1);
  s.writer.flush();
  await drain();
  assert.equal(s.side.writes.length, 2);
});
