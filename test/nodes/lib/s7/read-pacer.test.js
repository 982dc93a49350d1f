'use strict';
/** nodes/lib/s7/read-pacer.js: cyclic reads, chases after a write, rests after long reads. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReadPacer, sameValue } = require('../../../../nodes/lib/s7/read-pacer');

const O = { cycleMs: 10, chaseMs: 15, readDuty: 1 / 3, maxRestMs: 5 };
function setup(o = {}) {
  const counters = { chaseReads: 0, chaseEnds: 0, rests: 0 };
  return { p: createReadPacer({ ...O, ...o }, counters), counters };
}
/** One read as the session makes it: started (readNow cleared), then back 1 ms later. */
function read(p, started, values) {
  p.readStarted();
  p.readDone({ started, tookMs: 1, pdus: 1, values, now: started + 1 });
}

test('reads come every cycleMs after the previous one started', () => {
  const { p } = setup();
  read(p, 100, { a: 1 });
  assert.equal(p.readFirst(101), false);
  assert.equal(p.waitMs(101), 9);
  assert.equal(p.waitMs(110), 0);
});

test('a requested read goes first, ahead of writes', () => {
  const { p } = setup();
  read(p, 100, { a: 1 });
  assert.equal(p.readFirst(101), false);
  p.requestRead();
  assert.equal(p.readFirst(101), true);
  assert.equal(p.waitMs(101) <= 0, true);
  p.readStarted();
  assert.equal(p.readFirst(101), false);
});

test('after a write, reads follow back to back until the values change', () => {
  const { p, counters } = setup();
  p.writeDone(true, 100);
  assert.equal(p.readFirst(100), true, 'the reaction is read at once');
  read(p, 100, { a: 1 }); // the chase's first read: the base
  assert.equal(p.waitMs(101), 0, 'next read right away');
  read(p, 101, { a: 1 }); // unchanged: no scan yet
  assert.equal(p.waitMs(102), 0);
  read(p, 102, { a: 2 }); // the PLC scanned: the chase ends
  assert.equal(counters.chaseReads, 2);
  assert.equal(counters.chaseEnds, 1);
  assert.equal(p.waitMs(103), 9, 'back to the cycle');
});

test('a write the PLC never reacts to is chased for chaseMs, then the cycle resumes', () => {
  const { p, counters } = setup();
  p.writeDone(true, 100);
  for (let t = 100; t < 115; t += 2) read(p, t, { a: 1 });
  read(p, 116, { a: 1 }); // past chaseUntil (115)
  assert.equal(counters.chaseEnds, 0);
  assert.equal(p.waitMs(117), 9);
});

test('a failed write or chaseMs 0 starts no chase, but still asks for a read', () => {
  for (const [o, ok] of [[{}, false], [{ chaseMs: 0 }, true]]) {
    const { p, counters } = setup(o);
    p.writeDone(ok, 100);
    assert.equal(p.readFirst(100), true);
    read(p, 100, { a: 1 });
    assert.equal(counters.chaseReads, 0);
    assert.equal(p.waitMs(101), 9);
  }
});

test('new read items restart the chase comparison', () => {
  const { p, counters } = setup();
  p.writeDone(true, 100);
  read(p, 100, { a: 1 });
  p.itemsChanged();
  read(p, 101, { a: 1, b: 5 }); // a new base, not a change
  assert.equal(counters.chaseEnds, 0);
  read(p, 102, { a: 1, b: 6 });
  assert.equal(counters.chaseEnds, 1);
});

test('a read of several PDUs rests readDuty-wise, never longer than maxRestMs', () => {
  const { p, counters } = setup();
  p.readDone({ started: 100, tookMs: 1, pdus: 5, values: {}, now: 101 });
  assert.equal(counters.rests, 1);
  p.requestRead();
  assert.equal(p.readFirst(102), false, 'rest: 1 ms read, 2 ms rest');
  assert.equal(p.readFirst(103), true);
  p.readDone({ started: 200, tookMs: 60, pdus: 5, values: {}, now: 260 }); // held up 60 ms
  assert.equal(p.readFirst(264), false);
  assert.equal(p.readFirst(265), true, 'the rest is capped at 5 ms, not 120');
});

test('one-PDU reads and readDuty 1 never rest', () => {
  const { p, counters } = setup();
  p.readDone({ started: 100, tookMs: 3, pdus: 1, values: {}, now: 103 });
  const free = setup({ readDuty: 1 });
  free.p.readDone({ started: 100, tookMs: 3, pdus: 5, values: {}, now: 103 });
  assert.equal(counters.rests + free.counters.rests, 0);
});

test('sameValue compares nodes7 values, arrays element by element', () => {
  assert.equal(sameValue(1, 1), true);
  assert.equal(sameValue([1, 2], [1, 2]), true);
  assert.equal(sameValue([1, 2], [1, 3]), false);
  assert.equal(sameValue([1], [1, 2]), false);
  assert.equal(sameValue([1], 1), false);
});
