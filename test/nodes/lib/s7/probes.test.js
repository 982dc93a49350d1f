'use strict';
/** nodes/lib/s7/probes.js: each probe frame answered once, only its pending response slots read. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createProbeTracker, coverRanges } = require('../../../../nodes/lib/s7/probes');
const { probeItems } = require('../../../../nodes/lib/s7/edge');

function setup(o = {}) {
  const counters = { probeRes: 0, probeTimeouts: 0, superseded: 0 };
  let t = 0;
  let follower = null;
  const reads = {
    maxPdu: o.maxPdu || 240,
    follow(fn) { follower = fn; return () => { follower = null; }; },
  };
  const answers = [];
  const tracker = createProbeTracker({
    reads, responseDb: 3, timeoutMs: 100, counters, now: () => t, ...o,
    onAnswer: (f) => answers.push({ ok: f.got, about: f.about, client: f.client }),
    onFail: (f, code, message) => answers.push({ code, message, about: f.about, client: f.client }),
  });
  const asked = []; // the addresses of every read
  /**
   * One read as the connection makes it: the tracker names its ranges, the PLC's response slots
   * (`plc`: {slot: value}, 0 elsewhere) come back for them as nodes7 gives them (an array, or a
   * number for one DWORD).
   */
  function read(plc = {}) {
    const addrs = follower ? follower() : [];
    asked.push(addrs);
    const out = {};
    for (const a of addrs) {
      const [, db, off, n] = /^DB(\d+),DWORD(\d+)\.(\d+)$/.exec(a).map(Number);
      assert.equal(db, 3);
      const v = Array.from({ length: n }, (_, i) => plc[off / 4 + i] || 0);
      out[a] = n === 1 ? v[0] : v;
    }
    tracker.seen(out);
    return addrs;
  }
  return { tracker, counters, answers, read, asked, following: () => follower !== null, setTime: (v) => { t = v; } };
}
const about = (seq) => ({ src: 'twin', seq, cid: undefined, dl: undefined });

test('a frame is answered once, when every slot has shown its value', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), 'c1', probeItems({ 3: 30, 70: 700 }));
  assert.equal(s.tracker.pendingSlots, 2);
  assert.deepEqual(s.read({ 3: 30 }), ['DB3,DWORD12.1', 'DB3,DWORD280.1'], 'the two pending slots, nothing else');
  assert.equal(s.answers.length, 0, 'slot 70 not yet');
  assert.deepEqual(s.read({ 3: 30, 70: 700 }), ['DB3,DWORD280.1'], 'the answered slot is no longer read');
  assert.deepEqual(s.read({ 3: 30, 70: 700 }), [], 'nothing pending: nothing read');
  assert.deepEqual(s.answers, [{ ok: { 3: 30, 70: 700 }, about: about(1), client: 'c1' }]);
  assert.equal(s.counters.probeRes, 1);
  assert.equal(s.tracker.pendingSlots, 0);
});

test('a frame not answered by its deadline fails once with E_PROBE_TIMEOUT, naming the slots left', (t) => {
  const s = setup();
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), undefined, probeItems({ 3: 30, 4: 40 }));
  s.setTime(100);
  s.read({ 3: 30 });
  s.read({ 4: 40 });
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
  s.read({ 5: 2 });
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

test('a read names every pending slot in at most maxRanges ranges, within one PDU each; what it shows answers the frames in it', (t) => {
  const d = { 0: 1, 2: 2, 100: 3, 101: 4, 500: 5, 1023: 6 };
  // 0 and 2 join (one slot between), 100-101 are neighbours. A PDU of 240 bytes reads 55 slots
  // at most: no two of the four ranges can join, so the read takes four.
  const small = setup({ maxRanges: 3 });
  t.after(() => small.tracker.close());
  small.tracker.track(about(1), 'c', probeItems(d));
  assert.deepEqual(small.read({}), ['DB3,DWORD0.3', 'DB3,DWORD400.2', 'DB3,DWORD2000.1', 'DB3,DWORD4092.1']);
  // A PDU of 960 reads 235: the two closest ranges join, and three are left.
  const s = setup({ maxRanges: 3, maxPdu: 960 });
  t.after(() => s.tracker.close());
  s.tracker.track(about(1), 'c', probeItems(d));
  assert.deepEqual(s.read({ 0: 1, 100: 3 }), ['DB3,DWORD0.102', 'DB3,DWORD2000.1', 'DB3,DWORD4092.1']);
  assert.equal(s.answers.length, 0);
  assert.deepEqual(s.read(d), ['DB3,DWORD8.100', 'DB3,DWORD2000.1', 'DB3,DWORD4092.1'], 'only the slots still pending (2 to 101)');
  assert.deepEqual(s.answers, [{ ok: { 0: 1, 2: 2, 100: 3, 101: 4, 500: 5, 1023: 6 }, about: about(1), client: 'c' }]);
  assert.equal(s.tracker.rangesRead, 6);
});

test('coverRanges: neighbours join, the closest ranges join until few enough, none longer than maxLen', () => {
  assert.deepEqual(coverRanges([], 19, 235), []);
  assert.deepEqual(coverRanges([5], 19, 235), [{ start: 5, len: 1 }]);
  assert.deepEqual(coverRanges([1, 2, 3, 6, 10], 19, 235), [{ start: 1, len: 6 }, { start: 10, len: 1 }], 'gaps under 3 slots are read through');
  assert.deepEqual(coverRanges([0, 10, 12, 40, 90], 2, 235), [{ start: 0, len: 41 }, { start: 90, len: 1 }]);
  assert.deepEqual(coverRanges([0, 1, 2, 3, 4, 5], 19, 4), [{ start: 0, len: 4 }, { start: 4, len: 2 }], 'maxLen splits a run');
  assert.deepEqual(coverRanges([0, 300, 600], 1, 235), [{ start: 0, len: 1 }, { start: 300, len: 1 }, { start: 600, len: 1 }], 'no join fits: more ranges');
  // Many pending slots: never more ranges than asked while joins fit, and every slot covered.
  const slots = [];
  for (let k = 0, s = 0; k < 200; k++) { s += 1 + ((k * 37) % 11); slots.push(s); }
  const r = coverRanges(slots, 19, 235);
  assert.ok(r.length <= 19);
  for (const x of slots) assert.ok(r.some((q) => x >= q.start && x < q.start + q.len), `slot ${x} covered`);
  assert.ok(r.every((q) => q.len <= 235));
});

test('close stops naming ranges and forgets every frame', () => {
  const s = setup();
  s.tracker.track(about(1), undefined, probeItems({ 3: 1 }));
  s.tracker.track(about(2), undefined, probeItems({ 700: 1 }));
  s.read({ 3: 1 });
  assert.equal(s.answers.length, 1);
  s.tracker.close();
  assert.equal(s.following(), false);
  s.tracker.seen({ 'DB3,DWORD2800.1': 1 });
  assert.equal(s.answers.length, 1, 'frame 2 is gone unanswered');
  assert.equal(s.tracker.pendingSlots, 0);
});
