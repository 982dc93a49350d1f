'use strict';
/**
 * The HTTP transport's default request function, for the headless twin: node:http(s) with one
 * keep-alive agent per scheme (two sockets: commands and polls each keep one), a bounded wait for
 * every answer, and byte counts of every socket used (request and response headers included,
 * ../wire.js). The browser twin passes its own request function (on fetch), which counts bodies
 * only: a page cannot see headers.
 */
const { TransportError } = require('../common');
const { createWireCounter } = require('../wire');

/**
 * @param {{in: number, out: number}} wire totals to add the closed sockets' bytes to
 * @param {number} timeoutMs a request without an answer by then fails with E_HTTP_TIMEOUT
 * @returns {((r: {method: string, url: string, headers: object, body?: string}) => Promise<{status: number, text: string}>)
 *   & {bytes(): {in: number, out: number}, close(): void}}
 */
function nodeRequest(wire, timeoutMs) {
  const http = require('node:http');
  const https = require('node:https');
  const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 2 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 2 }) };
  const sockets = createWireCounter(wire);
  const track = (s) => {
    if (sockets.add(s)) s.once('close', () => sockets.retire(s));
  };
  const fn = (r) => new Promise((resolve, reject) => {
    const u = new URL(r.url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(u, { method: r.method, headers: r.headers, agent: agents[u.protocol], timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('socket', track);
    req.on('timeout', () => req.destroy(new TransportError('E_HTTP_TIMEOUT', `no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(r.body);
  });
  fn.bytes = () => sockets.bytes();
  fn.close = () => { for (const a of Object.values(agents)) a.destroy(); };
  return fn;
}

module.exports = { nodeRequest };
