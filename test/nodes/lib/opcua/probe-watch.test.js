'use strict';
/**
 * nodes/lib/opcua/probe-watch.js: which PLC probe responses the relay monitors: a slot from its
 * first request on, each once; an idle slot deleted, and watched again with its next request.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const ot = require('../../../../nodes/lib/opcua/tags');
const { createProbeWatch } = require('../../../../nodes/lib/opcua/probe-watch');

function setup(idleMs = 1000) {
  const plc = {
    connected: true,
    added: [],
    removed: [],
    refuseAdd: false,
    async addMonitor(ids) { if (this.refuseAdd) throw new Error('BadTooManyMonitoredItems'); this.added.push(ids.map((id) => ot.parseProbeNodeId(id).slot)); },
    async removeMonitor(ids) { this.removed.push(ids.map((id) => ot.parseProbeNodeId(id).slot)); return ids; },
  };
  const counters = { monitorErrors: 0, unwatched: 0 };
  const errors = [];
  let now = 10000;
  let stopped = false;
  const watch = createProbeWatch({ plc, idleMs, counters, isStopped: () => stopped, fail: (e) => errors.push(e), now: () => now });
  return { watch, plc, counters, errors, advance: (ms) => { now += ms; }, stop: () => { stopped = true; } };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a used slot\'s PLC response is monitored once; a new session brings all watched back', async () => {
  const s = setup();
  s.watch.used([3, 4]);
  s.watch.used([4]);
  await tick();
  assert.deepEqual(s.plc.added, [[3, 4]]);
  assert.equal(s.watch.size, 2);
  s.watch.resume();
  assert.deepEqual(s.plc.added.at(-1), [3, 4]);
});

test('while the PLC is away nothing is added now; the next session adds it', async () => {
  const s = setup();
  s.plc.connected = false;
  s.watch.used([7]);
  await tick();
  assert.deepEqual(s.plc.added, []);
  s.plc.connected = true;
  s.watch.resume();
  assert.deepEqual(s.plc.added, [[7]]);
});

test('a failed add is counted and reported; the slot stays watched for the next session', async () => {
  const s = setup();
  s.plc.refuseAdd = true;
  s.watch.used([1]);
  await tick();
  assert.equal(s.counters.monitorErrors, 1);
  assert.equal(s.errors.length, 1);
  assert.equal(s.watch.size, 1);
});

test('a slot idle for idleMs is no longer watched; used again, it is watched again', async () => {
  const s = setup(1000);
  s.watch.used([3]);
  s.advance(500);
  s.watch.used([4]);
  s.advance(600); // slot 3 idle 1100 ms, slot 4 600 ms
  await s.watch.sweep();
  assert.deepEqual(s.plc.removed, [[3]]);
  assert.equal(s.counters.unwatched, 1);
  assert.equal(s.watch.size, 1);
  s.watch.used([3]);
  await tick();
  assert.deepEqual(s.plc.added.at(-1), [3]);
  assert.equal(s.watch.size, 2);
});

test('no sweep while the PLC is away or once stopped; start and stop the timer', async () => {
  const s = setup(1000);
  s.watch.used([3]);
  s.advance(5000);
  s.plc.connected = false;
  await s.watch.sweep();
  s.plc.connected = true;
  s.stop();
  await s.watch.sweep();
  assert.deepEqual(s.plc.removed, []);
  s.watch.start();
  s.watch.stop();
  const off = setup(0);
  off.watch.start(); // idleMs 0: keep every item, no timer
  off.watch.stop();
});
