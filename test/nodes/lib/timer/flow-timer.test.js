'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFlowTimer, csvLine, CSV_HEADER, FlowTimerError } = require('../../../../nodes/lib/timer/flow-timer');
const { createCsvAppender } = require('../../../../nodes/lib/timer/csv-appender');

/** A hand-driven clock, so durations are exact. */
function clock(t = 1000) {
  const c = () => t;
  c.advance = (ms) => { t += ms; };
  return c;
}

test('explicit timers are matched by id, never by order', () => {
  const now = clock();
  const ft = createFlowTimer({ protocol: 'ws', now });
  ft.handle({ timer: { op: 'start', id: 'a', variable: 'c1' } });
  now.advance(10);
  ft.handle({ timer: { op: 'start', id: 'b', variable: 'c1' } });
  now.advance(5);
  const rb = ft.handle({ timer: { op: 'stop', id: 'b' } }).results;
  now.advance(5);
  const ra = ft.handle({ timer: { op: 'stop', id: 'a' } }).results;
  assert.deepEqual(rb, [{ protocol: 'ws', variable: 'c1', id: 'b', ms: 5 }]);
  assert.deepEqual(ra, [{ protocol: 'ws', variable: 'c1', id: 'a', ms: 20 }]);
  assert.equal(ft.pending, 0);
});

test('a repeated start keeps the first time; an unknown stop is counted, not thrown', () => {
  const now = clock();
  const ft = createFlowTimer({ now });
  assert.equal(ft.start('x', 'v'), true);
  now.advance(3);
  assert.equal(ft.start('x', 'v'), false);
  now.advance(3);
  assert.equal(ft.stop({ id: 'x' })[0].ms, 6);
  assert.deepEqual(ft.stop({ id: 'nope' }), []);
  assert.equal(ft.counters.duplicates, 1);
  assert.equal(ft.counters.unmatched, 1);
});

test('cmd envelopes start one timer per timed pair; state stops them', () => {
  const now = clock();
  const ft = createFlowTimer({ protocol: 'ws', now });
  const started = ft.handle({ payload: { k: 'cmd', src: 'twin-1', seq: 4, d: { sd: 1, dmg: 1 } } }).started;
  assert.deepEqual(started.sort(), ['p2fw:twin-1:4', 'red:twin-1:4']);
  now.advance(12);
  const res = ft.handle({ payload: { k: 'state', d: { c1: 0, p2fw: 1, red: 1 } } }).results;
  assert.deepEqual(res.map((r) => [r.variable, r.ms]).sort(), [['p2fw', 12], ['red', 12]]);
});

test('another plant\'s table times its own pairs: the tank\'s valve command and its feedback', () => {
  const path = require('node:path');
  const file = path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json');
  const tank = require('../../../../nodes/lib/core/io-table').loadTable({ file });
  const now = clock();
  const ft = createFlowTimer({ protocol: 'ws', now, table: tank });
  assert.deepEqual(ft.handle({ payload: { k: 'cmd', src: 'twin-1', seq: 1, d: { sd: 1, dmg: 1 } } }).started, [], 'not the tank\'s tags');
  assert.deepEqual(ft.handle({ payload: { k: 'cmd', src: 'twin-1', seq: 2, d: { vlv: 1, sp: 40 } } }).started, ['vo:twin-1:2']);
  now.advance(7);
  assert.deepEqual(ft.handle({ payload: { k: 'state', d: { vo: 1, lvl: 40 } } }).results.map((r) => [r.variable, r.ms]), [['vo', 7]]);
});

test('a with-condition sent in an earlier frame still counts; dmg=0 starts no reject timers', () => {
  const ft = createFlowTimer({ now: clock() });
  ft.envelope({ k: 'cmd', src: 't', seq: 1, d: { dmg: 1 } });
  assert.equal(ft.envelope({ k: 'cmd', src: 't', seq: 2, d: { sd: 1 } }).started.length, 2);
  ft.envelope({ k: 'cmd', src: 't', seq: 3, d: { sd: 0, dmg: 0 } });
  assert.deepEqual(ft.envelope({ k: 'cmd', src: 't', seq: 4, d: { sd: 1 } }).started, []);
});

test('every timed pair of Table 1 is started by its trigger', () => {
  const ft = createFlowTimer({ now: clock() });
  const { started } = ft.envelope({ k: 'cmd', src: 't', seq: 1, d: { st: 1, p1f: 1, sd: true, dmg: true, sk: 1 } });
  assert.deepEqual(started.map((id) => id.split(':')[0]).sort(), ['c1', 'p1bw', 'p2fw', 'p3fw', 'red']);
});

test('an output taking the other value does not stop its timer', () => {
  const ft = createFlowTimer({ now: clock() });
  ft.envelope({ k: 'cmd', src: 't', seq: 1, d: { st: 1 } });
  assert.deepEqual(ft.envelope({ k: 'state', d: { c1: 0 } }).results, []);
  assert.equal(ft.envelope({ k: 'snap', d: { c1: 1 } }).results.length, 1);
});

test('probes start probe:<slot>:<value> and probe-res stops exactly that one', () => {
  const now = clock();
  const ft = createFlowTimer({ now });
  ft.envelope({ k: 'probe', src: 'lg', seq: 1, d: { 3: 100, 4: 7 } });
  now.advance(2);
  const r = ft.envelope({ k: 'probe-res', d: { 4: 7 } }).results;
  assert.deepEqual(r, [{ protocol: '', variable: 'probe:4', id: 'probe:4:7', ms: 2 }]);
  assert.deepEqual(ft.envelope({ k: 'probe-res', d: { 3: 99 } }).results, []);
  assert.equal(ft.counters.unmatched, 1);
  assert.equal(ft.pending, 1);
});

test('timers that outlive the timeout expire, are counted and freed', () => {
  const now = clock();
  const ft = createFlowTimer({ now, timeoutMs: 100 });
  ft.start('old', 'c1');
  now.advance(60);
  ft.start('young', 'c1');
  now.advance(50);
  assert.deepEqual(ft.sweep(), [{ variable: 'c1', id: 'old' }]);
  assert.equal(ft.stats().expired, 1);
  assert.equal(ft.pending, 1);
  assert.deepEqual(ft.stop({ id: 'old' }), []);
});

test('pending timers are bounded', () => {
  const ft = createFlowTimer({ now: clock(), maxPending: 2 });
  ft.start('a'); ft.start('b');
  assert.equal(ft.start('c'), false);
  assert.equal(ft.counters.overflow, 1);
});

test('stats carry the documented fields and per-variable figures', () => {
  const now = clock();
  const ft = createFlowTimer({ protocol: 'mqtt', now });
  for (const ms of [10, 20, 30]) { ft.start(`i${ms}`, 'c1'); now.advance(ms); ft.stop({ id: `i${ms}` }); }
  const s = ft.stats();
  for (const k of ['protocol', 'n', 'mean', 'median', 'p95', 'p99', 'min', 'max', 'sd', 'expired']) assert.ok(k in s, k);
  assert.equal(s.n, 3);
  assert.equal(s.mean, 20);
  assert.equal(s.min, 10);
  assert.equal(s.max, 30);
  assert.equal(s.variables.c1.n, 3);
  assert.equal(createFlowTimer().stats().mean, null);
});

test('per-variable statistics are bounded: the least recently timed variable makes room', () => {
  const now = clock();
  const ft = createFlowTimer({ now, maxVariables: 3 });
  const time = (variable, ms) => { const id = `${variable}-${ms}`; ft.start(id, variable); now.advance(ms); ft.stop({ id }); };
  time('a', 1); time('b', 2); time('c', 3);
  time('a', 4); // a is now the most recently timed: b is the oldest
  time('d', 5);
  const s = ft.stats();
  assert.deepEqual(Object.keys(s.variables).sort(), ['a', 'c', 'd']);
  assert.equal(s.evicted, 1);
  assert.equal(s.variables.a.n, 2);
  assert.equal(s.n, 5, 'every sample stays in the overall statistics');
  // ids used as variables (msg.timer without a variable) cannot grow memory without bound
  for (let i = 0; i < 100; i++) ft.handle({ timer: { op: 'start', id: `u${i}` } });
  for (let i = 0; i < 100; i++) ft.handle({ timer: { op: 'stop', id: `u${i}` } });
  assert.equal(Object.keys(ft.stats().variables).length, 3);
  assert.equal(ft.stats().evicted, 101);
});

test('statsAsync gives what stats gives, in slices that let other work through', async () => {
  const now = clock();
  const ft = createFlowTimer({ now });
  for (let r = 0; r < 30; r++) {
    for (let slot = 0; slot < 1000; slot++) ft.envelope({ k: 'probe', d: { [slot]: r } });
    now.advance(3 + (r % 7));
    for (let slot = 0; slot < 1000; slot++) ft.envelope({ k: 'probe-res', d: { [slot]: r } });
  }
  let turns = 0;
  let spinning = true;
  const spin = () => { turns += 1; if (spinning) setImmediate(spin); };
  setImmediate(spin);
  let s;
  try {
    s = await ft.statsAsync({ sliceMs: 0.01 });
  } finally {
    spinning = false;
  }
  assert.deepEqual(s, ft.stats());
  assert.equal(Object.keys(s.variables).length, 1000);
  assert.equal(s.variables['probe:7'].n, 30);
  assert.ok(turns > 10, `other work ran ${turns} times while the statistics were made`);
  const b = ft.brief();
  assert.equal(b.n, s.n);
  assert.ok(Math.abs(b.mean - s.mean) < 0.001 && Math.abs(b.p99 - s.p99) < 0.001);
});

test('bad input throws FlowTimerError with stable codes', () => {
  const ft = createFlowTimer();
  const code = (fn) => { try { fn(); } catch (err) { assert.ok(err instanceof FlowTimerError); return err.code; } return null; };
  assert.equal(code(() => ft.handle({ timer: { op: 'jump', id: 1 } })), 'E_TIMER_OP');
  assert.equal(code(() => ft.handle({ timer: { op: 'start' } })), 'E_TIMER_ID');
  assert.equal(code(() => ft.handle({ payload: '{nope' })), 'E_TIMER_INPUT');
  assert.equal(code(() => ft.handle({ payload: 42 })), 'E_TIMER_INPUT');
  assert.equal(ft.handle({ payload: '{"k":"cmd","src":"a","seq":1,"d":{"st":1}}' }).started.length, 1);
});

test('csvLine formats time,protocol,variable,id,ms and quotes what needs it', () => {
  const line = csvLine({ protocol: 'ws', variable: 'c1', id: 'c1:a,b', ms: 1.23456 }, Date.UTC(2025, 0, 2, 3, 4, 5, 6));
  assert.equal(line, '2025-01-02T03:04:05.006Z,ws,c1,"c1:a,b",1.235');
});

test('the CSV appender creates the folder, writes the header once and appends in order', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ft-'));
  const file = path.join(dir, 'deep', 'er', 'x.csv');
  try {
    const a = createCsvAppender(file, { header: CSV_HEADER, flushMs: 60000 });
    a.write('1'); a.write('2');
    assert.equal(a.buffered, 2);
    await a.flush();
    a.write('3');
    await a.close();
    a.write('4'); // after close: dropped, never thrown
    const b = createCsvAppender(file, { header: CSV_HEADER });
    b.write('5');
    await b.close();
    assert.equal(fs.readFileSync(file, 'utf8'), `${CSV_HEADER}\n1\n2\n3\n5\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the CSV appender is its own module and wants its header line', () => {
  assert.throws(() => createCsvAppender(path.join(os.tmpdir(), 'never.csv'), {}), { code: 'E_CSV_HEADER' });
  assert.equal(require('../../../../nodes/lib/timer/flow-timer').createCsvAppender, undefined, 'flow-timer.js times; csv-appender.js writes');
});
