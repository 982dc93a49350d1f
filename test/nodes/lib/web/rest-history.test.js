'use strict';
/**
 * lib/web/rest-history.js: the REST path's plant state and its recent versions, so a poll with
 * `since` gets every change after it (or one snap when it is too far behind).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createStateHistory } = require('../../../../nodes/lib/web/rest-history');

const counters = () => ({ stateFrames: 0, snapshots: 0, notModified: 0 });
const make = (more = {}) => createStateHistory({ sender: envelope.createSender('cloud-rest'), historySize: 3, now: () => 5, counters: counters(), ...more });

test('no state yet: nothing to poll; a state known at start is version 1', () => {
  assert.equal(make().poll(NaN), null);
  const h = make({ state: { grn: 1 } });
  assert.equal(h.version, 1);
  assert.deepEqual(h.poll(NaN), { status: 200, body: [{ v: 1, k: 'snap', src: 'cloud-rest', seq: 1, ts: 5, d: { grn: 1 } }] });
});

test('since the current version: 204; since a kept one: the states after it; too old or unknown: one snap', () => {
  const h = make();
  h.add({ k: 'state', d: { grn: 1 } });
  h.add({ k: 'state', d: { red: 1 } });
  h.add({ k: 'snap', d: { yel: 1 } });
  h.add({ k: 'state', d: { grn: 0 } });
  assert.equal(h.version, 4);
  assert.deepEqual(h.poll(4), { status: 204 });
  const after2 = h.poll(2);
  assert.deepEqual(after2.body.map((e) => [e.k, e.seq, e.d]), [['snap', 3, { grn: 1, red: 1, yel: 1 }], ['state', 4, { grn: 0 }]]);
  assert.deepEqual(h.poll(1).body.map((e) => e.seq), [2, 3, 4], 'the oldest kept follows version 1');
  const old = h.poll(0).body;
  assert.deepEqual([old.length, old[0].k, old[0].seq, old[0].d], [1, 'snap', 4, { grn: 0, red: 1, yel: 1 }]);
  assert.equal(h.poll(99).body[0].k, 'snap', 'a version from before a restart');
  assert.deepEqual(h.latest(), { grn: 0, red: 1, yel: 1 });
});
