'use strict';
/**
 * The s7twin-flow-timer subflow module in a real Node-RED 5 runtime (child process with the
 * project's settings.js): messages go in and out over core websocket nodes.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const WebSocket = require('ws');
const { startNodeRed, waitFor } = require('../helpers/nodered');

const TAB = 'ft.tab';
const listener = (id, p) => ({ id, type: 'websocket-listener', path: p, wholemsg: 'false' });

function flow() {
  return [
    { id: TAB, type: 'tab', label: 'flow-timer test' },
    listener('ft.l.in', '/ft/in'), listener('ft.l.rt', '/ft/rt'),
    listener('ft.l.stats', '/ft/stats'), listener('ft.l.status', '/ft/status'),
    { id: 'ft.in', type: 'websocket in', z: TAB, server: 'ft.l.in', client: '', x: 100, y: 100, wires: [['ft.parse']] },
    {
      id: 'ft.parse', type: 'function', z: TAB, name: 'parse', outputs: 1, x: 250, y: 100, wires: [['ft.sf']],
      func: 'const o = JSON.parse(msg.payload);\nreturn o.timer ? { timer: o.timer } : { payload: o };',
    },
    {
      id: 'ft.sf', type: 's7twin-flow-timer', z: TAB, name: '', PROTOCOL: 'ws', CSV_FILE: '', TIMEOUT_MS: 300,
      STATS_INTERVAL_S: 1, x: 400, y: 100, wires: [['ft.rt'], ['ft.stats']],
    },
    { id: 'ft.rt', type: 'websocket out', z: TAB, server: 'ft.l.rt', client: '', x: 600, y: 80, wires: [] },
    { id: 'ft.stats', type: 'websocket out', z: TAB, server: 'ft.l.stats', client: '', x: 600, y: 120, wires: [] },
    { id: 'ft.st', type: 'status', z: TAB, scope: ['ft.sf'], x: 400, y: 200, wires: [['ft.status']] },
    { id: 'ft.status', type: 'function', z: TAB, outputs: 1, x: 500, y: 200, wires: [['ft.status.out']], func: 'return { payload: msg.status };' },
    { id: 'ft.status.out', type: 'websocket out', z: TAB, server: 'ft.l.status', client: '', x: 600, y: 200, wires: [] },
  ];
}

/** Open a ws client and collect the JSON messages it receives. */
async function collector(url) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const got = [];
  ws.on('message', (m) => got.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { ws, got };
}

test('flow-timer subflow module in a real Node-RED: ids out of order, CSV, stats, expiry, status, close', async (t) => {
  const red = await startNodeRed({ role: 'cloud', flows: flow(), keepUserDir: true });
  const csv = path.join(red.userDir, 'results', 'flow-timer-ws.csv');
  const clients = [];
  t.after(async () => {
    for (const c of clients) c.ws.terminate();
    await red.stop();
    fs.rmSync(red.userDir, { recursive: true, force: true });
  });
  // The editor gets the palette entry of the subflow module and the help of the core node.
  const html = await (await fetch(`${red.url}/nodes`, { headers: { Accept: 'text/html' } })).text();
  assert.match(html, /registerType\("s7twin-flow-timer"/);
  assert.match(html, /data-help-name="s7twin-timer"/);
  assert.match(html, /data-help-name="s7twin-flow-timer"/);

  const wsUrl = red.url.replace('http', 'ws');
  const input = await collector(`${wsUrl}/ft/in`);
  const rt = await collector(`${wsUrl}/ft/rt`);
  const stats = await collector(`${wsUrl}/ft/stats`);
  const status = await collector(`${wsUrl}/ft/status`);
  clients.push(input, rt, stats, status);
  const send = (o) => input.ws.send(JSON.stringify(o));

  // Explicit timers, stopped in the reverse order of their starts.
  send({ timer: { op: 'start', id: 'a', variable: 'c1' } });
  send({ timer: { op: 'start', id: 'b', variable: 'c1' } });
  send({ timer: { op: 'stop', id: 'b' } });
  send({ timer: { op: 'stop', id: 'a' } });
  await waitFor(() => rt.got.length >= 2, 20000, 'two round trips');
  assert.deepEqual(rt.got.map((r) => r.id), ['b', 'a']);
  for (const r of rt.got) {
    assert.equal(r.protocol, 'ws');
    assert.equal(r.variable, 'c1');
    assert.ok(r.ms >= 0);
  }

  // Envelopes: a damaged box at the detector starts p2fw and red; the PLC's state stops both.
  send({ k: 'cmd', v: 1, src: 'twin-1', seq: 1, ts: Date.now(), d: { sd: 1, dmg: 1 } });
  send({ k: 'state', v: 1, src: 'edge', seq: 1, ts: Date.now(), d: { c1: 0, p2fw: 1, red: 1 } });
  await waitFor(() => rt.got.length >= 4, 20000, 'envelope round trips');
  assert.deepEqual(rt.got.slice(2).map((r) => r.id).sort(), ['p2fw:twin-1:1', 'red:twin-1:1']);

  // A probe that is never answered expires (TIMEOUT_MS 300) and is counted.
  send({ k: 'probe', v: 1, src: 'lg', seq: 1, ts: Date.now(), d: { 7: 123 } });
  const last = await waitFor(() => stats.got.find((s) => s.expired >= 1 && s.n >= 4), 20000, 'stats with an expired timer');
  assert.equal(last.protocol, 'ws');
  for (const k of ['mean', 'median', 'p95', 'p99', 'min', 'max', 'sd']) assert.equal(typeof last[k], 'number', k);
  assert.equal(last.pending, 0);

  // Bad input reaches done(err) (a Catch node would see it) and the runtime carries on.
  send({ payload: 42 });
  await waitFor(() => /expected msg.timer/.test(red.logs()), 20000, 'the input error in the log');
  send({ timer: { op: 'start', id: 'z', variable: 'p1bw' } });
  send({ timer: { op: 'stop', id: 'z' } });
  await waitFor(() => rt.got.length >= 5, 20000, 'a round trip after bad input');

  await waitFor(() => status.got.some((s) => /^n=\d+ mean=[\d.]+ms p99=[\d.]+ms/.test(s.text || '')), 20000, 'status text');

  // Stopping the runtime closes the node: the buffered CSV is flushed, nothing is lost.
  await red.stop();
  const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'time,protocol,variable,id,ms');
  assert.equal(lines.length, 1 + 5);
  for (const l of lines.slice(1)) {
    const cols = l.split(',');
    assert.equal(cols.length, 5);
    assert.ok(!Number.isNaN(Date.parse(cols[0])));
    assert.equal(cols[1], 'ws');
    assert.ok(Number(cols[4]) >= 0);
  }
  assert.deepEqual(lines.slice(1, 3).map((l) => l.split(',')[3]), ['b', 'a']);
});

test('the example flow loads in a real Node-RED and times a round trip', async (t) => {
  const red = await startNodeRed({ role: 'cloud', flows: path.join(__dirname, '..', '..', 'examples', 's7twin-flow-timer.json'), keepUserDir: true });
  t.after(async () => { await red.stop(); fs.rmSync(red.userDir, { recursive: true, force: true }); });
  const inject = (id) => fetch(`${red.url}/inject/${id}`, { method: 'POST' }).then((r) => assert.equal(r.status, 200));
  await inject('ex.ft.cmd');
  await inject('ex.ft.state');
  await inject('ex.ft.start');
  await inject('ex.ft.stop');
  // The CSV is flushed at least once a second: wait for the three rows rather than racing the stop.
  const csv = path.join(red.userDir, 'results', 'flow-timer-ws.csv');
  const read = () => (fs.existsSync(csv) ? fs.readFileSync(csv, 'utf8').trim().split('\n') : []);
  await waitFor(() => read().length === 4, 20000, 'three round trips in the CSV');
  const lines = read();
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[2]).sort(), ['manual', 'p2fw', 'red']);
});
