'use strict';
/**
 * The WebSocket–S7 path end to end, as a user runs it: virtual S7-1500, edge Node-RED and cloud
 * Node-RED with the project's own flows, and the headless twin.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const WebSocket = require('ws');
const { startWsSystem } = require('../helpers/system');
const { waitFor } = require('../helpers/nodered');
const { runTwin } = require('../../twin/run');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const envelope = require('../../nodes/lib/core/envelope');
const codec = require('../../nodes/lib/core/codec');

const TIMED = tags.timedPairs().map((p) => p.output).sort();

/** A raw twin connection that collects every frame it receives. */
async function rawTwin(sys, opts = {}) {
  const headers = opts.token === null ? {} : { Authorization: `Bearer ${opts.token || sys.token}` };
  const ws = new WebSocket(sys.twinUrl, { headers, perMessageDeflate: false });
  const frames = [];
  ws.on('message', (d) => frames.push(JSON.parse(d)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { ws, frames, close: () => new Promise((r) => { ws.once('close', r); ws.close(); }) };
}

/** Current PLC state as the cloud's snapshot tells a fresh twin. */
async function snapshot(sys) {
  const t = await rawTwin(sys);
  const snap = await waitFor(() => t.frames.find((f) => f.k === 'snap'), 10000, 'snapshot');
  await t.close();
  return snap.d;
}

test('WebSocket–S7 path end to end', async (t) => {
  const sys = await startWsSystem();
  t.after(() => sys.stop());
  // The edge dials out; wait until the cloud has its snapshot to give to twins.
  await waitFor(async () => 'grn' in (await snapshot(sys)), 20000, 'edge connected and snapshot served');

  await t.test('a production of 20 boxes is sorted correctly and all five outputs are timed', async () => {
    const csv = path.join(sys.cloud.userDir, 'twin-ws.csv');
    const res = await runTwin({ protocol: 'ws', url: sys.twinUrl, token: sys.token, boxes: 20, damaged: 0.3, csv });
    assert.equal(res.ok, true, res.reason);
    assert.equal(res.missorted, 0);
    assert.equal(res.packed + res.rejected, 20);
    assert.ok(res.rejected > 0 && res.packed > 0, 'the seeded production has damaged and intact boxes');
    assert.deepEqual(Object.keys(res.samples).filter((k) => res.samples[k].length > 0).sort(), TIMED);
    assert.equal(res.expired, 0);
    assert.ok(fs.readFileSync(csv, 'utf8').split('\n').length > 20);
    // The cloud's flow-timer logged the same round trips from its side.
    const timerCsv = path.join(sys.cloud.userDir, 'results', 'flow-timer-ws.csv');
    await waitFor(() => fs.existsSync(timerCsv) && fs.readFileSync(timerCsv, 'utf8').split('\n').length > 20, 10000, 'flow-timer CSV');
    const rows = fs.readFileSync(timerCsv, 'utf8').trim().split('\n');
    assert.equal(rows[0], 'time,protocol,variable,id,ms');
    const vars = new Set(rows.slice(1).map((r) => r.split(',')[2]));
    for (const v of TIMED) assert.ok(vars.has(v), `flow-timer timed ${v}`);
    // The PLC counted what the twin saw.
    const v = await sys.plc.values();
    assert.equal(v.ng, res.packed);
    assert.equal(v.nr, res.rejected);
  });

  await t.test('bad input is refused with its error, the PLC untouched, others still served', async () => {
    const before = await sys.plc.values();
    const bystander = await rawTwin(sys);
    const bad = await rawTwin(sys);
    const send = (x) => bad.ws.send(typeof x === 'string' ? x : JSON.stringify(x));
    const cmd = (seq, d, extra = {}) => ({ v: 1, k: 'cmd', src: 'twin-bad', seq, ts: Date.now(), d, ...extra });
    send('{not json');
    send(cmd(1, { st: 1 }, { v: 9 }));
    send(cmd(2, { nope: 1 }));
    send(cmd(3, { c1: 1 }));
    send(cmd(4, { st: null }));
    send(cmd(5, { st: 7 }));
    send(cmd(7, { st: 'yes' })); // text is a STRING tag's value: the table refuses it for a BOOL
    const expected = ['E_JSON', 'E_VERSION', 'E_UNKNOWN_TAG', 'E_NOT_WRITABLE', 'E_SCHEMA', 'E_TYPE'];
    const codes = await waitFor(() => {
      const c = bad.frames.filter((f) => f.k === 'err').map((f) => f.e.code);
      return expected.every((e) => c.includes(e)) && c;
    }, 10000, `error envelopes ${expected}`);
    assert.ok(codes.length >= expected.length + 1);
    // Nothing of any refused frame reached the PLC.
    const after = await sys.plc.values();
    for (const k of ['st', 'sp', 'se', 'c1']) assert.equal(after[k], before[k], `${k} unchanged`);

    // An oversized frame closes only that connection (1009), nothing else.
    const closed = new Promise((r) => bad.ws.once('close', (code) => r(code)));
    bad.ws.send(JSON.stringify(cmd(6, { st: 0 }, { pad: 'x'.repeat(70 * 1024) })));
    assert.equal(await closed, 1009);

    // A valid command from the bystander still goes through and is acknowledged.
    bystander.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-ok', seq: 1, ts: Date.now(), d: { sp: 0 } }));
    await waitFor(() => bystander.frames.find((f) => f.k === 'ack' && f.ref && f.ref.src === 'twin-ok'), 10000, 'ack for the bystander');
    await bystander.close();
  });

  await t.test('over the compact encoding too: bad frames refused with their errors, the PLC untouched, the connection still served', async () => {
    const before = await sys.plc.values();
    const ws = new WebSocket(sys.twinUrl, codec.offerFor('compact'), { headers: { Authorization: `Bearer ${sys.token}` }, perMessageDeflate: false });
    const frames = [];
    let inn = null; // the decoder must see every frame from the first (the snap may come with the open)
    ws.on('message', (d, bin) => {
      inn = inn || codec.createCodec(ws.protocol, { timeUnitUs: codec.TIME_UNIT_US.twin });
      frames.push(inn.decode(d, bin));
    });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    assert.equal(ws.protocol, codec.COMPACT_PROTOCOL);
    const out = codec.createCodec(ws.protocol, { timeUnitUs: codec.TIME_UNIT_US.twin });
    const cmd = (seq, d) => ({ v: 1, k: 'cmd', src: 'twin-bad-c', seq, ts: Date.now(), d });
    ws.send(Buffer.from([0x95, 0x01, 0xc1])); // not MessagePack
    ws.send(Buffer.from([0x92, 0x01, 0x02])); // not an envelope
    ws.send(out.encode(cmd(1, { nope: 1 })));
    ws.send(out.encode(cmd(2, { c1: 1 })));
    ws.send(out.encode(cmd(3, { st: 7 })));
    ws.send(out.encode(cmd(4, { st: null })));
    const expected = ['E_DECODE', 'E_UNKNOWN_TAG', 'E_NOT_WRITABLE', 'E_TYPE', 'E_SCHEMA'];
    await waitFor(() => {
      const c = frames.filter((f) => f.k === 'err').map((f) => f.e.code);
      return expected.every((e) => c.includes(e)) && c;
    }, 10000, `error envelopes ${expected}`);
    const after = await sys.plc.values();
    for (const k of ['st', 'sp', 'se', 'c1']) assert.equal(after[k], before[k], `${k} unchanged`);
    ws.send(out.encode(cmd(5, { sp: 0 })));
    await waitFor(() => frames.find((f) => f.k === 'ack' && f.ref.src === 'twin-bad-c' && f.ref.seq === 5), 10000, 'ack over the compact encoding');
    await new Promise((r) => { ws.once('close', r); ws.close(); });
  });

  await t.test('a probe frame with 100 slots is written in S7-sized jobs and every slot answers', async () => {
    // S7 allows 20 variables per job; the virtual PLC's snap7 server crashed on a larger write.
    const tw = await rawTwin(sys);
    const base = 1000 + Math.floor(Math.random() * 1e6);
    const d = {};
    for (let i = 0; i < 100; i++) d[100 + i] = base + i;
    tw.ws.send(JSON.stringify({ v: 1, k: 'probe', src: 'twin-bulk', seq: 1, ts: Date.now(), d }));
    const answered = await waitFor(() => {
      const got = {};
      for (const f of tw.frames) if (f.k === 'probe-res' && f.ref.src === 'twin-bulk') Object.assign(got, f.d);
      return Object.keys(got).length === 100 && got;
    }, 15000, 'probe-res for all 100 slots');
    for (let i = 0; i < 100; i++) assert.equal(answered[100 + i], base + i);
    assert.equal(tw.frames.filter((f) => f.k === 'err').length, 0);
    await tw.close();
  });

  await t.test('a twin without a valid token is refused before the upgrade', async () => {
    for (const token of [null, 'wrong-token']) {
      const ws = new WebSocket(sys.twinUrl, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
      const status = await new Promise((resolve) => {
        ws.once('unexpected-response', (req, res) => { resolve(res.statusCode); req.destroy(); });
        ws.once('open', () => resolve('open'));
        ws.once('error', () => {});
      });
      assert.equal(status, 401);
    }
  });

  await t.test('the cloud restarts: the edge reconnects, resends a snapshot, commands are not lost or doubled', async () => {
    await sys.cloud.stop();
    // While the cloud is down the PLC moves on: the twin's view must converge after the restart.
    await sys.plc.setInputs({ st: 1 });
    await waitFor(async () => (await sys.plc.values()).grn === 1, 5000, 'plant running');
    await sys.plc.setInputs({ st: 0 });
    await sys.startCloud();
    const snap = await waitFor(async () => { const s = await snapshot(sys); return s.grn === 1 && s; }, 20000, 'snapshot after reconnect');
    assert.equal(snap.c1, (await sys.plc.values()).c1);

    // A command sent once is applied once: stop the plant, count its effect on the PLC.
    const tw = await rawTwin(sys);
    tw.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-once', seq: 1, ts: Date.now(), d: { sp: 1 } }));
    tw.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-once', seq: 1, ts: Date.now(), d: { sp: 1 } })); // duplicate
    await waitFor(() => tw.frames.filter((f) => f.k === 'ack' && f.ref.src === 'twin-once').length === 1, 10000, 'one ack');
    await waitFor(() => tw.frames.some((f) => (f.k === 'state' || f.k === 'snap') && f.d.grn === 0), 10000, 'plant stopped');
    tw.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-once', seq: 2, ts: Date.now(), d: { sp: 0 } }));
    await waitFor(() => tw.frames.filter((f) => f.k === 'ack' && f.ref.src === 'twin-once').length === 2, 10000, 'second ack');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(tw.frames.filter((f) => f.k === 'ack' && f.ref.src === 'twin-once').length, 2, 'the duplicate was not applied');
    await tw.close();
  });

  await t.test('the edge is gone: a command is answered with E_EDGE_DOWN, not dropped', async () => {
    await sys.edge.stop();
    const tw = await rawTwin(sys);
    tw.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-noedge', seq: 1, ts: Date.now(), d: { sp: 0 } }));
    const err = await waitFor(() => tw.frames.find((f) => f.k === 'err' && f.ref && f.ref.src === 'twin-noedge'), 10000, 'E_EDGE_DOWN');
    assert.equal(err.e.code, 'E_EDGE_DOWN');
    assert.equal(err.ref.seq, 1);
    await tw.close();
    await sys.startEdge();
    await waitFor(async () => 'grn' in (await snapshot(sys)), 20000, 'edge back');
  });

  await t.test('the PLC stops and returns: commands are refused meanwhile, then the edge recovers', async () => {
    await sys.plc.stop();
    const tw = await rawTwin(sys);
    let seq = 0;
    let lastSent = 0;
    const sendEvery = (ms) => {
      if (Date.now() - lastSent < ms) return;
      lastSent = Date.now();
      tw.ws.send(JSON.stringify({ v: 1, k: 'cmd', src: 'twin-down', seq: ++seq, ts: Date.now(), d: { sp: 0 } }));
    };
    const refused = await waitFor(() => {
      sendEvery(300);
      return tw.frames.find((f) => f.k === 'err' && f.e.code === 'E_PLC_DOWN');
    }, 20000, 'E_PLC_DOWN answer');
    assert.equal(refused.ref.src, 'twin-down');
    await sys.plc.start();
    const firstAfter = seq + 1;
    await waitFor(() => {
      sendEvery(300);
      return tw.frames.find((f) => f.k === 'ack' && f.ref.src === 'twin-down' && f.ref.seq >= firstAfter);
    }, 30000, 'ack after the PLC returned');
    // Every command got exactly one answer: none was dropped silently.
    const answers = () => tw.frames.filter((f) => (f.k === 'ack' || f.k === 'err') && f.ref.src === 'twin-down').length;
    await waitFor(() => answers() === seq, 10000, 'an answer to every command');
    await tw.close();
    // And the plant still sorts.
    const res = await runTwin({ protocol: 'ws', url: sys.twinUrl, token: sys.token, boxes: 5, damaged: 0.4, seed: 3 });
    assert.equal(res.ok, true, res.reason);
    assert.equal(res.missorted, 0);
  });

  // Envelope constants the bad-input case relies on.
  assert.equal(envelope.MAX_FRAME_BYTES, 64 * 1024);
});
