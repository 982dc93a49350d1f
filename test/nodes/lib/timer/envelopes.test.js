'use strict';
/** nodes/lib/timer/envelopes.js: which timers a cmd, state, probe or probe-res starts and stops. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEnvelopeTimer, asBit } = require('../../../../nodes/lib/timer/envelopes');
const { createTimers } = require('../../../../nodes/lib/timer/timers');

const PAIRS = [
  { output: 'c1', trigger: 'st', value: 1, with: {} },
  { output: 'p2fw', trigger: 'sd', value: 1, with: { dmg: 1 } },
];
function setup() {
  const counters = { started: 0, stopped: 0, expired: 0, duplicates: 0, unmatched: 0, overflow: 0, invalid: 0 };
  const timers = createTimers({ protocol: 'p', timeoutMs: 1e6, maxPending: 100, now: () => 0, counters, onSample: () => {} });
  return { translate: createEnvelopeTimer({ pairs: PAIRS, timers, counters }), timers, counters };
}

test('a cmd with a trigger starts its output\'s timer, named by cid or src:seq; a state with the output stops it', () => {
  const s = setup();
  assert.deepEqual(s.translate({ k: 'cmd', src: 'tw', seq: 4, d: { st: true } }, 0).started, ['c1:tw:4']);
  assert.deepEqual(s.translate({ k: 'cmd', cid: 'x', d: { st: 1 } }, 1).started, ['c1:x']);
  assert.deepEqual(s.translate({ k: 'cmd', d: { st: 0 } }, 1).started, [], 'the wrong value starts nothing');
  const out = s.translate({ k: 'state', d: { c1: 1 } }, 10);
  assert.deepEqual(out.results.map((r) => [r.id, r.ms]), [['c1:tw:4', 10], ['c1:x', 9]]);
  assert.deepEqual(s.translate({ k: 'snap', d: { c1: 0 } }, 11).results, [], 'not the expected value');
});

test('a with-condition is checked against the values commanded so far, in earlier frames too', () => {
  const s = setup();
  assert.deepEqual(s.translate({ k: 'cmd', cid: 'a', d: { sd: 1 } }, 0).started, [], 'dmg not commanded yet');
  s.translate({ k: 'cmd', cid: 'b', d: { dmg: true } }, 0);
  assert.deepEqual(s.translate({ k: 'cmd', cid: 'c', d: { sd: 1 } }, 0).started, ['p2fw:c']);
});

test('a probe starts one timer per slot and value; its probe-res stops it; an unknown answer is counted', () => {
  const s = setup();
  assert.deepEqual(s.translate({ k: 'probe', d: { 3: 77, 4: 1 } }, 0).started, ['probe:3:77', 'probe:4:1']);
  const res = s.translate({ k: 'probe-res', d: { 3: 77, 4: 2 } }, 5);
  assert.deepEqual(res.results.map((r) => [r.variable, r.ms]), [['probe:3', 5]]);
  assert.equal(s.counters.unmatched, 1);
});

test('no d: counted invalid; ack and err time nothing', () => {
  const s = setup();
  assert.deepEqual(s.translate({ k: 'cmd' }, 0), { started: [], results: [] });
  assert.deepEqual(s.translate(null, 0), { started: [], results: [] });
  assert.equal(s.counters.invalid, 2);
  assert.deepEqual(s.translate({ k: 'ack', d: {} }, 0), { started: [], results: [] });
  assert.deepEqual([asBit(true), asBit(false), asBit(1)], [1, 0, 1]);
});
