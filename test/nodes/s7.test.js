'use strict';
/**
 * The edge's s7twin-s7 node and s7twin-plc config node in a real Node-RED runtime
 * (node-red-node-test-helper) against a real snap7 S7 server (test/helpers/nodes.js startBareS7).
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const registry = require('../../nodes/lib/runtime/registry');
const helper = require('node-red-node-test-helper');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const clock = require('../../nodes/lib/core/clock');
const { startBareS7, waitFor } = require('../helpers/nodes');

const nodes = [require('../../nodes/s7twin-plc'), require('../../nodes/s7twin-s7')];
helper.init(require.resolve('node-red'));

const TAB = 'tab';
const STREAMED = tags.tags.filter((t) => !t.noStream).map((t) => t.short).sort();
let seq = 0;
const cmd = (d, src = 'twin-1') => ({ v: 1, k: 'cmd', src, seq: ++seq, ts: Date.now(), d });

function flow(port) {
  return [
    { id: TAB, type: 'tab', label: 's7' },
    { id: 'plc', type: 's7twin-plc', host: '127.0.0.1', port, rack: 0, slot: 1, cycleMs: 10, timeoutMs: 1000, backoffMaxMs: 300 },
    { id: 's7', type: 's7twin-s7', z: TAB, plc: 'plc', src: 'edge-test', probeTimeoutMs: 3000, x: 100, y: 100, wires: [['out']] },
    { id: 'out', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
  ];
}

describe('s7twin-s7 against a real snap7 S7 server', () => {
  let plc;
  let got;
  let statuses;
  const next = (pred, what, ms = 20000) => waitFor(() => got.find(pred), ms, what);

  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(async () => {
    await helper.unload();
    if (plc) plc.stop();
    plc = null;
  });

  async function load() {
    plc = await startBareS7();
    await helper.load(nodes, flow(plc.port));
    got = [];
    statuses = [];
    helper.getNode('out').on('input', (m) => got.push(m.payload));
    helper.getNode('s7').on('call:status', (c) => statuses.push(c.args[0]));
    await next((e) => e.k === 'snap', 'the first snapshot');
    return { s7: helper.getNode('s7'), conn: helper.getNode('plc').conn };
  }

  it('sends a snap of every streamed tag on connect, then one state per cycle with every changed tag', async () => {
    await load();
    const snap = got.find((e) => e.k === 'snap');
    assert.deepEqual(Object.keys(snap.d).sort(), STREAMED);
    assert.equal(snap.src, 'edge-test');
    plc.set({ c1: 1, red: 1, nb: 5, scn: 99 });
    const st = await next((e) => e.k === 'state' && e.d.c1 === 1, 'a state frame');
    assert.deepEqual(st.d, { c1: 1, red: 1, nb: 5 }, 'all changes of one scan in one frame, noStream tags left out');
    assert.equal(got.filter((e) => e.k === 'state').length, 1);
  });

  it('never writes a request past its deadline: E_EXPIRED, the PLC untouched; a deadline still ahead is written and echoed', async () => {
    const { conn } = await load();
    const writesBefore = conn.counters.writes;
    const late = { ...cmd({ se: 1 }), dl: 1 };
    helper.getNode('s7').receive({ payload: late, deadline: clock.now() - 1 });
    const noEstimate = { ...cmd({ se: 1 }), dl: clock.now() + 60000 }; // a cloud deadline, no msg.deadline
    helper.getNode('s7').receive({ payload: noEstimate });
    const probe = { v: 1, k: 'probe', src: 'twin-1', seq: ++seq, ts: Date.now(), d: { 3: 77 }, dl: 5 };
    helper.getNode('s7').receive({ payload: probe, deadline: clock.now() - 1 });
    for (const r of [late, noEstimate, probe]) {
      const err = await next((e) => e.k === 'err' && e.ref && e.ref.seq === r.seq, 'E_EXPIRED');
      assert.equal(err.e.code, 'E_EXPIRED');
    }
    assert.equal(conn.counters.writes, writesBefore, 'nothing was written');
    assert.equal(plc.values().se, 0);
    assert.equal(plc.probeRequest(3), 0);
    assert.equal(helper.getNode('s7').counters.expired, 3);
    const ok = { ...cmd({ se: 1 }), dl: 4242 };
    helper.getNode('s7').receive({ payload: ok, deadline: clock.now() + 30000 });
    const ack = await next((e) => e.k === 'ack' && e.ref.seq === ok.seq, 'an ack');
    assert.equal(ack.dl, 4242, 'the answer echoes the deadline the cloud gave');
    assert.equal(plc.values().se, 1);
  });

  it('a queued write whose deadline passes before its turn is dropped, never sent', async () => {
    const { conn } = await load();
    const writesBefore = conn.counters.writes;
    // Due now, but queued: it goes out at the next tick, by when its deadline has passed.
    const p = conn.write([{ addr: 'DB1,X0.2', value: true }], { deadline: clock.now() });
    await assert.rejects(p, (err) => err.code === 'E_EXPIRED');
    assert.equal(conn.counters.expired, 1);
    assert.equal(conn.counters.writes, writesBefore);
    assert.equal(plc.values().se, 0);
  });

  it('writes a valid command in one write and answers ack with ref', async () => {
    const { conn } = await load();
    const writesBefore = conn.counters.writes;
    const c = cmd({ se: 1, dmg: true, p1f: 0 });
    c.cid = 'corr-1';
    helper.getNode('s7').receive({ payload: c, _client: 'twin-5' });
    const ack = await next((e) => e.k === 'ack', 'an ack');
    assert.deepEqual(ack.ref, { src: 'twin-1', seq: c.seq });
    assert.equal(ack.cid, 'corr-1');
    assert.equal(conn.counters.writes - writesBefore, 1, 'one S7 write request for three values');
    const v = plc.values();
    assert.equal(v.se, 1);
    assert.equal(v.dmg, 1);
    assert.equal(v.p1f, 0);
    const st = await next((e) => e.k === 'state' && e.d.se === 1, 'the written values streamed back');
    assert.equal(st.d.dmg, 1);
  });

  it('refuses unknown, non-writable and wrongly typed values with err and writes nothing of the frame', async () => {
    const { conn, s7 } = await load();
    const writesBefore = conn.counters.writes;
    const cases = [
      [{ se: 1, bogus: 1 }, 'E_UNKNOWN_TAG'],
      [{ se: 1, c1: 1 }, 'E_NOT_WRITABLE'],
      [{ se: 1, dmg: 2 }, 'E_TYPE'],
      [{}, 'E_EMPTY'],
    ];
    for (const [d, code] of cases) {
      const c = cmd(d);
      s7.receive({ payload: c });
      const err = await next((e) => e.k === 'err' && e.ref && e.ref.seq === c.seq, code);
      assert.equal(err.e.code, code);
    }
    s7.receive({ payload: { v: 1, k: 'state', src: 'twin-1', seq: ++seq, ts: Date.now(), d: { se: 1 } } });
    await next((e) => e.k === 'err' && e.e.code === 'E_KIND', 'E_KIND');
    assert.equal(conn.counters.writes, writesBefore, 'no write was made');
    assert.equal(plc.values().se, 0, 'the PLC is untouched');
    assert.equal(s7.counters.refused, 5);
    assert.equal(got.filter((e) => e.k === 'ack').length, 0);
  });

  it('answers probes from the response slots', async () => {
    await load();
    const p = { v: 1, k: 'probe', src: 'twin-p', seq: ++seq, ts: Date.now(), d: { 5: 123456, 1023: 42 } };
    helper.getNode('s7').receive({ payload: p });
    const res = await next((e) => e.k === 'probe-res', 'a probe-res');
    assert.deepEqual(res.ref, { src: 'twin-p', seq: p.seq });
    const answered = {};
    for (const e of got.filter((x) => x.k === 'probe-res')) Object.assign(answered, e.d);
    await waitFor(() => {
      for (const e of got.filter((x) => x.k === 'probe-res')) Object.assign(answered, e.d);
      return answered[1023] === 42 && answered[5] === 123456;
    }, 20000, 'both slots answered');
    assert.equal(plc.probeRequest(5), 123456);
    helper.getNode('s7').receive({ payload: { ...p, seq: ++seq, d: { 1024: 1 } } });
    await next((e) => e.k === 'err' && e.e.code === 'E_SLOT', 'E_SLOT');
  });

  it('answers probes spread over the whole response DB at once (only their slots read)', async () => {
    await load();
    // One slot in each sixteenth of the 1,024: sixteen ranges of one slot each in one request.
    const d = {};
    for (let b = 0; b < 16; b++) d[b * 64 + (b % 64)] = 1000000 + b;
    const p = { v: 1, k: 'probe', src: 'twin-blocks', seq: ++seq, ts: Date.now(), d };
    helper.getNode('s7').receive({ payload: p });
    const answered = {};
    await waitFor(() => {
      for (const e of got.filter((x) => x.k === 'probe-res' && x.ref && x.ref.src === 'twin-blocks')) Object.assign(answered, e.d);
      return Object.keys(answered).length === 16;
    }, 20000, 'all 16 slots answered');
    assert.deepEqual(answered, d);
    assert.equal(got.filter((x) => x.k === 'err').length, 0, 'no error on the way');
    const c = registry.list().find((e) => e.id === 's7').counters;
    assert.equal(c.pendingProbes, 0, 'nothing left to read');
    assert.ok(c.probeRanges >= 16, `the sixteen slots were read as ranges of their own (${c.probeRanges})`);
  });

  it('answers a snapshot request with fresh values', async () => {
    await load();
    const before = got.filter((e) => e.k === 'snap').length;
    helper.getNode('s7').receive({ topic: 'snapshot', payload: {} });
    helper.getNode('s7').receive({ payload: { k: 'snap-request' } });
    await waitFor(() => got.filter((e) => e.k === 'snap').length >= before + 1, 20000, 'a snap');
  });

  it('PLC down: red ring, E_PLC_DOWN answers, nothing written late; PLC back: reconnects and sends a snap', async () => {
    const { conn, s7 } = await load();
    plc.stop();
    await waitFor(() => !conn.connected, 20000, 'the connection to notice the PLC is gone');
    await waitFor(() => statuses.some((s) => s.fill === 'red' && s.shape === 'ring'), 20000, 'a red ring');
    const c = cmd({ se: 1 });
    s7.receive({ payload: c });
    const err = await next((e) => e.k === 'err' && e.ref && e.ref.seq === c.seq, 'E_PLC_DOWN');
    assert.equal(err.e.code, 'E_PLC_DOWN');
    s7.receive({ topic: 'snapshot' });
    await next((e) => e.k === 'err' && !e.ref && e.e.code === 'E_PLC_DOWN', 'snapshot refused');
    const snapsBefore = got.filter((e) => e.k === 'snap').length;
    const seqBefore = got[got.length - 1].seq;
    plc.restart();
    await waitFor(() => got.filter((e) => e.k === 'snap').length > snapsBefore, 30000, 'a snap after the PLC is back');
    assert.equal(plc.values().se, 0, 'the refused command was never written');
    assert.ok(conn.counters.reconnects >= 1);
    const snap = got.filter((e) => e.k === 'snap').pop();
    assert.ok(snap.seq > seqBefore, 'sequence numbers continue');
    assert.ok(statuses.some((s) => s.fill === 'green'), 'green again');
  });
});
