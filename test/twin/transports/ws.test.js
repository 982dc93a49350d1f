'use strict';
/**
 * The headless twin over the WebSocket transport against a stand-in twin endpoint (real ws
 * server, token check, the real PLC program on a 10 ms scan timer).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startHarness } = require('../../helpers/twin');
const { waitFor } = require('../../helpers/nodered');
const { runTwin, loadTransport } = require('../../../twin/run');
const { createTransport } = require('../../../twin/transports/ws');

const ROOT = path.join(__dirname, '..', '..', '..');

test('runTwin sorts 20 boxes over ws, times every timed pair and writes the CSV', async (t) => {
  const h = await startHarness({ token: 'T' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twin-'));
  t.after(async () => { await h.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const csv = path.join(dir, 'out', 'twin-ws.csv');
  const r = await runTwin({ protocol: 'ws', url: h.url, token: 'T', boxes: 20, damaged: 0.3, seed: 5, csv });
  assert.equal(r.ok, true, r.reason);
  assert.equal(r.packed + r.rejected, 20);
  assert.equal(r.missorted, 0);
  assert.equal(r.rejected, r.damaged);
  assert.equal(r.samples.c1.length, 1);
  assert.equal(r.samples.p1bw.length, 20);
  assert.equal(r.samples.p2fw.length, r.rejected);
  assert.equal(r.samples.red.length, r.rejected);
  assert.equal(r.samples.p3fw.length, r.packed);
  assert.equal(r.errors, 0);
  assert.equal(r.summary.overall.n, 1 + 20 + 2 * r.rejected + r.packed);
  assert.equal(r.transport.acks, r.transport.sent, 'every cmd frame was acknowledged');
  assert.equal(h.outputs.grn, 0, 'the twin leaves the plant stopped');
  const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'time,protocol,variable,ms');
  assert.equal(lines.length, 1 + r.summary.overall.n);
});

test('a second run finds the plant as the first left it and sorts again', async (t) => {
  const h = await startHarness({ token: 'T' });
  t.after(() => h.close());
  const a = await runTwin({ url: h.url, token: 'T', boxes: 4, damaged: '01' });
  const b = await runTwin({ url: h.url, token: 'T', boxes: 4, damaged: '10' });
  assert.equal(a.ok && b.ok, true);
  assert.equal(b.samples.c1.length, 1);
});

test('a refused token fails fast with E_UNAUTHORIZED and is not retried', async (t) => {
  const h = await startHarness({ token: 'right' });
  t.after(() => h.close());
  // The run's own transport, to read its counters after the run closed it: one attempt, refused,
  // and closed with the run (a closed transport cannot try again), so the endpoint saw one refusal.
  const tr = createTransport({ url: h.url, token: 'wrong' });
  await assert.rejects(runTwin({ transport: tr, boxes: 1 }), { code: 'E_UNAUTHORIZED' });
  assert.equal(tr.stats().authFailures, 1);
  assert.equal(tr.stats().connects, 0);
  await assert.rejects(tr.connect(), { code: 'E_CLOSED' });
  await waitFor(() => h.stats.refused >= 1, 10000, 'the endpoint to count the refusal');
  assert.equal(h.stats.refused, 1);
});

test('no server: connect gives up with E_CONNECT_TIMEOUT', async () => {
  const tr = createTransport({ url: 'ws://127.0.0.1:1/s7twin/twin', token: 'x', connectTimeoutMs: 600 });
  await assert.rejects(tr.connect(), { code: 'E_CONNECT_TIMEOUT' });
  await tr.close();
});

test('the transport reconnects after a drop and sends what changed while it was down', async (t) => {
  const h = await startHarness({ token: 'T' });
  const tr = createTransport({ url: h.url, token: 'T', id: 'rc', backoff: { initialMs: 50, maxMs: 200 } });
  t.after(async () => { await tr.close(); await h.close(); });
  const kinds = [];
  tr.onValues((d, kind) => kinds.push(kind));
  await tr.connect();
  tr.send({ se: 1, p1b: 1 });
  await waitFor(() => h.image.se === 1, 10000, 'first cmd at the PLC');
  h.dropClients();
  await waitFor(() => !tr.stats().connected, 10000, 'the drop to be noticed');
  tr.send({ dmg: 1 }); // while down: kept in the image, not queued
  await waitFor(() => tr.stats().reconnects === 1, 10000, 'reconnect');
  await waitFor(() => h.image.dmg === 1, 10000, 'the resync cmd');
  assert.equal(h.image.se, 1);
  assert.equal(tr.stats().coalesced, 1);
  await waitFor(() => kinds.filter((k) => k === 'snap').length === 2, 10000, 'a snapshot per connection');
});

test('after a reconnect the transport sends only the inputs changed while it was down, not its whole image', async (t) => {
  const h = await startHarness({ token: 'T' });
  const tr = createTransport({ url: h.url, token: 'T', id: 'rc9', backoff: { initialMs: 50, maxMs: 200 } });
  t.after(async () => { await tr.close(); await h.close(); });
  const sent = [];
  tr.onSent(({ d }) => sent.push(d));
  await tr.connect();
  tr.send({ se: 1, p1b: 1 });
  await waitFor(() => tr.stats().acks === 1, 10000, 'the first command acknowledged');
  h.dropClients();
  await waitFor(() => !tr.stats().connected, 10000, 'the drop to be noticed');
  tr.send({ dmg: 1 });
  await waitFor(() => h.image.dmg === 1, 10000, 'the change made while down');
  assert.deepEqual(sent, [{ se: 1, p1b: 1 }, { dmg: 1 }], 'se and p1b were acknowledged: not pushed again');
});

test('err envelopes from the cloud are counted by code; probes come back', async (t) => {
  const h = await startHarness({ token: 'T' });
  const tr = createTransport({ url: h.url, token: 'T' });
  t.after(async () => { await tr.close(); await h.close(); });
  const probes = [];
  tr.onProbe((slot, v) => probes.push([slot, v]));
  await tr.connect();
  tr.send({ zz: 1 }); // unknown tag
  tr.send({ c1: 1 }); // an output: not writable from the cloud
  tr.probe(3, 77);
  await waitFor(() => tr.stats().errors === 2 && probes.length === 1, 10000, 'two err answers and a probe');
  assert.deepEqual(tr.stats().errorCodes, { E_UNKNOWN_TAG: 1, E_NOT_WRITABLE: 1 });
  assert.deepEqual(probes, [[3, 77]]);
  assert.equal(h.image.c1, undefined, 'nothing written');
});

test('unknown protocols are refused by name', () => {
  assert.throws(() => loadTransport('carrier-pigeon'), { code: 'E_PROTOCOL' });
  assert.throws(() => loadTransport('../plant'), { code: 'E_PROTOCOL' });
});

function runCli(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'twin', 'cli.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('the CLI prints the summary table and exits 0; bad arguments exit 2 with a message', async (t) => {
  const h = await startHarness({ token: 'T' });
  t.after(() => h.close());
  const ok = await runCli(['--protocol', 'ws', '--url', h.url, '--token', 'T', '--boxes', '5', '--damaged', '0.4', '--profile', 'fast']);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /5 boxes, \d+ packed, \d+ rejected, 0 mis-sorted/);
  assert.match(ok.out, /Piston1Backward \(p1bw\)\s+5\s/);
  const bad = await runCli(['--boxes', 'many']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--boxes must be a number/);
  const proto = await runCli(['--protocol', 'smoke-signals', '--boxes', '1']);
  assert.equal(proto.code, 2);
  assert.match(proto.err, /E_PROTOCOL/);
});

test('runTwin against the real virtual S7-1500 (createPlc) sorts every box', async (t) => {
  const h = await startHarness({ token: 'T', plc: true });
  t.after(() => h.close());
  const r = await runTwin({ url: h.url, token: 'T', boxes: 20, damaged: 0.3, seed: 9 });
  assert.equal(r.ok, true, r.reason);
  assert.equal(r.missorted, 0);
  assert.equal(r.samples.p1bw.length, 20);
  assert.equal(h.outputs.nb, 20, 'the PLC took in every box');
  assert.equal(h.outputs.ng + h.outputs.nr, 20);
});
