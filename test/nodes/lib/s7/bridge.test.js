'use strict';
/**
 * nodes/lib/s7/bridge.js over a stand-in connection: snaps and states from reads, every request
 * answered once, the status following the connection, nothing left listening after close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();
const clock = require('../../../../nodes/lib/core/clock');
const { createS7Bridge, createScanMerger, statusOf, newCounters } = require('../../../../nodes/lib/s7/bridge');

function fakeConn() {
  const conn = new EventEmitter();
  Object.assign(conn, {
    state: 'connected', connected: true, writes: [], reads: 0, followers: new Set(), ioAddrs: ['DB1,BYTE0.16'], maxPdu: 960,
    write(items, opts) { conn.writes.push({ items, opts }); return Promise.resolve(); },
    readSoon() { conn.reads += 1; },
    follow(fn) { conn.followers.add(fn); return () => conn.followers.delete(fn); },
    /** The addresses the next read would ask for besides the I/O ranges. */
    extraAddrs() { return [...conn.followers].flatMap((fn) => fn()); },
  });
  return conn;
}
function setup() {
  const conn = fakeConn();
  const out = [];
  const statuses = [];
  const bridge = createS7Bridge({ conn, src: 'edge-t', send: (m) => out.push(m), setStatus: (...a) => statuses.push(a) });
  const input = (msg) => new Promise((resolve) => bridge.input(msg, resolve));
  return { conn, out, statuses, bridge, input };
}
function block(values) {
  const buf = Buffer.alloc(tags.ioDbSize);
  for (const [short, v] of Object.entries(values)) tags.writeTag(buf, tags.get(short), v);
  return buf;
}
let seq = 0;
const env = (k, d, extra = {}) => ({ v: 1, k, src: 'twin', seq: ++seq, ts: Date.now(), d, ...extra });

test('the first read is a snap, then one state per read with changes, none without', () => {
  const s = setup();
  s.conn.emit('data', block({ c1: 0 }), {});
  s.conn.emit('data', block({ c1: 1 }), {});
  s.conn.emit('data', block({ c1: 1 }), {});
  assert.deepEqual(s.out.map((m) => m.payload.k), ['snap', 'state']);
  assert.deepEqual(s.out[1].payload.d, { c1: 1 });
  assert.equal(s.out[0].payload.src, 'edge-t');
  s.conn.emit('connect');
  s.conn.emit('data', block({ c1: 1 }), {});
  assert.equal(s.out[2].payload.k, 'snap', 'a reconnect starts with a snap');
  assert.deepEqual([s.bridge.counters.snaps, s.bridge.counters.states], [2, 1]);
  s.bridge.close();
});

test('a snapshot request makes the next read a snap; with the PLC down it is answered E_PLC_DOWN', async () => {
  const s = setup();
  s.conn.emit('data', block({}), {});
  await s.input({ topic: 'snapshot' });
  assert.equal(s.conn.reads, 1);
  s.conn.emit('data', block({}), {});
  assert.deepEqual(s.out.map((m) => m.payload.k), ['snap', 'snap']);
  s.conn.connected = false;
  await s.input({ payload: { k: 'snap-request' }, _client: 'tw' });
  assert.equal(s.out[2].payload.e.code, 'E_PLC_DOWN');
  assert.equal(s.out[2]._client, 'tw');
  s.bridge.close();
});

test('a command is written and acked; a late one is answered E_EXPIRED and never written', async () => {
  const s = setup();
  const ok = env('cmd', { se: 1 });
  await s.input({ payload: ok, deadline: clock.now() + 60000 });
  const late = env('cmd', { se: 1 });
  await s.input({ payload: late, deadline: clock.now() - 1 });
  assert.equal(s.conn.writes.length, 1);
  assert.deepEqual(s.out.map((m) => [m.payload.k, m.payload.ref.seq]), [['ack', ok.seq], ['err', late.seq]]);
  assert.equal(s.out[1].payload.e.code, 'E_EXPIRED');
  assert.deepEqual([s.bridge.counters.cmds, s.bridge.counters.expired], [2, 1]);
  s.bridge.close();
});

test('a probe is answered with probe-res once a read shows its slot', async () => {
  const s = setup();
  const p = env('probe', { 5: 4242 });
  await s.input({ payload: p });
  assert.deepEqual(s.conn.extraAddrs(), ['DB3,DWORD20.1'], 'the pending response slot is read');
  s.conn.emit('data', block({}), { 'DB3,DWORD20.1': 4242 });
  const res = s.out.find((m) => m.payload.k === 'probe-res');
  assert.deepEqual(res.payload.d, { 5: 4242 });
  assert.deepEqual(res.payload.ref, { src: 'twin', seq: p.seq });
  assert.equal(s.bridge.stats().pendingProbes, 0);
  assert.deepEqual(s.conn.extraAddrs(), [], 'answered: no longer read');
  s.bridge.close();
  assert.equal(s.conn.followers.size, 0, 'close stops naming ranges');
});

test('a bad envelope fails the message (done(err)) and is answered; a wrong kind is refused E_KIND', async () => {
  const s = setup();
  const err = await s.input({ payload: '{not json' });
  assert.ok(err instanceof Error);
  assert.equal(s.bridge.counters.invalid, 1);
  assert.equal(s.out[0].payload.k, 'err');
  assert.equal(await s.input({ payload: env('state', { se: 1 }) }), undefined);
  assert.equal(s.out[1].payload.e.code, 'E_KIND');
  assert.equal(s.bridge.counters.refused, 1);
  s.bridge.close();
});

test('the status follows the connection; close stops listening', () => {
  const s = setup();
  assert.deepEqual(s.statuses[0], ['connected', 'PLC connected']);
  s.conn.emit('status', 'disconnected', 'E_READ');
  assert.deepEqual(s.statuses[1], ['disconnected', 'PLC down']);
  s.bridge.close();
  s.conn.emit('status', 'connecting');
  s.conn.emit('data', block({}), {});
  assert.equal(s.statuses.length, 2);
  assert.equal(s.out.length, 0);
  for (const ev of ['status', 'connect', 'disconnect', 'data']) assert.equal(s.conn.listenerCount(ev), 0, ev);
});

test('statusOf and newCounters', () => {
  assert.deepEqual(statusOf('connecting'), ['connecting', 'connecting to PLC']);
  assert.deepEqual(statusOf('disconnected', 'closed'), ['disconnected', 'PLC disconnected']);
  assert.ok(Object.values(newCounters()).every((v) => v === 0));
});

test('one state per scan: input-only changes wait for the outputs of the scan and go out with them, or alone after holdMs', async () => {
  const states = [];
  const m = createScanMerger(30, (d) => states.push(d));
  m.changed({});
  m.changed({ se: 1 }); // the read right after a write: the input, before the PLC scanned it
  assert.equal(states.length, 0, 'an input-only change waits');
  m.changed({ c1: 1, p1fw: 1 }); // the scan's outputs
  assert.deepEqual(states, [{ se: 1, c1: 1, p1fw: 1 }]);
  m.changed({ grn: 0 });
  assert.deepEqual(states[1], { grn: 0 }, 'outputs never wait');
  m.changed({ sd: 1 });
  m.changed({ dmg: 1 });
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual(states[2], { sd: 1, dmg: 1 }, 'inputs no output followed go out after holdMs, merged');
  m.changed({ se: 0 });
  m.clear();
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(states.length, 3, 'a snap or a lost connection drops what waits');
  const now = [];
  const off = createScanMerger(0, (d) => now.push(d));
  off.changed({ se: 1 });
  assert.deepEqual(now, [{ se: 1 }], 'holdMs 0: every read with changes at once');
});

test('the bridge merges a write\'s input echo with the scan\'s outputs into one state', async () => {
  const conn = fakeConn();
  const out = [];
  const bridge = createS7Bridge({ conn, src: 'edge-t', holdMs: 50, send: (m) => out.push(m), setStatus: () => {} });
  conn.emit('data', block({}), {});
  conn.emit('data', block({ se: 1 }), {});
  conn.emit('data', block({ se: 1, c1: 1 }), {});
  assert.deepEqual(out.map((m) => [m.payload.k, m.payload.d]).slice(1), [['state', { se: 1, c1: 1 }]]);
  assert.equal(bridge.counters.states, 1);
  bridge.close();
});

test('idempotency keys: a key is written once; a repeat is answered with the first outcome; a copy of a write on its way waits for it', async () => {
  const conn = fakeConn();
  let release;
  conn.write = (items, opts) => { conn.writes.push({ items, opts }); return new Promise((r) => { release = r; }); };
  const out = [];
  const bridge = createS7Bridge({ conn, src: 'edge-t', send: (m) => out.push(m), setStatus: () => {} });
  const input = (msg) => new Promise((resolve) => bridge.input(msg, resolve));
  const dl = (ms) => ({ deadline: clock.now() + ms });
  const first = input({ payload: env('cmd', { st: 1 }, { key: 'k-1' }), ...dl(5000) });
  await new Promise((r) => setImmediate(r));
  const copy = input({ payload: env('cmd', { st: true }, { key: 'k-1' }), ...dl(5000) }); // the same command sent again
  await new Promise((r) => setImmediate(r));
  assert.equal(conn.writes.length, 1, 'the copy is not written');
  release();
  await Promise.all([first, copy]);
  await input({ payload: env('cmd', { st: 1 }, { key: 'k-1' }), deadline: clock.now() - 10 }); // late, but a repeat
  await input({ payload: env('cmd', { st: 0 }, { key: 'k-1' }), ...dl(5000) }); // the key for other values
  await input({ payload: env('cmd', { sp: 1 }, { key: 'k-2', ask: true }), ...dl(5000) }); // asked about, never seen
  await input({ payload: env('cmd', { sp: 1 }, { key: 'k-2' }), ...dl(5000) }); // the late copy of it
  assert.equal(conn.writes.length, 1, 'one write in all');
  const answers = out.map((m) => m.payload).map((p) => [p.k, p.e && p.e.code, p.key, p.repeat]);
  assert.deepEqual(answers, [
    ['ack', undefined, 'k-1', undefined],
    ['ack', undefined, 'k-1', true],
    ['ack', undefined, 'k-1', true],
    ['err', 'E_KEY_REUSED', 'k-1', undefined],
    ['err', 'E_EXPIRED', 'k-2', undefined],
    ['err', 'E_EXPIRED', 'k-2', true],
  ]);
  assert.deepEqual([bridge.counters.keyRepeats, bridge.counters.keyReused, bridge.counters.keyAsks], [3, 1, 1]);
  bridge.close();
});

test('idempotency keys: a late or refused first command is recorded as such; a command without a key is untouched', async () => {
  const s = setup();
  await s.input({ payload: env('cmd', { st: 1 }, { key: 'late' }), deadline: clock.now() - 1 });
  await s.input({ payload: env('cmd', { c1: 1 }, { key: 'bad' }), deadline: clock.now() + 5000 });
  await s.input({ payload: env('cmd', { c1: 1 }, { key: 'bad' }), deadline: clock.now() + 5000 });
  await s.input({ payload: env('cmd', { st: 1 }), deadline: clock.now() + 5000 });
  assert.deepEqual(s.out.map((m) => [m.payload.k, m.payload.e && m.payload.e.code, m.payload.key, m.payload.repeat]), [
    ['err', 'E_EXPIRED', 'late', undefined],
    ['err', 'E_NOT_WRITABLE', 'bad', undefined],
    ['err', 'E_NOT_WRITABLE', 'bad', true],
    ['ack', undefined, undefined, undefined],
  ]);
  assert.equal(s.conn.writes.length, 1);
  s.bridge.close();
});
