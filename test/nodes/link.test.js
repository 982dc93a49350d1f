'use strict';
/**
 * The link nodes in a real Node-RED runtime (node-red-node-test-helper) with raw `ws` clients as
 * twins, and the runtime's own link client dialing its edge endpoint.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { openClient, waitFor, freePort } = require('../helpers/nodes');

const nodes = [
  require('../../nodes/s7twin-link-server'), require('../../nodes/s7twin-link-client'),
  require('../../nodes/s7twin-link-in'), require('../../nodes/s7twin-link-out'),
  require('../../nodes/s7twin-envelope'),
];
const TAB = 'tab';
const TWIN_TOKEN = 'twin-secret';
const EDGE_TOKEN = 'edge-secret';

helper.init(require.resolve('node-red'));

/** Twin endpoint with link in → helper, and helper-fed link out. */
function twinFlow(extra = {}) {
  return [
    { id: TAB, type: 'tab', label: 'link' },
    { id: 'srv', type: 's7twin-link-server', role: 'twin', path: '/s7twin/twin', pingS: 10, maxPayloadKiB: 64, highWaterKiB: 16, ...extra },
    { id: 'in', type: 's7twin-link-in', z: TAB, mode: 'server', server: 'srv', x: 100, y: 100, wires: [['got']] },
    { id: 'got', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
    { id: 'out', type: 's7twin-link-out', z: TAB, mode: 'server', server: 'srv', x: 300, y: 200, wires: [] },
  ];
}

const env = (k, src, seq, d, more = {}) => ({ v: 1, k, src, seq, ts: Date.now(), d, ...more });
const wsUrl = (p, q = '') => `${helper.url().replace('http', 'ws')}${p}${q}`;

describe('s7twin link nodes (real Node-RED runtime, raw ws twins)', () => {
  const clients = [];
  const open = async (...args) => { const c = await openClient(...args); clients.push(c); return c; };

  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await helper.unload();
  });

  it('refuses a missing or wrong token with HTTP 401 before the upgrade; accepts header and ?token=', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: `other, ${TWIN_TOKEN}` } });
    const srv = helper.getNode('srv');
    await assert.rejects(openClient(wsUrl('/s7twin/twin')), (err) => err.statusCode === 401);
    await assert.rejects(openClient(wsUrl('/s7twin/twin'), { token: 'wrong' }), (err) => err.statusCode === 401);
    await assert.rejects(openClient(wsUrl('/s7twin/twin', '?token=nope')), (err) => err.statusCode === 401);
    assert.equal(srv.endpoint.counters.accepted, 0);
    assert.equal(srv.endpoint.counters.refused, 3);
    await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    await open(wsUrl('/s7twin/twin', `?token=${TWIN_TOKEN}`));
    await waitFor(() => srv.endpoint.counters.connections === 2);
    assert.equal(srv.endpoint.counters.accepted, 2);
  });

  it('refuses everyone when no token is configured', async () => {
    const saved = process.env.S7T_TWIN_TOKEN;
    delete process.env.S7T_TWIN_TOKEN;
    try {
      await helper.load(nodes, twinFlow(), {});
      await assert.rejects(openClient(wsUrl('/s7twin/twin'), { token: 'anything' }), (err) => err.statusCode === 401);
    } finally {
      if (saved !== undefined) process.env.S7T_TWIN_TOKEN = saved;
    }
  });

  it('takes the tokens from S7T_TWIN_TOKEN when the credentials are empty', async () => {
    const saved = process.env.S7T_TWIN_TOKEN;
    process.env.S7T_TWIN_TOKEN = 'a,from-env';
    try {
      await helper.load(nodes, twinFlow(), {});
      const c = await open(wsUrl('/s7twin/twin'), { token: 'from-env' });
      assert.equal(c.ws.readyState, 1);
    } finally {
      if (saved === undefined) delete process.env.S7T_TWIN_TOKEN; else process.env.S7T_TWIN_TOKEN = saved;
    }
  });

  it('fans frames out to every twin and sends a fresh twin the merged latest state as a snap', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: TWIN_TOKEN } });
    const out = helper.getNode('out');
    const twins = await Promise.all([1, 2, 3].map(() => open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN })));
    await waitFor(() => helper.getNode('srv').endpoint.counters.connections === 3);
    out.receive({ payload: env('snap', 'edge-1', 1, { c1: 0, red: 0, grn: 0 }) });
    out.receive({ payload: env('state', 'edge-1', 2, { c1: 1, grn: 1 }) });
    out.receive({ payload: env('state', 'edge-1', 3, { red: 1 }) });
    for (const t of twins) {
      await t.next((f) => f.k === 'state' && f.seq === 3);
      assert.deepEqual(t.frames.map((f) => f.seq), [1, 2, 3]);
    }
    const late = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    const snap = await late.next((f) => f.k === 'snap');
    assert.deepEqual(snap.d, { c1: 1, red: 1, grn: 1 });
  });

  it('answers malformed JSON, a wrong version, a bad schema and an oversized frame with err envelopes; others unaffected', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: TWIN_TOKEN } });
    const srv = helper.getNode('srv');
    const inNode = helper.getNode('in');
    const got = [];
    helper.getNode('got').on('input', (m) => got.push(m));
    const errors = [];
    inNode.on('call:error', (call) => errors.push(call.args));
    const bad = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    const good = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });

    bad.send('{not json');
    assert.equal((await bad.next((f) => f.k === 'err' && f.e.code === 'E_JSON')).k, 'err');
    bad.send(env('cmd', 'twin-b', 1, { se: 1 }, { v: 2 }));
    const ver = await bad.next((f) => f.k === 'err' && f.e.code === 'E_VERSION');
    assert.deepEqual(ver.ref, { src: 'twin-b', seq: 1 });
    bad.send(env('cmd', 'twin-b', 2, { se: null }));
    await bad.next((f) => f.k === 'err' && f.e.code === 'E_SCHEMA');
    assert.equal(got.length, 0, 'nothing malformed is output');
    await waitFor(() => errors.length === 3, 10000, 'node.error for each bad frame');
    assert.equal(errors[0][1].error.code, 'E_JSON');

    // The good twin is unaffected and still talks.
    good.send(env('cmd', 'twin-g', 1, { se: 1 }));
    await waitFor(() => got.length === 1);
    assert.equal(got[0].payload.src, 'twin-g');
    assert.equal(got[0]._client, srv.endpoint.clientIds()[1]);

    bad.send(JSON.stringify(env('cmd', 'twin-b', 3, { se: 1 }, { pad: 'x'.repeat(70 * 1024) })));
    await bad.next((f) => f.k === 'err' && f.e.code === 'E_TOO_LARGE');
    const { code } = await bad.closed;
    assert.equal(code, 1009);
    assert.equal(srv.endpoint.counters.tooLarge, 1);
    assert.equal(srv.endpoint.counters.errors, 4);

    helper.getNode('out').receive({ payload: env('state', 'edge-1', 1, { c1: 1 }) });
    await good.next((f) => f.k === 'state' && f.d.c1 === 1);
    assert.equal(srv.endpoint.counters.connections, 1);
  });

  it('drops duplicates by (src, seq) and counts gaps', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: TWIN_TOKEN } });
    const got = [];
    helper.getNode('got').on('input', (m) => got.push(m));
    const t = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    t.send(env('cmd', 'twin-d', 1, { se: 1 }));
    t.send(env('cmd', 'twin-d', 1, { se: 1 }));
    t.send(env('cmd', 'twin-d', 4, { se: 0 }));
    await waitFor(() => got.length === 2);
    const c = helper.getNode('srv').endpoint.counters;
    await waitFor(() => c.duplicates === 1);
    assert.equal(c.gaps, 1);
    assert.deepEqual(got.map((m) => m.payload.seq), [1, 4]);
  });

  it('routes answers to the twin that sent the command, and fans out a relayed msg with a foreign _client', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: TWIN_TOKEN } });
    const got = [];
    helper.getNode('got').on('input', (m) => got.push(m));
    const a = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    const b = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    a.send(env('cmd', 'twin-a', 1, { st: 1 }));
    b.send(env('cmd', 'twin-b', 1, { st: 1 }));
    await waitFor(() => got.length === 2);
    const out = helper.getNode('out');
    out.receive({ payload: env('ack', 'edge-1', 1, undefined, { ref: { src: 'twin-a', seq: 1 } }), _client: 'edge-7' });
    out.receive({ payload: env('err', 'edge-1', 2, undefined, { ref: { src: 'twin-b', seq: 1 }, e: { code: 'E_PLC_DOWN', msg: 'down' } }) });
    await a.next((f) => f.k === 'ack');
    await b.next((f) => f.k === 'err');
    // A relayed frame carrying another endpoint's client id goes to everyone (core would drop it).
    out.receive({ payload: env('state', 'edge-1', 3, { c1: 1 }), _client: 'edge-7', _session: { type: 'websocket', id: 'x' } });
    await a.next((f) => f.k === 'state');
    await b.next((f) => f.k === 'state');
    assert.equal(a.frames.filter((f) => f.k === 'err').length, 0);
    assert.equal(b.frames.filter((f) => f.k === 'ack').length, 0);
    // msg._client of this endpoint: that twin only.
    const aId = got.find((m) => m.payload.src === 'twin-a')._client;
    out.receive({ payload: env('state', 'edge-1', 4, { c2: 1 }), _client: aId });
    await a.next((f) => f.seq === 4);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(b.frames.filter((f) => f.seq === 4).length, 0);
  });

  it('coalesces state for a stalled twin in bounded memory and delivers the latest state after it resumes', async () => {
    await helper.load(nodes, twinFlow({ highWaterKiB: 16 }), { srv: { token: TWIN_TOKEN } });
    const srv = helper.getNode('srv');
    const out = helper.getNode('out');
    const slow = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    const fast = await open(wsUrl('/s7twin/twin'), { token: TWIN_TOKEN });
    await waitFor(() => srv.endpoint.counters.connections === 2);
    const [slowId] = srv.endpoint.clientIds();
    slow.ws._socket.pause(); // the twin stops reading: its TCP window closes, the server's buffer fills
    const streamed = tags.tags.filter((t) => !t.noStream);
    const expected = {};
    let maxBuffered = 0;
    let maxPending = 0;
    const N = 10000;
    const EXTRA = 60;
    for (let i = 1; i <= N; i += 1) {
      const d = {};
      for (const t of streamed) d[t.short] = t.type === 'BOOL' ? (i + t.short.length) % 2 : i % 30000;
      // Wide frames (~1 KiB) so that 10,000 of them overflow what the kernel's socket buffers absorb.
      for (let k = 0; k < EXTRA; k += 1) d[`x${k}`] = (i * 7 + k) % 100000;
      Object.assign(expected, d);
      out.receive({ payload: env('state', 'edge-1', i, d) });
      if (i % 100 === 0) {
        // Let the runtime deliver what was queued so far, then look at the slow twin's buffers.
        await new Promise((r) => setImmediate(r));
        const c = srv.endpoint.client(slowId);
        maxBuffered = Math.max(maxBuffered, c.ws.bufferedAmount);
        maxPending = Math.max(maxPending, c.outbox.pendingTags);
      }
    }
    await fast.next((f) => f.seq === N, 60000);
    assert.ok(srv.endpoint.counters.coalesced > 0, 'frames were coalesced for the stalled twin');
    assert.ok(maxBuffered <= 16 * 1024 + 64 * 1024, `socket buffer stayed bounded (${maxBuffered} bytes)`);
    assert.ok(maxPending <= streamed.length + EXTRA, `pending state holds at most one value per tag (${maxPending})`);
    assert.ok(srv.endpoint.client(slowId).outbox.depth <= 1);
    slow.ws._socket.resume();
    await slow.next((f) => f.seq === N, 60000);
    const seen = {};
    for (const f of slow.frames) if (f.k === 'state' || f.k === 'snap') Object.assign(seen, f.d);
    assert.deepEqual(seen, expected);
    assert.ok(slow.frames.length < N, `the stalled twin got ${slow.frames.length} frames for ${N}`);
  });

  it('edge link client: dials with its token, asks for a snapshot on every connect, reconnects with back-off, seq continues', async () => {
    const flow = [
      { id: TAB, type: 'tab', label: 'edge' },
      { id: 'esrv', type: 's7twin-link-server', role: 'edge', path: '/s7twin/edge', pingS: 10 },
      { id: 'cin', type: 's7twin-link-in', z: TAB, mode: 'server', server: 'esrv', x: 100, y: 100, wires: [['cloudGot']] },
      { id: 'cloudGot', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
      { id: 'cout', type: 's7twin-link-out', z: TAB, mode: 'server', server: 'esrv', x: 300, y: 150, wires: [] },
      { id: 'lc', type: 's7twin-link-client', url: wsUrl('/s7twin/edge'), pingS: 10, backoffInitialMs: 50, backoffMaxMs: 400 },
      { id: 'ein', type: 's7twin-link-in', z: TAB, mode: 'client', client: 'lc', snapshotOnConnect: true, x: 100, y: 300, wires: [['edgeGot']] },
      { id: 'edgeGot', type: 'helper', z: TAB, x: 300, y: 300, wires: [] },
      { id: 'enc', type: 's7twin-envelope', z: TAB, mode: 'encode', kind: 'state', src: 'edge-test', output: 'object', x: 100, y: 400, wires: [['eout']] },
      { id: 'eout', type: 's7twin-link-out', z: TAB, mode: 'client', client: 'lc', x: 300, y: 400, wires: [] },
    ];
    await helper.load(nodes, flow, { esrv: { token: EDGE_TOKEN }, lc: { token: EDGE_TOKEN } });
    const cloudGot = [];
    const edgeGot = [];
    helper.getNode('cloudGot').on('input', (m) => cloudGot.push(m));
    helper.getNode('edgeGot').on('input', (m) => edgeGot.push(m));
    const esrv = helper.getNode('esrv');
    const dialer = helper.getNode('lc').dialer;
    await waitFor(() => edgeGot.some((m) => m.topic === 'snapshot'), 20000, 'a snapshot request on connect');
    assert.deepEqual(edgeGot[0].payload, { k: 'snap-request', reason: 'link connected' });

    helper.getNode('enc').receive({ payload: { c1: 1 } });
    await waitFor(() => cloudGot.length === 1);
    assert.equal(cloudGot[0].payload.seq, 1);
    // Cloud → edge.
    helper.getNode('cout').receive({ payload: env('cmd', 'twin-x', 1, { st: 1 }) });
    await waitFor(() => edgeGot.some((m) => m.topic === 'cmd'));

    // The cloud drops the edge: it reconnects by itself and asks for a snapshot again.
    esrv.endpoint.client(esrv.endpoint.clientIds()[0]).ws.terminate();
    await waitFor(() => dialer.counters.reconnects === 1, 20000, 'a reconnect');
    await waitFor(() => edgeGot.filter((m) => m.topic === 'snapshot').length === 2);
    helper.getNode('enc').receive({ payload: { c1: 0 } });
    await waitFor(() => cloudGot.length === 2);
    assert.equal(cloudGot[1].payload.seq, 2, 'sequence numbers continue across the reconnect');
    assert.equal(esrv.endpoint.counters.duplicates, 0);
    assert.equal(esrv.endpoint.tracker.stats.restarts, 0);
  });

  it('edge link over ZeroMQ: the server binds, the client connects with its token; a command and a state cross; '
    + 'the transport\'s counters in the stats; a twin endpoint refuses another transport than WebSocket', async () => {
    const port = await freePort();
    const flow = [
      { id: TAB, type: 'tab', label: 'edge' },
      { id: 'esrv', type: 's7twin-link-server', role: 'edge', path: '/s7twin/edge', transport: 'zmq', brokerUrl: `tcp://127.0.0.1:${port}` },
      { id: 'cin', type: 's7twin-link-in', z: TAB, mode: 'server', server: 'esrv', x: 100, y: 100, wires: [['cloudGot']] },
      { id: 'cloudGot', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
      { id: 'cout', type: 's7twin-link-out', z: TAB, mode: 'server', server: 'esrv', x: 300, y: 150, wires: [] },
      { id: 'lc', type: 's7twin-link-client', transport: '${S7T_TEST_UNSET_TRANSPORT}', url: wsUrl('/s7twin/edge'), backoffInitialMs: 50, backoffMaxMs: 400 },
      { id: 'lz', type: 's7twin-link-client', transport: 'zmq', brokerUrl: `tcp://127.0.0.1:${port}`, backoffInitialMs: 50, backoffMaxMs: 400 },
      { id: 'ein', type: 's7twin-link-in', z: TAB, mode: 'client', client: 'lz', snapshotOnConnect: true, x: 100, y: 300, wires: [['edgeGot']] },
      { id: 'edgeGot', type: 'helper', z: TAB, x: 300, y: 300, wires: [] },
      { id: 'enc', type: 's7twin-envelope', z: TAB, mode: 'encode', kind: 'state', src: 'edge-test', output: 'object', x: 100, y: 400, wires: [['eout']] },
      { id: 'eout', type: 's7twin-link-out', z: TAB, mode: 'client', client: 'lz', x: 300, y: 400, wires: [] },
      { id: 'tsrv', type: 's7twin-link-server', role: 'twin', path: '/s7twin/twin', transport: 'amqp' },
    ];
    await helper.load(nodes, flow, { esrv: { token: EDGE_TOKEN }, lz: { token: EDGE_TOKEN }, tsrv: { token: TWIN_TOKEN } });
    const cloudGot = [];
    const edgeGot = [];
    helper.getNode('cloudGot').on('input', (m) => cloudGot.push(m));
    helper.getNode('edgeGot').on('input', (m) => edgeGot.push(m));
    assert.equal(helper.getNode('lc').transport, 'ws', 'a ${NAME} of a variable not set means the default, WebSocket');
    assert.equal(helper.getNode('lz').dialer.transport, 'zmq');
    assert.equal(helper.getNode('tsrv').statusInfo().text, 'twins use WebSocket');
    const esrv = helper.getNode('esrv');
    await waitFor(() => esrv.endpoint.edgeReady('plant1'), 20000, 'the edge over ZeroMQ ready');
    await waitFor(() => edgeGot.some((m) => m.topic === 'snapshot'), 20000, 'a snapshot request on connect');
    helper.getNode('enc').receive({ payload: { c1: 1 } });
    await waitFor(() => cloudGot.some((m) => m.payload.k === 'state'), 20000, 'the state at the cloud');
    helper.getNode('cout').receive({ payload: env('cmd', 'twin-x', 1, { st: 1 }) });
    await waitFor(() => edgeGot.some((m) => m.topic === 'cmd'), 20000, 'the command at the edge');
    const res = await helper.request().get('/s7twin/stats').expect(200);
    const stats = res.body.nodes.find((n) => n.id === 'esrv').counters;
    assert.equal(stats.transport.id, 'zmq');
    assert.equal(stats.transport.up, true);
    assert.equal(stats.transport.sessions, 1);
    assert.equal(esrv.statusInfo().kind, 'connected');
  });

  it('edge link client: its journal in the folder it names, per plant, counted in its stats; a bad size is E_JOURNAL and no journal', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-link-journal-'));
    try {
      const flow = [
        { id: TAB, type: 'tab', label: 'link' },
        { id: 'lc', type: 's7twin-link-client', url: `ws://127.0.0.1:${await freePort()}/s7twin/edge`, plant: 'p7', journalDir: dir, journalMiB: '1' },
        { id: 'bad', type: 's7twin-link-client', url: `ws://127.0.0.1:${await freePort()}/s7twin/edge`, plant: 'p8', journalDir: dir, journalMiB: 'lots' },
        { id: 'off', type: 's7twin-link-client', url: `ws://127.0.0.1:${await freePort()}/s7twin/edge`, plant: 'p9', journalDir: dir, journalMiB: '0' },
      ];
      await helper.load(nodes, flow, { lc: { token: EDGE_TOKEN }, bad: { token: EDGE_TOKEN }, off: { token: EDGE_TOKEN } });
      const lc = helper.getNode('lc');
      // No cloud to reach: a state goes into the journal, whole.
      lc.sendEnvelope(env('state', 'edge-test', 1, { c1: 1 }));
      const res = await helper.request().get('/s7twin/stats').expect(200);
      const counters = (id) => res.body.nodes.find((n) => n.id === id).counters;
      assert.deepEqual([counters('lc').journal.records, counters('lc').journal.appended], [1, 1]);
      assert.ok(fs.readdirSync(path.join(dir, 'p7')).some((n) => n.endsWith('.jnl')), 'the journal is in the folder it names, per plant');
      // A disk that refuses: counted, and said on /s7twin/health (without the folder's name).
      lc.journal.ack(1); // the first segment answered and gone: the next record starts segment 2, on a full disk
      fs.symlinkSync('/dev/full', path.join(dir, 'p7', '0000000000000002.jnl'));
      lc.sendEnvelope(env('state', 'edge-test', 2, { c1: 0 }));
      assert.equal(lc.journal.counters.writeErrors, 1);
      const health = (await helper.request().get('/s7twin/health')).body;
      assert.ok((health.warnings || []).some((w) => /journal cannot be written/.test(w) && !w.includes(dir)), JSON.stringify(health));
      assert.equal(counters('bad').journal, undefined, 'a size that is no number: no journal');
      assert.equal(counters('off').journal, undefined, '0: store and forward off');
      assert.equal(fs.existsSync(path.join(dir, 'p9')), false);
      await helper.unload();
      assert.ok(fs.readdirSync(path.join(dir, 'p7')).includes('journal.json'), 'kept after the node closed');
      const after = (await helper.request().get('/s7twin/health')).body;
      assert.ok(!(after.warnings || []).some((w) => /journal/.test(w)), 'no warning of a node that is gone');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every s7twin node\'s counters on GET /s7twin/stats', async () => {
    await helper.load(nodes, twinFlow(), { srv: { token: TWIN_TOKEN } });
    const res = await helper.request().get('/s7twin/stats').expect(200);
    const types = res.body.nodes.map((n) => n.type).sort();
    // The runtime's records (one per process, whichever test opened them) are listed beside the nodes.
    const records = new Set(['s7twin-audit', 's7twin-history']);
    assert.deepEqual(types.filter((x) => !records.has(x)), ['s7twin-link-in', 's7twin-link-out', 's7twin-link-server']);
    assert.ok(types.includes('s7twin-audit'), 'the command log\'s counters too');
    const srv = res.body.nodes.find((n) => n.type === 's7twin-link-server');
    assert.equal(typeof srv.counters.framesIn, 'number');
  });
});
