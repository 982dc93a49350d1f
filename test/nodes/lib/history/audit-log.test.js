'use strict';
/**
 * lib/history/audit-log.js: entries written in the order appended, chained, across a restart;
 * a failing disk counted, retried and never thrown; bounded memory with a gap entry; a cut end
 * recorded when the writer starts again.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createAuditLog, lastEntryOf } = require('../../../../nodes/lib/history/audit-log');
const { verifyText } = require('../../../../nodes/lib/history/audit-chain');
const { waitFor } = require('../../../../system/wait');

function tmpFile(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-audit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'sub', 'audit.jsonl');
}

const read = (file) => fs.readFileSync(file, 'utf8');
const head = (file) => JSON.parse(read(`${file}.head`));
const entries = (file) => read(file).trim().split('\n').map((l) => JSON.parse(l));

test('append returns at once; entries land in order, chained, with a head file; a reopened log goes on from its end', async (t) => {
  const file = tmpFile(t);
  const log = createAuditLog({ file, now: () => 42 });
  for (let i = 1; i <= 50; i += 1) assert.equal(log.append({ kind: 'cmd', seq: i }), true);
  assert.equal(fs.existsSync(file), false, 'nothing was written synchronously');
  await log.flushed();
  assert.deepEqual(entries(file).map((e) => e.seq), Array.from({ length: 50 }, (_, i) => i + 1));
  assert.equal(entries(file)[0].t, 42, 'an entry without t gets the clock\'s time');
  assert.deepEqual(verifyText(read(file), head(file)).ok, true);
  assert.equal(head(file).n, 50);
  assert.equal((fs.statSync(file).mode & 0o777), 0o600, 'owner only: it names tokens\' fingerprints and addresses');
  assert.equal(log.counters.written, 50);
  await log.close();
  assert.equal(log.append({ kind: 'cmd' }), false, 'a closed log takes nothing (counted)');
  assert.equal(log.counters.dropped, 1);

  const again = createAuditLog({ file });
  again.append({ kind: 'cmd', seq: 51 });
  await again.flushed();
  const all = entries(file);
  assert.equal(all.length, 51);
  assert.equal(all[50].n, 51);
  assert.equal(verifyText(read(file), head(file)).ok, true, 'no seam at the restart');
  await again.close();
});

test('a failing disk is counted, reported once, retried with the same lines in order; the caller never sees it', async (t) => {
  const file = tmpFile(t);
  fs.mkdirSync(file, { recursive: true }); // a folder where the file belongs: every append fails (EISDIR)
  const errors = [];
  const log = createAuditLog({ file, retryMs: 20, onError: (err) => errors.push(err) });
  log.append({ kind: 'cmd', seq: 1 });
  log.append({ kind: 'cmd', seq: 2 });
  await waitFor(() => log.counters.writeErrors >= 3, 5000, 'several failed tries');
  assert.equal(errors.length, 1, 'reported once per run of failures');
  assert.ok(log.counters.failing >= 3);
  assert.equal(log.counters.pending, 2);
  log.append({ kind: 'cmd', seq: 3 });
  fs.rmdirSync(file); // the disk is fine again
  await log.flushed();
  assert.deepEqual(entries(file).map((e) => e.seq), [1, 2, 3]);
  assert.equal(verifyText(read(file), head(file)).ok, true);
  assert.equal(log.counters.failing, 0);
  await log.close();
});

test('bounded: past maxPending waiting entries new ones are dropped, counted, and a gap entry says how many', async (t) => {
  const file = tmpFile(t);
  fs.mkdirSync(file, { recursive: true });
  const log = createAuditLog({ file, retryMs: 20, maxPending: 3 });
  for (let i = 1; i <= 5; i += 1) log.append({ kind: 'cmd', seq: i });
  assert.equal(log.counters.dropped, 2);
  fs.rmdirSync(file);
  await log.flushed();
  const all = entries(file);
  assert.deepEqual(all.map((e) => e.kind), ['cmd', 'cmd', 'cmd', 'gap']);
  assert.equal(all[3].lost, 2);
  assert.equal(verifyText(read(file), head(file)).ok, true);
  await log.close();
});

test('a log whose end was cut off while the writer was down gets a cut entry first; a torn last line is left for the verifier', async (t) => {
  const file = tmpFile(t);
  const log = createAuditLog({ file });
  for (let i = 1; i <= 4; i += 1) log.append({ kind: 'cmd', seq: i });
  await log.flushed();
  await log.close();
  const lines = read(file).trim().split('\n');
  fs.writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n`); // entries 3 and 4 removed
  const again = createAuditLog({ file });
  again.append({ kind: 'cmd', seq: 5 });
  await again.flushed();
  await again.close();
  const all = entries(file);
  assert.deepEqual(all.slice(2).map((e) => [e.n, e.kind, e.lastEntry, e.headEntry]), [[3, 'cut', 2, 4], [4, 'cmd', undefined, undefined]]);

  fs.appendFileSync(file, '{"n":5,"kind":"cm'); // a write cut short by a crash
  const third = createAuditLog({ file });
  third.append({ kind: 'cmd', seq: 6 });
  await third.flushed();
  await third.close();
  const text = read(file);
  assert.match(text, /"kind":"cm\n\{/, 'the next entry starts on a line of its own');
  const r = verifyText(text, head(file));
  assert.equal(r.ok, false);
  assert.equal(r.bad.line, 5, 'the torn line is named');
});

test('lastEntryOf: the last whole entry of a tail, which may begin and end mid-line', () => {
  assert.deepEqual(lastEntryOf('x":1}\n{"n":3,"hash":"h"}\n'), { last: { n: 3, hash: 'h' }, torn: false });
  assert.deepEqual(lastEntryOf('{"n":3,"hash":"h"}\n{"n":4,"ha'), { last: { n: 3, hash: 'h' }, torn: true });
  assert.deepEqual(lastEntryOf(''), { last: null, torn: false });
});
