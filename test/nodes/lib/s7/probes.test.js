'use strict';
/** nodes/lib/s7/probes.js: each probe frame answered once, its response blocks read while needed. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createProbeTracker } = require('../../../../nodes/lib/s7/probes');
const { probeItems } = require('../../../../nodes/lib/s7/edge');
const { waitFor } = require('../../../helpers/nodes');

function setup(o = {}) {
  const watched = new Map(); // addr -> times watched - unwatched
  const log = [];
  const counters = { probeRes: 0, probeTimeouts: 0, superseded: 0 };
  let t = 0;
  const reads = {
    watch: (a) => { watched.set(a, (watched.get(a) || 0) + 1); log.push(['watch', a]); },
    unwatch: (a) => { watched.set(a, (watched.get(a) || 0) - 1); log.push(['unwatch', a]); },
  };
  const answers = [];
  const tracker = createProbeTracker({
    reads, timeoutMs: 100, lingerMs: 1e6, counters, now: () => t, ...o,
    onAnswer: (f) => answers.push({ ok: f.got, about: f.about, client: f.client }),
    onFail: (f, code, message) => answers.push({ code, message, about: f.about, client: f.client }),
  });
  return { tracker, watched, log, counters, answers, setTime: (v) => { t = v; } };
}
const about = (seq) => ({ src: 'twin', seq, cid: undefined, dl: undefined });
/** A read's watched values with `slots` showing their values ({slot: value}). */
function extra(slots) {
  const out = {};
  for (const [slot, value] of Object.entries(slots)) {
    const it = probeItems({ [slot]: value })[0];
    out[it.resAddr] = out[it.resAddr] || new Array(64).fill(0);
    out[it.resAddr][it.resIndex] = value;
  }
  return out;
}

test('a frame is answered once, when every slot has shown its value', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), 'c1', probeItems({ 3: 30, 70: 700 }));
  assert.deepEqual([...s.watched.keys()], ['DB3,DWORD0.64', 'DB3,DWORD256.64']);
  assert.equal(s.tracker.pendingSlots, 2);
  s.tracker.seen(extra({ 3: 30 }));
  assert.equal(s.answers.length, 0, 'slot 70 not yet');
  s.tracker.seen(extra({ 3: 30, 70: 700 }));
  s.tracker.seen(extra({ 3: 30, 70: 700 }));
  assert.deepEqual(s.answers, [{ ok: { 3: 30, 70: 700 }, about: about(1), client: 'c1' }]);
  assert.equal(s.counters.probeRes, 1);
  assert.equal(s.tracker.pendingSlots, 0);
});

test('a frame not answered by its deadline fails once with E_PROBE_TIMEOUT, naming the slots left', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), undefined, probeItems({ 3: 30, 4: 40 }));
  s.setTime(100);
  s.tracker.seen(extra({ 3: 30 }));
  s.tracker.seen(extra({ 4: 40 }));
  assert.equal(s.answers.length, 1);
  assert.equal(s.answers[0].code, 'E_PROBE_TIMEOUT');
  assert.match(s.answers[0].message, /probe slot\(s\) 4=40 did not answer within 100 ms/);
  assert.equal(s.counters.probeTimeouts, 1);
});

test('probing a waiting slot again fails the older frame with E_PROBE_SUPERSEDED', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), undefined, probeItems({ 5: 1, 6: 1 }));
  s.tracker.track(about(2), undefined, probeItems({ 5: 2 }));
  assert.equal(s.answers[0].code, 'E_PROBE_SUPERSEDED');
  assert.equal(s.answers[0].about.seq, 1);
  assert.equal(s.counters.superseded, 1);
  s.tracker.seen(extra({ 5: 2 }));
  assert.deepEqual(s.answers[1].ok, { 5: 2 });
  assert.equal(s.tracker.pendingSlots, 0, 'slot 6 went with its frame');
});

test('a lost connection fails every waiting frame with E_PLC_DOWN', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), undefined, probeItems({ 1: 1 }));
  s.tracker.track(about(2), undefined, probeItems({ 900: 1 }));
  s.tracker.lost(new Error('the PLC closed the connection'));
  assert.deepEqual(s.answers.map((a) => [a.code, a.about.seq]), [['E_PLC_DOWN', 1], ['E_PLC_DOWN', 2]]);
  assert.match(s.answers[0].message, /slot\(s\) 1 lost with the PLC connection: the PLC closed/);
});

test('an emptied block lingers in the read, a new probe there keeps it, and it leaves after lingerMs', async (t) => {
  const s = setup({ lingerMs: 20 });
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), undefined, probeItems({ 3: 1 }));
  s.tracker.seen(extra({ 3: 1 }));
  assert.equal(s.watched.get('DB3,DWORD0.64'), 1, 'still read');
  assert.equal(s.tracker.blocksRead, 1);
  s.tracker.track(about(2), undefined, probeItems({ 4: 1 }));
  assert.deepEqual(s.log, [['watch', 'DB3,DWORD0.64']], 'no churn of the item list');
  s.tracker.seen(extra({ 4: 1 }));
  await waitFor(() => s.watched.get('DB3,DWORD0.64') === 0, 5000, 'the block to leave the read');
  assert.equal(s.tracker.blocksRead, 0);
});

test('close unwatches every block at once and forgets every frame', () => {
  const s = setup();
  s.tracker.track(about(1), undefined, probeItems({ 3: 1 }));
  s.tracker.track(about(2), undefined, probeItems({ 700: 1 }));
  s.tracker.seen(extra({ 3: 1 })); // frame 1 answered: its block lingers
  s.tracker.close();
  assert.ok([...s.watched.values()].every((n) => n === 0));
  s.tracker.seen(extra({ 700: 1 }));
  assert.equal(s.answers.length, 1, 'frame 2 is gone unanswered');
});
