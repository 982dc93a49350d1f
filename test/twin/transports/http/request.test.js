'use strict';
/** The HTTP transport's default request function (twin/transports/http/request.js) on a real server. */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { nodeRequest } = require('../../../../twin/transports/http/request');

test('keep-alive requests with bytes counted on the sockets (headers included), and a bounded wait', async (t) => {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      if (req.url === '/slow') return; // never answered
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`${req.method} ${body}`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const wire = { in: 0, out: 0 };
  const request = nodeRequest(wire, 300);
  t.after(() => { request.close(); server.closeAllConnections(); server.close(); });
  const r = await request({ method: 'POST', url: `${base}/cmd`, headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
  assert.deepEqual(r, { status: 200, text: 'POST hello' });
  await request({ method: 'GET', url: `${base}/state`, headers: {} });
  const b = request.bytes();
  assert.ok(b.out > 'hello'.length + 40, `request headers counted (${b.out} bytes out)`);
  assert.ok(b.in > 'POST hello'.length + 40, `response headers counted (${b.in} bytes in)`);
  await assert.rejects(request({ method: 'GET', url: `${base}/slow`, headers: {} }), { code: 'E_HTTP_TIMEOUT' });
  const before = request.bytes();
  request.close();
  const retired = () => request.bytes().out === wire.out && request.bytes().in === wire.in;
  for (let i = 0; i < 400 && !retired(); i += 1) await new Promise((res) => setTimeout(res, 5));
  assert.ok(retired(), 'every socket closed with the agents: its bytes are in the totals, no longer read live');
  assert.deepEqual(wire, before, 'closing loses no byte');
});
