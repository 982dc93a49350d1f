'use strict';
/**
 * s7twin-s7 against the REAL virtual PLC (plc/, its box-sorting program on a 10 ms scan): the
 * program's reactions to a command stream back as state frames; probes go through the PLC's own
 * scan copy; the PLC going away and coming back on the same port.
 * (Its own file: node-snap7 allows one S7Server per process, and the other s7 tests use theirs.)
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const { createPlc } = require('../../plc');
const { waitFor } = require('../helpers/nodes');

const nodes = [require('../../nodes/s7twin-plc'), require('../../nodes/s7twin-s7')];
helper.init(require.resolve('node-red'));

const plcOpts = (port, o = {}) => ({ scanMs: 10, s7: { host: '127.0.0.1', port }, opcua: false, modbus: false, mqtt: false, ...o });
let seq = 0;
const frame = (k, d) => ({ v: 1, k, src: 'twin-plc', seq: ++seq, ts: Date.now(), d });

describe('s7twin-s7 against the virtual PLC', () => {
  let plc;
  let got;
  const next = (pred, what, ms = 20000) => waitFor(() => got.find(pred), ms, what);

  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(async () => {
    await helper.unload();
    if (plc) await plc.stop();
    plc = null;
  });

  async function load(plcConfig = {}, plcOptions = {}) {
    plc = await createPlc(plcOpts(0, plcOptions));
    await helper.load(nodes, [
      { id: 'tab', type: 'tab', label: 'plc' },
      { id: 'plc', type: 's7twin-plc', host: '127.0.0.1', port: plc.ports.s7, cycleMs: 10, timeoutMs: 1000, backoffMaxMs: 300, ...plcConfig },
      { id: 's7', type: 's7twin-s7', z: 'tab', plc: 'plc', src: 'edge-plc', x: 100, y: 100, wires: [['out']] },
      { id: 'out', type: 'helper', z: 'tab', x: 300, y: 100, wires: [] },
    ]);
    got = [];
    helper.getNode('out').on('input', (m) => got.push(m.payload));
    await next((e) => e.k === 'snap', 'the first snapshot');
  }

  it('start button: ack, then the program\'s outputs (c1, grn) stream back as state', async () => {
    await load();
    const s7 = helper.getNode('s7');
    const c = frame('cmd', { st: 1 });
    s7.receive({ payload: c });
    await next((e) => e.k === 'ack' && e.ref.seq === c.seq, 'the ack');
    const st = await next((e) => e.k === 'state' && e.d.c1 === 1, 'conveyor 1 running');
    assert.equal(st.d.grn === 1 || got.some((e) => e.k === 'state' && e.d.grn === 1), true);
    s7.receive({ payload: frame('cmd', { st: 0 }) });
    await waitFor(() => plc.values().st === 0);
    assert.equal(plc.values().c1, 1, 'the running latch holds');
  });

  it('probes round-trip through the PLC scan', async () => {
    await load();
    const p = frame('probe', { 3: 777001, 900: 777002 });
    helper.getNode('s7').receive({ payload: p });
    const answered = {};
    await waitFor(() => {
      for (const e of got) if (e.k === 'probe-res' && e.ref.seq === p.seq) Object.assign(answered, e.d);
      return answered[3] === 777001 && answered[900] === 777002;
    }, 20000, 'both probe slots answered');
  });

  // The read cycle here is 2 s, so a probe answered within a second was seen by a chase read.
  // A chase ends at the first change it sees (lib/s7/read-pacer.js). The PLC pushes its scan
  // counter through its own S7 client, so a refresh from a scan that began before the probe landed
  // can arrive during the chase and end it before the answer: then the answer is the follow-up
  // read's, chaseMs later (before that read existed, the next cycle's: a CI run saw 2018 ms). With
  // the counter left alone (the plant is idle) the only change a chase can see is the answer.
  it('after a write it reads readGapMs apart for up to chaseMs: the answer is seen within the next scans, not the next cycle', async () => {
    await load({ cycleMs: 2000, chaseMs: 500 }, { scanCountEvery: 1e9 });
    const conn = helper.getNode('plc').conn;
    await new Promise((r) => setTimeout(r, 50)); // past the snapshot read and any chase it started
    for (let i = 0; i < 3; i++) {
      const p = frame('probe', { 5: 555000 + i });
      const t0 = Date.now();
      helper.getNode('s7').receive({ payload: p });
      const res = await next((e) => e.k === 'probe-res' && e.ref.seq === p.seq, 'the probe answer', 5000);
      assert.equal(res.d[5], 555000 + i);
      assert.ok(Date.now() - t0 < 1000, `answered after ${Date.now() - t0} ms: not by a chase read`);
    }
    assert.ok(conn.counters.chaseReads > 0);
    assert.equal(conn.counters.rests, 0, 'a one-PDU read never rests');
  });

  it('readGapMs from the editor spaces the chase reads: a PLC that must not be read every 2 ms', async () => {
    // Cycle 5 s, chase 1 s, gap 200 ms; the plant idle and its scan counter left alone. After the
    // probe's write a read comes at once, and the next one 200 ms after it (2 ms with the default
    // gap); the answer is seen by one of them, long before the next cycle.
    await load({ cycleMs: 5000, chaseMs: 1000, readGapMs: 200 }, { scanCountEvery: 1e9 });
    const conn = helper.getNode('plc').conn;
    await new Promise((r) => setTimeout(r, 50)); // past the snapshot read and any chase it started
    const reads = [];
    conn.on('data', () => reads.push(performance.now()));
    const p = frame('probe', { 7: 777123 });
    const t0 = performance.now();
    helper.getNode('s7').receive({ payload: p });
    const res = await next((e) => e.k === 'probe-res' && e.ref.seq === p.seq, 'the probe answer', 5000);
    assert.equal(res.d[7], 777123);
    assert.ok(performance.now() - t0 < 2500, `answered after ${Math.round(performance.now() - t0)} ms: by a chase read, not the 5 s cycle`);
    await waitFor(() => reads.length >= 2, 5000, 'two reads after the write');
    // Times are when reads came back: 200 ms between starts, less whatever the first took longer
    // than the second (milliseconds on a busy machine).
    const gaps = reads.slice(1).map((t, i) => t - reads[i]);
    assert.ok(gaps.every((g) => g >= 150), `reads ${gaps.map((g) => g.toFixed(1))} ms apart: the gap is 200 ms`);
  });

  it('chaseMs 0: no chase reads (the answer waits for the read cycle)', async () => {
    await load({ cycleMs: 300, chaseMs: 0 });
    const conn = helper.getNode('plc').conn;
    const p = frame('probe', { 6: 666001 });
    helper.getNode('s7').receive({ payload: p });
    await next((e) => e.k === 'probe-res' && e.ref.seq === p.seq, 'the probe answer', 5000);
    assert.equal(conn.counters.chaseReads, 0);
  });

  it('PLC gone: E_PLC_DOWN; PLC back on the same port: reconnect and a fresh snap', async () => {
    await load();
    const port = plc.ports.s7;
    const conn = helper.getNode('plc').conn;
    await plc.stop();
    plc = null;
    await waitFor(() => !conn.connected, 20000, 'the loss to be noticed');
    const c = frame('cmd', { se: 1 });
    helper.getNode('s7').receive({ payload: c });
    const err = await next((e) => e.k === 'err' && e.ref && e.ref.seq === c.seq, 'E_PLC_DOWN');
    assert.equal(err.e.code, 'E_PLC_DOWN');
    const snaps = got.filter((e) => e.k === 'snap').length;
    plc = await createPlc(plcOpts(port));
    await waitFor(() => got.filter((e) => e.k === 'snap').length > snaps, 30000, 'a snap after the PLC is back');
    assert.equal(plc.values().se, 0, 'the refused command was not written late');
  });
});
