'use strict';
/**
 * The link's sessions over a message bus (lib/link/transports/bus-session.js), on an in-memory bus
 * (test/helpers/bus.js) and the real edge endpoint (lib/link/endpoint.js): admission before any
 * frame, one edge per plant, frames both ways, byes, unknown sessions, a lost broker, the
 * handshake's time limit, the size limit, the plant a broker vouches for.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEndpoint } = require('../../../../../nodes/lib/link/endpoint');
const { dialBus, createBusListener, UNKNOWN_SESSION } = require('../../../../../nodes/lib/link/transports/bus-session');
const bus = require('../../../../../nodes/lib/link/transports/bus-frame');
const clock = require('../../../../../nodes/lib/core/clock');
const { memoryBus } = require('../../../../helpers/bus');
const { waitFor } = require('../../../../../system/wait');

const sync = (seq) => JSON.stringify({ v: 1, k: 'sync', src: 'edge-link', seq, ts: clock.now() });

/** An edge endpoint for plant1 (token 'ed') listening on a memory bus. */
async function startCloud(t, busOpts = {}, epOpts = {}) {
  const b = memoryBus(busOpts);
  const ep = createEndpoint({ path: '/e', role: 'edge', tokens: ['ed'], plant: 'plant1', src: 'cloud-e', transport: 'mem', linkTimeoutMs: 3000, ...epOpts });
  const listener = createBusListener(b.cloudCarrier(), { transport: 'mem', admitRequest: ep.admitRequest, maxPayload: 2048 });
  await listener.start();
  const refused = [];
  ep.on('refused', (reason) => refused.push(reason));
  t.after(async () => { await ep.close(); await listener.close(); });
  return { b, ep, listener, refused };
}

/** Dial; resolves with the connection once it opened, or rejects with its refusal or close. */
function open(conn) {
  return new Promise((resolve, reject) => {
    conn.once('open', () => resolve(conn));
    conn.once('refused', (status) => reject(Object.assign(new Error(`refused ${status}`), { status })));
    conn.once('close', (code, reason) => reject(Object.assign(new Error(`closed ${code} ${reason}`), { code })));
  });
}

const framesOf = (conn) => {
  const got = [];
  conn.on('frame', (data, isBinary) => got.push({ env: JSON.parse(data.toString()), isBinary }));
  return got;
};

test('an admitted session carries frames both ways; the edge\'s bye closes it on the cloud', async (t) => {
  const { b, ep, listener } = await startCloud(t);
  const conn = await open(dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' }));
  assert.equal(conn.codec.name, 'json');
  assert.equal(conn.transport, 'mem');
  const got = framesOf(conn);
  const ready = new Promise((r) => ep.once('ready', r));
  conn.send(sync(1));
  await ready;
  await waitFor(() => got.length === 1, 5000, 'the sync answered');
  assert.equal(got[0].env.k, 'sync-res');
  assert.equal(got[0].isBinary, false);
  assert.equal(ep.edgeReady('plant1'), true);
  assert.equal(listener.sessions(), 1);

  const gone = new Promise((r) => ep.once('disconnect', (id, code) => r(code)));
  conn.close(1000, 'done');
  assert.equal(await gone, 1000);
  assert.equal(listener.sessions(), 0);
});

test('a wrong token is refused (401) before any frame is read; its session stays unknown', async (t) => {
  const { b, ep, listener, refused } = await startCloud(t);
  const conn = dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'nope', plant: 'plant1' });
  await assert.rejects(open(conn), (err) => err.status === 401);
  assert.deepEqual(refused, ['token']);
  // A frame of that session (or any session never admitted) is not read: it is answered bye.
  const envelopes = [];
  ep.on('envelope', (env) => envelopes.push(env));
  const sid = bus.newSessionId();
  b.inject(bus.encode('frame', sid, JSON.stringify({ v: 1, k: 'state', src: 'x', seq: 1, ts: 1, d: { c1: 1 } })), { plant: 'plant1' });
  await waitFor(() => listener.counters.unknownSessions === 1, 5000, 'the stray frame counted');
  const bye = b.log.find((m) => m.dir === 'down' && bus.decode(m.buf).sid === sid);
  assert.equal(bus.decode(bye.buf).type, 'bye');
  assert.equal(bus.controlBody(bus.decode(bye.buf).body).code, UNKNOWN_SESSION);
  assert.deepEqual(envelopes, []);
  assert.equal(ep.counters.framesIn, 0);
});

test('one edge per plant: a second session is refused 409 while the first is heard', async (t) => {
  const { b, refused } = await startCloud(t);
  const first = await open(dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' }));
  first.send(sync(1));
  const second = dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' });
  await assert.rejects(open(second), (err) => err.status === 409);
  assert.deepEqual(refused, ['edge-taken']);
  assert.equal(first.open, true);
  first.close();
});

test('a plant the broker vouches for must be the plant the hello names (403 otherwise)', async (t) => {
  const { b } = await startCloud(t, { vouch: true });
  const conn = dialBus(b.edgeCarrier('plant1', { vouchPlant: 'plant2' }), { transport: 'mem', token: 'ed', plant: 'plant1' });
  await assert.rejects(open(conn), (err) => err.status === 403);
});

test('a lost broker ends every session on both sides (close 1006)', async (t) => {
  const { b, ep } = await startCloud(t);
  const conn = await open(dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' }));
  const cloudGone = new Promise((r) => ep.once('disconnect', (id, code) => r(code)));
  const edgeGone = new Promise((r) => conn.once('close', (code) => r(code)));
  const errors = [];
  conn.on('error', (e) => errors.push(e.message));
  b.down();
  assert.equal(await cloudGone, 1006);
  assert.equal(await edgeGone, 1006);
  assert.deepEqual(errors, ['broker connection lost']);
});

test('no welcome within the handshake time: the session ends with E_LINK_HANDSHAKE', async (t) => {
  const b = memoryBus(); // nobody listens
  const conn = dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1', handshakeTimeoutMs: 100 });
  const errors = [];
  conn.on('error', (e) => errors.push(e.code));
  await assert.rejects(open(conn), (err) => err.code === 1006);
  assert.deepEqual(errors, ['E_LINK_HANDSHAKE']);
  t.diagnostic('handshake timed out as expected');
});

test('a broker login that fails ends the dial with the error', async () => {
  const b = memoryBus();
  const conn = dialBus(b.edgeCarrier('plant1', { failOpen: true }), { transport: 'mem', token: 'ed', plant: 'plant1' });
  const errors = [];
  conn.on('error', (e) => errors.push(e.code));
  await assert.rejects(open(conn), (err) => err.code === 1006);
  assert.deepEqual(errors, ['ECONNREFUSED']);
});

test('a frame past the size limit closes the session 1009 with E_TOO_LARGE, as a WebSocket does', async (t) => {
  const { b, ep } = await startCloud(t);
  const conn = await open(dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' }));
  const gone = new Promise((r) => ep.once('disconnect', (id, code) => r(code)));
  const edgeGone = new Promise((r) => conn.once('close', (code) => r(code)));
  conn.send('x'.repeat(4096));
  assert.equal(await gone, 1009);
  assert.equal(await edgeGone, 1009);
  assert.equal(ep.counters.tooLarge, 1);
});

test('the cloud\'s answer address (AMQP\'s reply queue, ZeroMQ\'s routing id) is where it answers; '
  + 'its own address goes back in the welcome', async (t) => {
  const { b } = await startCloud(t, { replyTo: true, cloudAddress: 'cloud-queue-1' });
  const carrier = b.edgeCarrier('plant1');
  const conn = await open(dialBus(carrier, { transport: 'mem', token: 'ed', plant: 'plant1' }));
  assert.equal(carrier.edge.routed, 'cloud-queue-1');
  const welcome = b.log.find((m) => m.dir === 'down' && bus.decode(m.buf).type === 'welcome');
  assert.equal(welcome.to, carrier.edge.box);
  conn.close();
});

test('a request\'s deadline goes to the carrier with its frame', async (t) => {
  const { b, ep } = await startCloud(t);
  const conn = await open(dialBus(b.edgeCarrier('plant1'), { transport: 'mem', token: 'ed', plant: 'plant1' }));
  const got = framesOf(conn);
  conn.send(sync(1));
  await waitFor(() => ep.edgeReady('plant1'), 5000, 'the edge ready');
  const dl = clock.now() + 1000;
  assert.equal(ep.send({ v: 1, k: 'cmd', src: 'twin-1', seq: 1, ts: Date.now(), dl, d: { c1: 1 } }, undefined, 'plant1'), 1);
  await waitFor(() => got.some((f) => f.env.k === 'cmd'), 5000, 'the command delivered');
  const sent = b.log.find((m) => m.dir === 'down' && bus.decode(m.buf).type === 'frame' && JSON.parse(bus.decode(m.buf).body).k === 'cmd');
  assert.equal(sent.dl, dl);
  conn.close();
});
