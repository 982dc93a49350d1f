'use strict';
/**
 * The headless twin's WebSocket connection (twin/transports/ws/connection.js) against real ws
 * servers on ephemeral ports: what a refused upgrade means, reconnects, failover to the next
 * instance.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { WebSocketServer } = require('ws');
const { createConnection, refusal } = require('../../../../twin/transports/ws/connection');
const { parseCloudUrls, createRotation } = require('../../../../nodes/lib/link/cloud-urls');
const { createBackoff } = require('../../../../nodes/lib/core/backoff');
const { waitFor } = require('../../../helpers/nodered');

const OPTIONS = { handshakeTimeoutMs: 2000, maxPayload: 65536, pingMs: 60000 };

function listen(server) {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));
}

/** A twin endpoint stand-in: accepts every upgrade, or answers it with `status`. */
async function endpoint(status) {
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true });
  const seen = { upgrades: 0, headers: [] };
  server.on('upgrade', (req, socket, head) => {
    seen.upgrades += 1;
    seen.headers.push(req.headers.authorization);
    if (status) { socket.end(`HTTP/1.1 ${status} No\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`); return; }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });
  const port = await listen(server);
  return {
    url: `ws://127.0.0.1:${port}/s7twin/twin`, wss, seen,
    close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); server.closeAllConnections(); server.close(r); }),
  };
}

function connection(urls, hooks = {}) {
  const stats = { connected: false, connects: 0, reconnects: 0, failovers: 0 };
  const log = { opens: [], closes: 0, refused: [], messages: [] };
  const conn = createConnection({
    urls: createRotation(parseCloudUrls(urls)), options: { ...OPTIONS, token: 'T' }, stats,
    backoff: createBackoff({ initialMs: 20, maxMs: 50 }),
    onOpen: (again) => log.opens.push(again),
    onMessage: (raw) => log.messages.push(String(raw)),
    onClose: () => { log.closes += 1; },
    onRefused: (r) => log.refused.push(r),
    ...hooks,
  });
  return { conn, stats, log };
}

test('refusal: 401 and 403 are final, other statuses are retried; a token in the URL is masked', () => {
  assert.deepEqual(refusal(401, 'ws://h/t?token=secret&plant=p1'),
    { code: 'E_UNAUTHORIZED', msg: 'the twin endpoint refused the token (HTTP 401) at ws://h/t?token=***&plant=p1', fatal: true });
  assert.equal(refusal(403, 'ws://h/t').code, 'E_FORBIDDEN');
  assert.equal(refusal(403, 'ws://h/t').fatal, true);
  assert.deepEqual(refusal(503, 'ws://h/t'), { code: 'E_HTTP', msg: 'HTTP 503', fatal: false });
});

test('a refused token ends the attempts; the token went as a Bearer header', async (t) => {
  const ep = await endpoint(401);
  t.after(() => ep.close());
  const { conn, log } = connection(ep.url);
  conn.dial();
  await waitFor(() => log.refused.length === 1 && log.closes === 1, 10000, 'the refusal and the close');
  assert.equal(log.refused[0].code, 'E_UNAUTHORIZED');
  assert.equal(log.refused[0].status, 401);
  assert.equal(conn.closed, true, 'no further attempt');
  assert.deepEqual(ep.seen.headers, ['Bearer T']);
  await conn.close('done');
});

test('frames both ways, a reconnect after a drop, and a clean close', async (t) => {
  const ep = await endpoint();
  t.after(() => ep.close());
  ep.wss.on('connection', (ws) => ws.on('message', (m) => ws.send(`echo ${m}`)));
  const { conn, stats, log } = connection(ep.url);
  conn.dial();
  conn.dial(); // a connection is being made: no second one
  await waitFor(() => conn.isOpen, 10000, 'open');
  assert.deepEqual(log.opens, [false]);
  conn.send('hello');
  await waitFor(() => log.messages.length === 1, 10000, 'the echo');
  assert.equal(log.messages[0], 'echo hello');
  for (const c of ep.wss.clients) c.terminate();
  await waitFor(() => log.opens.length === 2, 10000, 'the reconnect');
  assert.deepEqual(log.opens, [false, true], 'the second connection is a reconnect');
  assert.equal(log.closes, 1);
  assert.equal(stats.reconnects, 1);
  assert.equal(ep.seen.upgrades, 2);
  await conn.close('done');
  assert.equal(conn.isOpen, false);
  assert.equal(conn.closed, true);
});

test('an instance that is down: the next attempt goes to the next one (failover)', async (t) => {
  const ep = await endpoint();
  t.after(() => ep.close());
  const dead = await endpoint(); // made after the live one, so it cannot have the same port
  const deadUrl = dead.url;
  await dead.close();
  const { conn, stats, log } = connection(`${deadUrl},${ep.url}`);
  conn.dial();
  await waitFor(() => conn.isOpen, 10000, 'open on the second instance');
  assert.equal(stats.failovers, 1);
  assert.equal(stats.connects, 1);
  assert.deepEqual(log.opens, [false]);
  await conn.close('done');
});
