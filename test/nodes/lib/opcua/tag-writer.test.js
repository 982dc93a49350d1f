'use strict';
/**
 * nodes/lib/opcua/tag-writer.js: the tag bridge's writer to one side, against a stand-in session:
 * values that changed together go in one Write, a pulse is replayed in order and held, what the
 * side has is not written again, and what could not be written is dropped (PLC) or kept (cloud).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();
const ot = require('../../../../nodes/lib/opcua/tags');
const { createTagWriter, inTimeOrder, addToFrames } = require('../../../../nodes/lib/opcua/tag-writer');

const good = { isGood: () => true };
const bad = { isGood: () => false };

/** A session that records each Write; `answer` decides the results (default: all good). */
function fakeSide() {
  return {
    connected: true,
    writes: [],
    answer: null,
    async write(items) {
      this.writes.push(items.map((i) => [i.nodeId, i.value]));
      if (this.answer) return this.answer(items);
      return items.map((i) => ({ nodeId: i.nodeId, status: 'Good', good: true }));
    },
  };
}

function setup({ keepUnwritten = false, maxFrames = 64 } = {}) {
  const side = fakeSide();
  const counters = { toPlc: 0, toPlcWrites: 0, unchanged: 0, pulses: 0, merged: 0, dropped: 0, writeErrors: 0 };
  const errors = [];
  const forwarded = [];
  const holds = [];
  let stopped = false;
  const writer = createTagWriter({
    name: 'plc', side, nodeIdOf: (k) => ot.plcNodeId(k), counters, countAs: { values: 'toPlc', writes: 'toPlcWrites' },
    keepUnwritten, pulseHoldMs: 20, maxFrames, isStopped: () => stopped,
    wait: async (ms) => { holds.push(ms); }, fail: (e) => errors.push(e), onForward: (v) => forwarded.push(v),
  });
  return { writer, side, counters, errors, forwarded, holds, stop: () => { stopped = true; } };
}

const drain = () => new Promise((r) => setTimeout(r, 5));

test('notifications in time order, bad and unknown ones left out; a value that changes again starts a new frame', () => {
  const sd = tags.get('sd');
  const ordered = inTimeOrder([[sd, { status: good, ts: 30, v: 'c' }], [undefined, { status: good, ts: 1 }], [sd, { status: bad, ts: 2 }],
    [sd, { status: good, ts: 10, v: 'a' }], [sd, { status: good, v: 'first' }], [sd, { status: good, ts: 20, v: 'b' }]]);
  assert.deepEqual(ordered.map(([, n]) => n.v), ['first', 'a', 'b', 'c'], 'no timestamp keeps its place before the others');
  const frames = [];
  assert.equal(addToFrames(frames, 'sd', 1), false);
  assert.equal(addToFrames(frames, 'dmg', 1), false);
  assert.equal(addToFrames(frames, 'sd', 1), false, 'the same value again is no pulse');
  assert.equal(addToFrames(frames, 'sd', 0), true);
  assert.equal(addToFrames(frames, 'sd', 1), true);
  assert.deepEqual(frames, [{ sd: 1, dmg: 1 }, { sd: 0 }, { sd: 1 }]);
});

test('values pushed together go in one Write, typed for OPC UA; a value the side has is not written again', async () => {
  const s = setup();
  s.writer.push('dmg', 1);
  s.writer.push('sd', 1);
  s.writer.settle();
  await drain();
  assert.deepEqual(s.side.writes, [[[ot.plcNodeId('dmg'), true], [ot.plcNodeId('sd'), true]]]);
  assert.deepEqual(s.forwarded, [{ dmg: 1, sd: 1 }]);
  assert.deepEqual([s.counters.toPlc, s.counters.toPlcWrites], [2, 1]);
  s.writer.push('sd', 1);
  s.writer.settle();
  await drain();
  assert.equal(s.side.writes.length, 1);
  assert.equal(s.counters.unchanged, 1);
  s.writer.forget(); // a new session: the side may have other values
  s.writer.push('sd', 1);
  s.writer.settle();
  await drain();
  assert.equal(s.side.writes.length, 2);
});

test('a pulse is replayed as successive Writes, each after a hold for the one before', async () => {
  const s = setup();
  for (const v of [1, 0, 1]) s.writer.push('sd', v);
  s.writer.settle();
  await drain();
  assert.deepEqual(s.side.writes.map((w) => w[0][1]), [true, false, true]);
  assert.equal(s.counters.pulses, 2);
  assert.equal(s.holds.length, 2, 'the second and third Write waited');
  assert.ok(s.holds.every((ms) => ms > 0 && ms <= 20));
});

test('PLC: a failed Write is dropped and counted, never written later; a side that went away loses its queue', async () => {
  const s = setup();
  s.side.write = async () => { throw Object.assign(new Error('socket closed'), { code: 'E_WRITE' }); };
  s.writer.push('st', 1);
  s.writer.settle();
  await drain();
  assert.deepEqual([s.counters.dropped, s.counters.writeErrors, s.errors.length], [1, 1, 1]);
  assert.equal(s.writer.queued, 0);
  s.side.connected = false;
  s.writer.push('st', 0);
  s.writer.push('st', 1);
  s.writer.settle();
  await drain();
  assert.equal(s.writer.queued, 0);
  assert.equal(s.counters.dropped, 3);
});

test('PLC: stopped during a pulse hold, the held value and the rest are dropped; nothing is written once stopped', async () => {
  const s = setup();
  s.writer.push('sd', 1);
  s.writer.push('sd', 0);
  s.writer.push('sd', 1);
  s.writer.flush();
  await drain();
  assert.equal(s.side.writes.length, 3);
  const t = setup();
  const hold = t.holds.push.bind(t.holds);
  t.holds.push = (ms) => { t.stop(); return hold(ms); }; // the bridge stops while the pulse is held
  t.writer.push('sd', 1);
  t.writer.push('sd', 0);
  t.writer.push('sd', 1);
  t.writer.flush();
  await drain();
  assert.equal(t.side.writes.length, 1, 'the first value only');
  assert.equal(t.counters.dropped, 2, 'the held 0 and the 1 after it');
  assert.equal(t.writer.queued, 0);
  t.writer.push('st', 1);
  t.writer.flush();
  await drain();
  assert.equal(t.side.writes.length, 1);
});

test('cloud: what could not be written is kept, merged to the latest image, and written when the side is back', async () => {
  const s = setup({ keepUnwritten: true });
  s.side.connected = false;
  s.writer.push('sd', 1);
  s.writer.push('sd', 0);
  s.writer.collapse();
  s.writer.settle();
  await drain();
  assert.equal(s.side.writes.length, 0);
  assert.equal(s.writer.queued, 1);
  assert.equal(s.counters.merged, 1);
  s.side.connected = true;
  s.writer.resync({ dmg: 1 }); // a new session: it gets the image again, with what is queued
  await drain();
  assert.deepEqual(s.side.writes, [[[ot.plcNodeId('sd'), false], [ot.plcNodeId('dmg'), true]]]);

  let fail = true;
  s.side.write = async (items) => {
    if (fail) { fail = false; throw new Error('timeout'); }
    s.side.writes.push(items.map((i) => [i.nodeId, i.value]));
    return items.map(() => ({ good: true }));
  };
  s.writer.push('st', 1);
  s.writer.settle();
  await drain();
  assert.equal(s.counters.dropped, 0);
  assert.equal(s.writer.queued, 1, 'kept for the next try');
  s.writer.flush();
  await drain();
  assert.deepEqual(s.side.writes.at(-1), [[ot.plcNodeId('st'), true]]);
});

test('a refused item is E_WRITE_REFUSED and not believed written; too many frames are merged', async () => {
  const s = setup({ maxFrames: 2 });
  s.side.answer = (items) => items.map((i) => (i.nodeId === ot.plcNodeId('dmg') ? { good: false, status: 'BadTypeMismatch' } : { good: true }));
  s.writer.push('dmg', 1);
  s.writer.push('st', 1);
  s.writer.settle();
  await drain();
  assert.equal(s.errors[0].code, 'E_WRITE_REFUSED');
  assert.match(s.errors[0].message, /plc: write of dmg refused: BadTypeMismatch/);
  assert.deepEqual(s.forwarded, [{ st: 1 }]);
  assert.equal(s.counters.writeErrors, 1);
  s.side.answer = null;
  s.side.connected = false; // queue up without writing
  for (const v of [0, 1, 0, 1]) s.writer.push('sd', v);
  s.side.connected = true;
  s.writer.push('dmg', 1);
  s.writer.settle(); // 4 frames > 2: merged into one
  await drain();
  assert.equal(s.counters.merged, 3);
  assert.deepEqual(s.side.writes.at(-1), [[ot.plcNodeId('sd'), true], [ot.plcNodeId('dmg'), true]]);
});
