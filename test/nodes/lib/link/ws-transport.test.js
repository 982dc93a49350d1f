'use strict';
/**
 * lib/link/ws-transport.js over real sockets on 127.0.0.1: the connection seam (frames, signs of
 * life, close, back-pressure), upgrades taken for one path only, refusals as HTTP statuses, and a
 * refused dial reported with its status.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { createWsAcceptor, dialWs } = require('../../../../nodes/lib/link/ws-transport');
const { waitFor } = require('../../../../system/wait');

/** A server whose acceptor takes /p, refuses ?refuse=<status>, and leaves other paths alone. */
async function serve(t, maxPayload = 1024) {
  const acceptor = createWsAcceptor({ path: '/p', maxPayload });
  const conns = [];
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => {
    if (!acceptor.matches(req)) { socket.destroy(); return; }
    const refuse = new URL(req.url, 'http://x').searchParams.get('refuse');
    if (refuse) { acceptor.refuse(socket, Number(refuse), 'No'); return; }
    acceptor.upgrade(req, socket, head, (conn) => conns.push(conn));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const dialled = [];
  t.after(async () => {
    for (const c of [...conns, ...dialled]) c.terminate();
    acceptor.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const url = (q = '') => `ws://127.0.0.1:${server.address().port}/p${q}`;
  /** Dial the server (the connection is cut when the test ends, whatever happened). */
  const dial = (q) => {
    const c = dialWs(url(q), { maxPayload: 1024, handshakeTimeoutMs: 3000 });
    dialled.push(c);
    return c;
  };
  return { conns, dial, acceptor };
}

test('both ends are connections: frames both ways, pings answered as signs of life, an orderly close', async (t) => {
  const s = await serve(t);
  const client = s.dial();
  const fromServer = [];
  client.on('frame', (data, isBinary) => fromServer.push([String(data), isBinary]));
  await new Promise((r) => client.once('open', r));
  assert.equal(client.open, true);
  await waitFor(() => s.conns.length === 1);
  const server = s.conns[0];
  const fromClient = [];
  server.on('frame', (data) => fromClient.push(String(data)));
  let alive = 0;
  client.on('alive', () => { alive += 1; });
  client.send('hello');
  server.send('world');
  server.ping();
  await waitFor(() => fromClient.length === 1 && fromServer.length === 1 && alive === 1);
  assert.deepEqual(fromServer, [['world', false]]);
  assert.equal(typeof server.buffered, 'number');
  assert.ok(server.ws, 'the WebSocket underneath is reachable for diagnostics');
  const closed = new Promise((r) => server.once('close', (code) => r(code)));
  client.close(1000, 'bye');
  assert.equal(await closed, 1000);
  await waitFor(() => client.closed);
});

test('a frame past the transport\'s limit is an E_TOO_LARGE error, and the peer is told 1009', async (t) => {
  const s = await serve(t, 64);
  const client = s.dial();
  await new Promise((r) => client.once('open', r));
  await waitFor(() => s.conns.length === 1);
  const errors = [];
  s.conns[0].on('error', (err) => errors.push(err.code));
  client.on('error', () => {});
  const closed = new Promise((r) => client.once('close', (code) => r(code)));
  client.send('x'.repeat(200));
  assert.equal(await closed, 1009);
  assert.deepEqual(errors, ['E_TOO_LARGE']);
});

test('a refused upgrade reaches the dialer as its HTTP status, then a close; other paths are not taken', async (t) => {
  const s = await serve(t);
  assert.equal(s.acceptor.matches({ url: '/p?x=1' }), true);
  assert.equal(s.acceptor.matches({ url: '/other' }), false);
  const client = s.dial('?refuse=409');
  client.on('error', () => {});
  const refused = new Promise((r) => client.once('refused', r));
  const closed = new Promise((r) => client.once('close', r));
  assert.equal(await refused, 409);
  await closed;
  assert.equal(client.closed, true);
  const early = s.dial();
  early.on('error', () => {});
  const earlyClosed = new Promise((r) => early.once('close', r));
  early.close(1000, 'never mind'); // still opening: cut
  await earlyClosed;
  assert.equal(early.open, false);
});
