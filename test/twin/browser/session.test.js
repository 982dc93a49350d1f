'use strict';
/**
 * The browser twin's model (twin/browser/session.js) without a browser: the page's own
 * WebSocket transport (twin/browser/link-ws.js, on Node's WebSocket, the browser's API) against
 * a stand-in twin endpoint running the real PLC program, and the driver lease of the real page
 * server (nodes/lib/web/ui.js). One page drives, another mirrors; controls become commands; the
 * link reconnects and resyncs. (In a real browser against the real system: test/e2e/browser.test.js.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { startHarness } = require('../../helpers/twin');
const { waitFor } = require('../../helpers/nodered');
const { createSession, createLeaseClient, summaryText } = require('../../../twin/browser/session');
const { createTransport } = require('../../../twin/browser/link-ws');
const { createTwinUi } = require('../../../nodes/lib/web/ui');
const { createLease } = require('../../../nodes/lib/web/driver-lease');

const ROOT = path.join(__dirname, '..', '..', '..');

/** The page server's HTTP API (session, driver lease) on a bare HTTP server. */
async function startPageServer(tokens, viewerTokens = []) {
  const ui = createTwinUi({
    pageDir: path.join(ROOT, 'twin', 'browser'), vendor: {}, modules: {}, config: () => ({}), tokens, viewerTokens, lease: createLease({ ttlMs: 1500 }),
  });
  const server = http.createServer((req, res) => { req.url = req.url.replace(/^\/ui/, '') || '/'; ui.handle(req, res); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}/ui/`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

function page(h, pages, { token = 'T', id }) {
  const lease = createLeaseClient({ fetch, base: pages.base, token, id, label: id });
  return createSession({
    transport: (log) => createTransport({ url: h.url, token, id, log, backoff: { initialMs: 50, maxMs: 200 } }),
    protocol: 'ws',
    lease,
    plant: { profile: 'fast' },
    renewMs: 200,
  });
}

test('one page drives, another mirrors the same plant; controls become commands; take-over', async (t) => {
  const h = await startHarness({ token: 'T' });
  const pages = await startPageServer(['T']);
  const a = page(h, pages, { id: 'page-a' });
  const b = page(h, pages, { id: 'page-b' });
  t.after(async () => { await a.stop(); await b.stop(); await pages.close(); await h.close(); });
  await a.start();
  await b.start();
  assert.equal(a.driving, true, 'the first page takes the free plant');
  assert.equal(b.driving, false, 'the second watches');
  assert.equal(b.feed(false), false, 'a watching page does not feed boxes');
  assert.equal(b.counters.refused, 1);
  assert.equal(b.setAutoFeed(10), false);

  a.pressStart();
  await waitFor(() => h.outputs.grn === 1, 10000, 'the PLC runs the plant');
  assert.equal(a.feed(false), true);
  a.feed(true);
  a.feed(false);
  await waitFor(() => h.outputs.ng === 2 && h.outputs.nr === 1, 20000, 'two packed, one rejected by the PLC');
  const shows = (x) => x.snapshot().counts.good === 2 && x.snapshot().counts.rejected === 1;
  await waitFor(() => shows(a) && shows(b), 5000, 'both pages show the PLC counters');
  const sa = a.snapshot();
  assert.equal(sa.mode, 'driving');
  assert.ok(sa.rtt.p1bw.n >= 3, 'piston 1 round trips measured by the driving page');
  assert.ok(sa.rtt.p2fw.n >= 1 && sa.rtt.red.n >= 1);
  assert.ok(sa.rtt.overall.mean > 0);
  assert.equal(a.plant.summary().missorted, 0);
  // The mirror followed the PLC: a box for each push of piston 1, the damaged one marked.
  assert.equal(b.counters.followed, 3);
  assert.equal(b.plant.summary().arrived, 3);
  assert.ok(b.counters.markedDamaged >= 1);
  assert.equal(b.snapshot().rtt.overall.n, 0, 'a mirror sends nothing, so it times nothing');
  assert.match(summaryText(b.snapshot()), /another page drives the plant.*2 good, 1 rejected/);

  // A watching page's Stop is a momentary command: pressed, then released.
  const cmds = h.stats.cmds;
  assert.equal(b.pressStop(), true);
  await waitFor(() => h.outputs.grn === 0, 10000, 'stopped from the watching page');
  await waitFor(() => h.stats.cmds >= cmds + 2 && h.image.sp === 0, 5000, 'released again');

  // Take-over: b drives, a learns it on its next renewal and watches.
  await b.takeOver();
  assert.equal(b.driving, true);
  await waitFor(() => a.driving === false, 5000, 'a gave way');
  assert.equal(a.counters.leaseLost, 1);
  assert.match(a.snapshot().log.map((l) => l.text).join('\n'), /watching \(page-b drives now\)/);
});

test('the page\'s link reconnects with back-off and resyncs: the whole input image out, the snapshot in', async (t) => {
  const h = await startHarness({ token: 'T' });
  const s = createSession({
    transport: (log) => createTransport({ url: h.url, token: 'T', id: 'solo', log, backoff: { initialMs: 50, maxMs: 200 } }),
    protocol: 'ws', plant: { profile: 'fast' },
  });
  t.after(async () => { await s.stop(); await h.close(); });
  await s.start();
  await waitFor(() => s.snapshot().counters.snaps === 1, 5000, 'first snapshot');
  s.feed(false); // a box at the entry: se = 1 in the image
  await waitFor(() => h.image.se === 1, 5000, 'the PLC saw the box');
  h.dropClients();
  await waitFor(() => s.snapshot().connection.reconnects === 1 && s.snapshot().connection.connected, 10000, 'reconnected');
  await waitFor(() => s.snapshot().counters.snaps === 2, 5000, 'a fresh snapshot after the reconnect');
  await waitFor(() => h.stats.cmds >= 2, 5000, 'the whole image went out again as one command');
  assert.equal(h.image.se, 1);
  assert.equal(h.image.p1b, 1);
  assert.match(summaryText(s.snapshot()), /^Connected over WebSocket–S7; this page drives the plant\. Plant stopped/);
});

test('a viewer token never drives: the lease is refused and the page says so', async (t) => {
  const h = await startHarness({ token: 'T' });
  const pages = await startPageServer(['T'], ['V']);
  const lease = createLeaseClient({ fetch, base: pages.base, token: 'V', id: 'viewer-1' });
  assert.equal((await lease.who()).role, 'viewer');
  const s = createSession({
    transport: (log) => createTransport({ url: h.url, token: 'T', id: 'v', log }), protocol: 'ws', lease, plant: { profile: 'fast' }, renewMs: 200,
  });
  t.after(async () => { await s.stop(); await pages.close(); await h.close(); });
  await s.start();
  assert.equal(s.driving, false);
  assert.equal(s.readOnly, true);
  assert.equal(s.feed(true), false);
  assert.match(summaryText(s.snapshot()), /watching with a read-only token/);
});

test('a page that goes while it holds a button releases it first (a stuck StopButton would block every Start)', async (t) => {
  const h = await startHarness({ token: 'T' });
  t.after(() => h.close());
  for (const mode of ['driving', 'watching']) {
    const s = createSession({
      transport: (log) => createTransport({ url: h.url, token: 'T', id: `b-${mode}`, log }), protocol: 'ws', plant: { profile: 'study' },
      readOnly: mode === 'watching',
    });
    await s.start();
    assert.equal(s.driving, mode === 'driving');
    s.pressStop(); // study profile: held for 300 ms
    await waitFor(() => h.image.sp === 1, 5000, `${mode}: StopButton pressed in the PLC`);
    await s.stop();
    await waitFor(() => h.image.sp === 0, 5000, `${mode}: released before the page went`);
  }
});

test('a page that replays the past is held: it gives the plant up, sends nothing, asks for nothing; let go, it asks again', async (t) => {
  const h = await startHarness({ token: 'T' });
  const pages = await startPageServer(['T']);
  // Page a's renewals run when the test says (its other timers are real); its lease client counts the claims it makes.
  const renewals = [];
  const timers = {
    setInterval: (f, ms) => { if (ms === 200) { renewals.push(f); return -renewals.length; } return setInterval(f, ms); },
    clearInterval: (x) => { if (x > 0) clearInterval(x); },
    setTimeout: (f, ms) => setTimeout(f, ms),
    clearTimeout: (x) => clearTimeout(x),
  };
  const lease = createLeaseClient({ fetch, base: pages.base, token: 'T', id: 'page-a', label: 'page-a' });
  let claims = 0;
  const counted = { ...lease, claim: (force) => { claims += 1; return lease.claim(force); } };
  const a = createSession({
    transport: (log) => createTransport({ url: h.url, token: 'T', id: 'page-a', log }), protocol: 'ws', lease: counted, plant: { profile: 'fast' },
    renewMs: 200, timers,
  });
  const b = page(h, pages, { id: 'page-b' });
  t.after(async () => { await a.stop(); await b.stop(); await pages.close(); await h.close(); });
  await a.start();
  assert.equal(a.driving, true);
  a.setAutoFeed(60);
  await a.hold(true);
  assert.deepEqual([a.driving, a.held, a.snapshot().feed.auto], [false, true, null], 'watching, and no automatic feed');
  assert.equal(a.feed(false), false, 'a held page feeds nothing');
  await b.start();
  assert.equal(b.driving, true, 'the other page got the plant');
  b.pressStart();
  await waitFor(() => h.outputs.grn === 1, 10000, 'the plant runs, driven by b');
  await b.hold(true); // the plant is free
  const before = claims;
  for (let i = 0; i < 3; i += 1) for (const renew of renewals) renew();
  assert.deepEqual([claims, a.driving], [before, false], 'held: its renewals ask for nothing');
  await a.hold(false);
  assert.deepEqual([claims, a.driving], [before + 1, true], 'let go: it asked and got the free plant');
});

/**
 * A page on an injected clock with a stand-in transport: what it sends is kept, the PLC's frames
 * are delivered by the test, its stats are `ts`; `run(ms)` ticks it 10 ms at a time.
 */
async function pageOnClock({ ts = { state: 'connected', connected: true }, lease } = {}) {
  let deliver = null;
  const sent = [];
  const transport = {
    connect: async () => {}, send: (v) => { sent.push(v); return true; }, onValues: (cb) => { deliver = cb; }, close: async () => {},
    stats: () => ({ ...ts }), inFlight: 0,
  };
  let clock = 0;
  const timers = { setInterval: () => 0, clearInterval: () => {}, setTimeout: (f) => setTimeout(f, 0), clearTimeout: () => {} };
  const s = createSession({ transport, protocol: 'ws', lease, plant: { profile: 'fast' }, now: () => clock, timers });
  await s.start();
  const run = (ms) => { for (const end = clock + ms; clock < end;) { clock += 10; s.tick(); } };
  return { s, sent, run, deliver: (values, kind) => deliver(values, kind) };
}

test('a page that watched the WebSocket–S7 path and then drives: its boxes ride on its own model, not the sensors it watched', async () => {
  // The edge streams the inputs the PLC sees as well: a watching page's boxes wait for the real
  // DetectSensor. Once it drives, its model is the plant: nothing may hold its boxes.
  let granted = false;
  const lease = { claim: async () => ({ granted, holder: { id: granted ? 'me' : 'other', label: 'other' } }), release: async () => {} };
  const { s, sent, run, deliver } = await pageOnClock({ lease });
  assert.equal(s.driving, false, 'another page drives');
  deliver({
    st: 0, sp: 0, se: 0, p1f: 0, p1b: 1, sd: 0, dmg: 0, p2f: 0, sk: 0, p3f: 0,
    c1: 1, c2: 1, grn: 1, p1fw: 0, p1bw: 0, p2fw: 0, p3fw: 0, red: 0, ng: 0, nr: 0, nb: 0,
  }, 'snap');
  granted = true;
  await s.takeOver();
  assert.equal(s.driving, true);
  assert.equal(s.feed(false), true);
  run(20);
  assert.ok(sent.some((v) => v.se === 1), 'the box is at the entry');
  deliver({ p1fw: 1 }, 'state'); // the PLC pushes it onto conveyor 1, which runs
  run(60);
  deliver({ p1fw: 0, p1bw: 1 }, 'state');
  run(1000);
  const sd = sent.slice(1).filter((v) => 'sd' in v).map((v) => v.sd); // after the whole image it sent on taking over
  assert.deepEqual(sd, [1, 0], `the box rode through the detection unit: ${JSON.stringify(s.scene())}`);
  await s.stop();
});

test('a driving page\'s plant waits while the PLC cannot hear it: no link, or the edge or the PLC away; then runs on', async () => {
  const ts = { state: 'connected', connected: true, plcAway: '' };
  const { s, sent, run, deliver } = await pageOnClock({ ts });
  assert.equal(s.driving, true, 'a page of its own');
  deliver({ c1: 1, c2: 1, grn: 1, p1fw: 0, p1bw: 0, p2fw: 0, p3fw: 0, red: 0 }, 'snap');
  run(50);
  const at = s.plant.time;
  for (const [why, set] of [
    ['no link to the cloud', () => { ts.connected = false; }],
    ['the edge is away (E_EDGE_DOWN)', () => { ts.connected = true; ts.plcAway = 'E_EDGE_DOWN'; }],
    ['the PLC is away (E_PLC_DOWN)', () => { ts.plcAway = 'E_PLC_DOWN'; }],
  ]) {
    set();
    const frames = sent.length;
    s.feed(false);
    run(500);
    assert.equal(s.plant.time, at, `${why}: the plant's clock stands still`);
    assert.equal(sent.length, frames, 'no box arrives, no input changes, nothing goes out');
    assert.equal(s.snapshot().waits, why);
  }
  assert.deepEqual(s.snapshot().log.filter((l) => /waits/.test(l.text)).map((l) => l.text),
    ['the plant waits: no link to the cloud', 'the plant waits: the edge is away (E_EDGE_DOWN)', 'the plant waits: the PLC is away (E_PLC_DOWN)']);
  assert.equal(s.counters.waitedMs, 1500);
  ts.plcAway = '';
  run(50);
  assert.ok(s.plant.time > at, 'back: the plant runs on');
  assert.ok(sent.some((v) => v.se === 1), 'and the box fed meanwhile arrives at the entry, seen by the PLC');
  assert.equal(s.snapshot().waits, '');
  assert.match(s.snapshot().log.at(-1).text, /the plant runs again/);
  await s.stop();
});
