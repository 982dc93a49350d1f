'use strict';
/**
 * lib/link/journal.js: the edge's journal on a real disk (a folder per test): records in order,
 * dropped only once answered, bounded with the oldest dropped and counted, reopened after a
 * restart, a record cut short by a crash skipped and counted, a failing disk counted.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createJournal, journalOptions, parseRecord } = require('../../../../nodes/lib/link/journal');

function tmpDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-journal-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const rec = (i) => ({ ts: 1764000000000 + i, ct: 1764000000500 + i, d: { c1: i % 2, nb: i } });
const segmentsOf = (dir) => fs.readdirSync(dir).filter((n) => n.endsWith('.jnl')).sort();

test('records come back in order with their times; an answer drops them, and a reopened journal goes on after them', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir });
  assert.match(j.src, /^journal-[0-9a-f]{12}$/);
  for (let i = 1; i <= 5; i++) assert.equal(j.append(rec(i)), i);
  j.append({ ts: 1764000000006, ct: null, d: { grn: 1 }, of: { src: 'edge-s7', seq: 41 } });
  assert.deepEqual([j.pending, j.counters.appended], [6, 6]);
  const all = j.read(0, 100);
  assert.deepEqual(all.map((r) => r.j), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(all[1], { j: 2, ...rec(2) });
  assert.deepEqual(all[5], { j: 6, ts: 1764000000006, d: { grn: 1 }, of: { src: 'edge-s7', seq: 41 } }, 'no ct when none was known');
  assert.deepEqual(j.read(2, 2).map((r) => r.j), [3, 4], 'from a record on, at most max');
  assert.deepEqual(j.read(4, 10).map((r) => r.j), [5, 6]);

  j.ack(3);
  assert.deepEqual([j.acked, j.pending, j.counters.acked], [3, 3, 3]);
  assert.deepEqual(j.read(j.acked, 10).map((r) => r.j), [4, 5, 6]);
  j.close();

  const again = createJournal({ dir });
  t.after(() => again.close());
  assert.equal(again.src, j.src, 'the same journal: the same sender id');
  assert.deepEqual([again.acked, again.pending], [3, 3], 'the answered mark survives the restart');
  assert.deepEqual(again.read(again.acked, 10).map((r) => r.j), [4, 5, 6]);
  assert.equal(again.append(rec(7)), 7, 'numbering goes on');
  again.ack(7);
  assert.deepEqual([again.pending, segmentsOf(dir)], [0, []], 'every segment answered: deleted');
  assert.equal(again.append(rec(8)), 8, 'numbering goes on with no segment left');
  assert.deepEqual(segmentsOf(dir), ['0000000000000008.jnl']);
});

test('bounded: past maxBytes the oldest segment goes, and the records it held unanswered are counted', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir, maxBytes: 16 * 1024, segmentBytes: 4096 });
  t.after(() => j.close());
  const line = Buffer.byteLength(`${JSON.stringify({ j: 100, ...rec(100) })}\n`);
  const n = 1000;
  for (let i = 1; i <= n; i++) j.append(rec(i));
  assert.ok(j.counters.bytes <= 16 * 1024, `${j.counters.bytes} bytes on disk`);
  assert.ok(j.counters.segments >= 4, 'at most a quarter of the bound per segment');
  const left = j.read(0, n);
  assert.equal(j.counters.dropped + left.length, n, 'every record is either there or counted');
  assert.ok(j.counters.dropped > n / 2, `the oldest dropped (${j.counters.dropped}, ${line} bytes a record)`);
  assert.deepEqual(left.map((r) => r.j), Array.from({ length: left.length }, (x, i) => n - left.length + 1 + i), 'the newest kept, in order');
  assert.equal(j.pending, left.length);

  // Answered records are not counted as dropped when their segment goes.
  const k = createJournal({ dir: path.join(dir, 'k'), maxBytes: 16 * 1024, segmentBytes: 4096 });
  t.after(() => k.close());
  for (let i = 1; i <= 100; i++) k.append(rec(i));
  k.ack(60);
  for (let i = 101; i <= n; i++) k.append(rec(i));
  assert.equal(k.counters.dropped + k.read(k.acked, n).length, n - 60);
});

test('a forward that reads on while the journal grows and loses its oldest segment meanwhile', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir, maxBytes: 8192, segmentBytes: 2048 });
  t.after(() => j.close());
  for (let i = 1; i <= 20; i++) j.append(rec(i));
  const first = j.read(0, 5);
  assert.deepEqual(first.map((r) => r.j), [1, 2, 3, 4, 5]);
  for (let i = 21; i <= 400; i++) j.append(rec(i));
  const next = j.read(5, 1000);
  assert.ok(next[0].j > 5, 'the records dropped meanwhile are skipped');
  assert.equal(next[next.length - 1].j, 400);
  assert.ok(next.every((r, i) => i === 0 || r.j === next[i - 1].j + 1), 'in order, none twice');
});

test('a record cut short by a crash is skipped and counted, the journal goes on after the last whole one', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir });
  for (let i = 1; i <= 3; i++) j.append(rec(i));
  j.close();
  const [seg] = segmentsOf(dir);
  fs.appendFileSync(path.join(dir, seg), '{"j":4,"ts":1764000000004,"d":{"c1"'); // the write the crash cut

  const again = createJournal({ dir });
  t.after(() => again.close());
  assert.equal(again.counters.torn, 1);
  assert.deepEqual(again.read(0, 10).map((r) => r.j), [1, 2, 3]);
  assert.equal(again.append(rec(4)), 4);
  again.close();
  const third = createJournal({ dir });
  t.after(() => third.close());
  assert.deepEqual([third.counters.torn, third.read(0, 10).map((r) => r.j)], [0, [1, 2, 3, 4]], 'the cut bytes are gone from the disk');
});

test('a line that is not a record in the middle of a segment is skipped and counted; the meta file cut short starts a new id', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir });
  j.append(rec(1));
  j.close();
  const [seg] = segmentsOf(dir);
  fs.appendFileSync(path.join(dir, seg), '\u0000\u0000garbage\n');
  fs.appendFileSync(path.join(dir, seg), `${JSON.stringify({ j: 2, ...rec(2) })}\n`);
  fs.writeFileSync(path.join(dir, 'journal.json'), '{"id":"ab');
  const again = createJournal({ dir });
  t.after(() => again.close());
  assert.equal(again.counters.torn, 1);
  assert.deepEqual(again.read(0, 10).map((r) => r.j), [1, 2]);
  assert.notEqual(again.src, j.src, 'an unreadable meta file: a new journal id (its records are still sent)');
  assert.equal(parseRecord('{"j":0,"ts":1,"d":{}}'), null);
  assert.equal(parseRecord('[1]'), null);
});

test('a disk that refuses (ENOSPC) is counted and reported once, the record lost and counted; then it goes on', (t) => {
  const dir = tmpDir(t);
  const errors = [];
  const j = createJournal({ dir, onError: (err) => errors.push(err) });
  t.after(() => j.close());
  fs.symlinkSync('/dev/full', path.join(dir, '0000000000000001.jnl')); // the next segment's file: a full disk
  assert.equal(j.append(rec(1)), null);
  assert.deepEqual([j.counters.writeErrors, j.counters.dropped, errors.length, errors[0].code], [1, 1, 1, 'ENOSPC']);
  assert.equal(j.append(rec(2)), 1, 'a new segment, numbering as if nothing was taken');
  assert.deepEqual(j.read(0, 10).map((r) => r.d.nb), [2]);
  assert.equal(j.counters.failing, 0);
});

test('a folder that cannot be made is E_JOURNAL', (t) => {
  const dir = tmpDir(t);
  fs.writeFileSync(path.join(dir, 'file'), '');
  assert.throws(() => createJournal({ dir: path.join(dir, 'file', 'journal') }), { code: 'E_JOURNAL' });
});

test('journalOptions: the node, else S7T_JOURNAL_DIR / S7T_JOURNAL_MIB, else the user directory and 64 MiB; a folder per plant; 0 is off', () => {
  const settings = { userDir: '/data' };
  assert.deepEqual(journalOptions({}, settings, 'plant1', {}), { dir: '/data/s7twin-journal/plant1', maxBytes: 64 * 1024 * 1024 });
  assert.deepEqual(journalOptions({ journalDir: 'j', journalMiB: '0.5' }, settings, 'p', { S7T_JOURNAL_DIR: '/x', S7T_JOURNAL_MIB: '9' }),
    { dir: '/data/j/p', maxBytes: 512 * 1024 });
  assert.deepEqual(journalOptions({ journalDir: '', journalMiB: '' }, settings, 'p', { S7T_JOURNAL_DIR: '/x', S7T_JOURNAL_MIB: '9' }),
    { dir: '/x/p', maxBytes: 9 * 1024 * 1024 });
  assert.equal(journalOptions({ journalMiB: 0 }, settings, 'p', {}), null);
  assert.equal(journalOptions({}, settings, '..', {}).dir, '/data/s7twin-journal/_..', 'never a folder above the journal\'s');
  assert.throws(() => journalOptions({ journalMiB: 'lots' }, settings, 'p', {}), { code: 'E_JOURNAL', message: /number of MiB/ });
  assert.throws(() => journalOptions({}, settings, 'p', { S7T_JOURNAL_MIB: '-1' }), { code: 'E_JOURNAL' });
});

test('one journal per folder in a process: a second link on it is E_JOURNAL until the first closes', (t) => {
  const dir = tmpDir(t);
  const j = createJournal({ dir });
  assert.throws(() => createJournal({ dir: `${dir}/` }), { code: 'E_JOURNAL', message: /in use/ });
  j.close();
  const again = createJournal({ dir });
  again.close();
});
