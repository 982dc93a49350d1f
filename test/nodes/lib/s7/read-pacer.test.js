'use strict';
/** nodes/lib/s7/read-pacer.js: cyclic reads, chases after a write, rests after long reads. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createReadPacer, sameValue } = require('../../../../nodes/lib/s7/read-pacer');

const O = { cycleMs: 10, chaseMs: 15, readGapMs: 2, readDuty: 1 / 3, maxRestMs: 5 };
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

test('after a write, reads follow readGapMs apart until the values change', () => {
  const { p, counters } = setup();
  p.writeDone(true, 100);
  assert.equal(p.readFirst(100), true, 'the reaction is read at once: no read for long');
  read(p, 100, { a: 1 }); // the chase's first read: the base
  assert.equal(p.readFirst(101), false);
  assert.equal(p.waitMs(101), 1, 'the next read 2 ms after this one started');
  assert.equal(p.readFirst(102), true, 'a due read goes ahead of queued writes');
  read(p, 102, { a: 1 }); // unchanged: no scan yet
  assert.equal(p.waitMs(103), 1);
  read(p, 104, { a: 2 }); // the PLC scanned: the chase ends
  assert.equal(counters.chaseReads, 2);
  assert.equal(counters.chaseEnds, 1);
  assert.equal(p.waitMs(105), 9, 'back to the cycle');
});

test('a chase that ends early is followed by one read a scan later (chaseMs), where the cycle is longer', () => {
  // The change that ended it may come from a scan that began before the write landed: its
  // reaction is in the next scan, which a 2 s read cycle would show 2 s later.
  const { p, counters } = setup({ cycleMs: 2000, chaseMs: 200 });
  p.writeDone(true, 100);
  read(p, 100, { a: 1 });
  read(p, 102, { a: 2 }); // changed: the chase ends
  assert.equal(counters.chaseEnds, 1);
  assert.equal(p.waitMs(103), 199, 'the next read chaseMs after the last one started');
  read(p, 302, { a: 2 });
  assert.equal(p.waitMs(303), 1999, 'then the cycle');
  const expired = setup({ cycleMs: 2000, chaseMs: 200 });
  expired.p.writeDone(true, 100);
  for (let t = 100; t < 300; t += 2) read(expired.p, t, { a: 1 });
  read(expired.p, 300, { a: 1 }); // past chaseUntil: nothing changed, no follow-up
  assert.equal(expired.p.waitMs(301), 1999);
});

test('writes right after a read wait for the gap: a stream of writes is read every readGapMs, not after each', () => {
  const { p } = setup({ chaseMs: 0 });
  read(p, 100, { a: 1 });
  p.writeDone(true, 100.5);
  assert.equal(p.readFirst(100.5), false, 'the last read started 0.5 ms ago');
  p.writeDone(true, 101);
  assert.equal(p.readFirst(101.9), false);
  assert.equal(p.readFirst(102), true);
  read(p, 102, { a: 1 });
  assert.equal(p.waitMs(103), 9, 'no write since: the cycle');
  p.requestRead(); // asked for (a snapshot): no gap
  assert.equal(p.readFirst(103), true);
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
    read(p, 90, { a: 1 });
    p.writeDone(ok, 100);
    assert.equal(p.readFirst(100), true);
    read(p, 100, { a: 1 });
    assert.equal(counters.chaseReads, 0);
    assert.equal(p.waitMs(101), 9);
  }
});

test('a chase compares the items both reads asked for: new or dropped items are no change', () => {
  const { p, counters } = setup();
  p.writeDone(true, 100);
  read(p, 100, { a: 1, r1: 7 }); // the base
  read(p, 102, { a: 1, r2: 5 }); // another probe range: not a change
  read(p, 104, { a: 1 });
  assert.equal(counters.chaseEnds, 0);
  read(p, 106, { a: 2, r3: 1 }); // the I/O range (its scan counter) moved: the PLC scanned
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
