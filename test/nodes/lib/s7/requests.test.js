'use strict';
/** nodes/lib/s7/requests.js: cmd and probe checked, written, and answered exactly once. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createRequests, lateness, commandFailure, answerFields } = require('../../../../nodes/lib/s7/requests');

function setup(writeResult = () => Promise.resolve()) {
  const counters = { cmds: 0, acks: 0, refused: 0, writeErrors: 0, probes: 0, expired: 0 };
  const writes = [];
  const answers = [];
  const tracked = [];
  let readSoon = 0;
  const conn = { write: (items, opts) => { writes.push({ items, opts }); return writeResult(); }, readSoon: () => { readSoon += 1; } };
  const r = createRequests({
    conn, counters, probes: { track: (...a) => tracked.push(a) },
    answer: (k, fields, client) => answers.push({ k, fields, client }),
    answerErr: (err, about, client) => answers.push({ k: 'err', code: err.code, about, client }),
  });
  /** Run one request to its done(). */
  const run = (kind, env, msg = {}) => new Promise((resolve) => r[kind](env, { payload: env, ...msg }, resolve));
  return { r, run, counters, writes, answers, tracked, readSoon: () => readSoon };
}
const env = (k, d, extra = {}) => ({ v: 1, k, src: 'twin', seq: 7, ts: 1, d, ...extra });
const failWith = (code) => () => Promise.reject(Object.assign(new Error(code), { code }));

test('lateness: a local deadline passed or a foreign one with no estimate refuses; none or ahead writes', () => {
  assert.equal(lateness(env('cmd', {}), {}, 100), null);
  assert.equal(lateness(env('cmd', {}), { deadline: 101 }, 100), null);
  assert.match(lateness(env('cmd', {}), { deadline: 90 }, 100), /deadline passed 10 ms before/);
  assert.match(lateness(env('cmd', {}, { dl: 5 }), {}, 100), /another host's clock/);
});

test('commandFailure sorts write errors into their counters', () => {
  assert.deepEqual(['E_EXPIRED', 'E_PLC_DOWN', 'E_BUSY', 'E_OUTCOME_UNKNOWN', 'E_WRITE'].map(commandFailure),
    ['expired', 'refused', 'refused', 'unknownOutcomes', 'writeErrors']);
});

test('answerFields carries ref and dl, and cid only when the request had one', () => {
  assert.deepEqual(answerFields(env('cmd', {}, { dl: 9 })), { ref: { src: 'twin', seq: 7 }, dl: 9 });
  assert.deepEqual(answerFields(env('cmd', {}, { cid: 'c' })).cid, 'c');
});

test('a valid command is written whole, with its deadline, and acked', async () => {
  const s = setup();
  await s.run('command', env('cmd', { se: 1, dmg: 0 }, { cid: 'x' }), { deadline: 5000, _client: 'tw' });
  assert.deepEqual(s.writes, [{
    items: [{ short: 'se', addr: 'DB1,X0.2', value: true }, { short: 'dmg', addr: 'DB1,X0.6', value: false }], opts: { deadline: 5000 },
  }]);
  assert.deepEqual(s.answers, [{ k: 'ack', fields: { ref: { src: 'twin', seq: 7 }, dl: undefined, cid: 'x' }, client: 'tw' }]);
  assert.deepEqual([s.counters.cmds, s.counters.acks], [1, 1]);
});

test('a command with one bad value is refused whole and nothing is written', async () => {
  const s = setup();
  await s.run('command', env('cmd', { se: 1, nope: 1 }));
  assert.equal(s.writes.length, 0);
  assert.deepEqual(s.answers.map((a) => a.code), ['E_UNKNOWN_TAG']);
  assert.equal(s.counters.refused, 1);
});

test('a command whose write fails is answered with the write\'s code and counted by it', async () => {
  for (const [code, counter] of [['E_PLC_DOWN', 'refused'], ['E_OUTCOME_UNKNOWN', 'unknownOutcomes'], ['E_WRITE', 'writeErrors'], ['E_EXPIRED', 'expired']]) {
    const s = setup(failWith(code));
    await s.run('command', env('cmd', { se: 1 }));
    assert.deepEqual(s.answers.map((a) => a.code), [code]);
    assert.equal(s.counters[counter], 1, code);
    assert.equal(s.counters.acks, 0);
  }
});

test('a probe is written as independent slot writes, then tracked; no read asked for out of turn, no answer yet', async () => {
  const s = setup();
  await s.run('probe', env('probe', { 5: 55 }, { cid: 'p', dl: 3 }), { _client: 'tw' });
  assert.deepEqual(s.writes, [{ items: [{ addr: 'DB2,DWORD20', value: 55 }], opts: { independent: true } }]);
  assert.equal(s.tracked.length, 1);
  assert.deepEqual(s.tracked[0][0], { src: 'twin', seq: 7, cid: 'p', dl: 3 });
  assert.equal(s.tracked[0][1], 'tw');
  assert.equal(s.readSoon(), 0, 'the connection reads readGapMs after its last read, as after any write');
  assert.equal(s.answers.length, 0, 'the probe-res comes from the tracker');
});

test('a bad or refused probe is answered with an error and never tracked', async () => {
  const bad = setup();
  await bad.run('probe', env('probe', { 5000: 1 }));
  assert.deepEqual(bad.answers.map((a) => a.code), ['E_SLOT']);
  assert.equal(bad.writes.length, 0);
  const late = setup(failWith('E_EXPIRED'));
  await late.run('probe', env('probe', { 5: 1 }));
  assert.deepEqual(late.answers.map((a) => a.code), ['E_EXPIRED']);
  assert.equal(late.counters.expired, 1);
  assert.equal(late.tracked.length, 0);
});

test('a probe frame written in part is answered once, with the slots that were written', async () => {
  const { probeItems } = require('../../../../nodes/lib/s7/edge');
  const d = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [String(100 + 2 * i), i + 1]));
  const items = probeItems(d);
  const written = items.slice(0, 20).map((i) => ({ addr: i.addr, value: i.value }));
  const partly = () => Promise.reject(Object.assign(new Error('20 of 25 items were written'), { code: 'E_EXPIRED', written }));
  const got = [];
  const r = createRequests({
    conn: { write: () => partly(), readSoon() {} }, counters: { probes: 0, expired: 0, refused: 0 }, probes: { track() {} },
    answer() {}, answerErr: (err) => got.push(err),
  });
  await new Promise((resolve) => r.probe(env('probe', d), { payload: env('probe', d) }, resolve));
  assert.equal(got.length, 1);
  assert.equal(got[0].code, 'E_EXPIRED');
  assert.equal(Object.keys(got[0].d).length, 20);
  assert.equal(got[0].d['100'], 1);
  assert.equal(got[0].d['148'], undefined, 'the 25th slot was not written');
});
