'use strict';
/** nodes/lib/s7/write-queue.js: admission, splitting, expiry, refusal and the next job. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWriteQueue } = require('../../../../nodes/lib/s7/write-queue');

function setup(o = {}) {
  const counters = { refused: 0, expired: 0 };
  let t = 1000;
  const q = createWriteQueue({ maxWrites: 3, maxBatchItems: 20, counters, now: () => t, ...o });
  return { q, counters, setTime: (v) => { t = v; } };
}

/** Queue a write; its outcome ends up in the returned record. */
function add(q, items, opts = {}) {
  const out = { state: 'waiting', err: null };
  out.accepted = q.add(items, opts, () => { out.state = 'resolved'; }, (err) => { out.state = 'rejected'; out.err = err; });
  return out;
}
const item = (n, v = 1) => ({ addr: `DB1,X0.${n}`, value: v });
const flush = () => new Promise((r) => setImmediate(r));

test('a full queue refuses with E_BUSY at once and counts it', () => {
  const { q, counters } = setup();
  for (let i = 0; i < 3; i++) assert.equal(add(q, [item(i)]).accepted, true);
  const w = add(q, [item(4)]);
  assert.equal(w.accepted, false);
  assert.equal(w.err.code, 'E_BUSY');
  assert.equal(counters.refused, 1);
  assert.equal(q.length, 3);
});

test('a write larger than a job is queued in parts and resolves when every part did', async () => {
  const { q } = setup({ maxWrites: 10 });
  const items = Array.from({ length: 45 }, (_, i) => ({ addr: `DB2,DWORD${4 * i}`, value: i }));
  const w = add(q, items);
  assert.equal(q.length, 3, '20 + 20 + 5 items');
  const jobs = [];
  while (q.length) jobs.push(q.takeJob(960));
  assert.deepEqual(jobs.map((j) => j.items.length), [20, 20, 5]);
  jobs[0].resolve();
  jobs[1].resolve();
  await flush();
  assert.equal(w.state, 'waiting', 'one part still out');
  jobs[2].resolve();
  await flush();
  assert.equal(w.state, 'resolved');
});

test('one failed part fails the whole split write', async () => {
  const { q } = setup({ maxWrites: 10, maxBatchItems: 2 });
  const w = add(q, [item(0), item(1), item(2)]);
  const a = q.takeJob(960);
  const b = q.takeJob(960);
  a.resolve();
  b.reject(Object.assign(new Error('bad'), { code: 'E_WRITE' }));
  await flush();
  assert.equal(w.state, 'rejected');
  assert.equal(w.err.code, 'E_WRITE');
});

test('writes past their deadline are rejected E_EXPIRED before a job is taken; the rest keep their order', () => {
  const { q, counters, setTime } = setup({ maxWrites: 10 });
  const late = add(q, [item(0)], { deadline: 1500 });
  const none = add(q, [item(1)]);
  const later = add(q, [item(2)], { deadline: 3000 });
  setTime(1500);
  q.dropExpired();
  assert.equal(late.state, 'rejected');
  assert.equal(late.err.code, 'E_EXPIRED');
  assert.match(late.err.message, /not written/);
  assert.equal(counters.expired, 1);
  assert.equal(q.length, 2);
  assert.equal(none.state, 'waiting');
  assert.equal(later.state, 'waiting');
  const job = q.takeJob(960);
  assert.deepEqual(job.items.map((i) => i.addr), ['DB1,X0.1', 'DB1,X0.2']);
});

test('refuseAll rejects every waiting write E_PLC_DOWN with the reason', () => {
  const { q, counters } = setup();
  const a = add(q, [item(0)]);
  const b = add(q, [item(1)]);
  q.refuseAll(new Error('socket closed'));
  assert.equal(q.length, 0);
  for (const w of [a, b]) {
    assert.equal(w.err.code, 'E_PLC_DOWN');
    assert.match(w.err.message, /socket closed/);
  }
  assert.equal(counters.refused, 2);
});

test('a lone write is its own job; merged writes make one job answered together', () => {
  const { q } = setup({ maxWrites: 10 });
  const opSolo = add(q, [item(0)]);
  const solo = q.takeJob(960);
  assert.equal(solo.merged, undefined, 'one write: the job is that write');
  solo.resolve();
  assert.equal(opSolo.state, 'resolved');
  const probes = [0, 1, 2].map((s) => add(q, [{ addr: `DB2,DWORD${4 * s}`, value: s }], { independent: true }));
  const job = q.takeJob(960);
  assert.equal(job.merged, 3);
  assert.deepEqual(job.items, [{ addr: 'DB2,DWORD0.3', value: [0, 1, 2] }], 'neighbouring slots as one array item');
  job.reject(Object.assign(new Error('x'), { code: 'E_WRITE' }));
  assert.ok(probes.every((w) => w.state === 'rejected' && w.err.code === 'E_WRITE'));
});

test('a write split over several jobs is answered once, after every part settled, saying which parts were written', async () => {
  const { q, setTime } = setup({ maxWrites: 10, maxBatchItems: 2 });
  const w = add(q, [item(0), item(1), item(2), item(3)], { deadline: 1500 });
  const a = q.takeJob(960);
  a.resolve(); // the first part went out and was acknowledged
  setTime(1600); // the second part's turn comes after the deadline
  q.dropExpired();
  await flush();
  assert.equal(w.state, 'rejected');
  assert.equal(w.err.code, 'E_EXPIRED');
  assert.deepEqual(w.err.written, [item(0), item(1)], 'the first part was written');
  assert.match(w.err.message, /2 of 4 items were written/);
});

test('a part that failed does not answer the write while other parts may still go out', async () => {
  const { q } = setup({ maxWrites: 10, maxBatchItems: 2 });
  const w = add(q, [item(0), item(1), item(2)]);
  const a = q.takeJob(960);
  a.reject(Object.assign(new Error('bad'), { code: 'E_WRITE' }));
  await flush();
  assert.equal(w.state, 'waiting', 'the second part is still queued: it may yet be written');
  const b = q.takeJob(960);
  b.resolve();
  await flush();
  assert.equal(w.state, 'rejected');
  assert.equal(w.err.code, 'E_WRITE');
  assert.deepEqual(w.err.written, [item(2)]);
});
