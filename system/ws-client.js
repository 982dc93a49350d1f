'use strict';
/**
 * A raw WebSocket client that collects every frame it receives, parsed: a twin (or an edge) at
 * the level of the envelopes, for the tests of the link and the bridge's latency bench.
 */
const WebSocket = require('ws');
const { waitFor } = require('./wait');

/**
 * Open a raw WebSocket client and collect parsed frames.
 * @returns {Promise<{ws, frames: object[], closed: Promise<{code:number, reason:string}>, send(obj|string): void,
 *   next(pred, ms?): Promise<object>, close(): Promise<void>}>}
 */
function openClient(url, { token, headers = {}, ...wsOpts } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    const ws = new WebSocket(url, { headers: h, perMessageDeflate: false, ...wsOpts });
    const frames = [];
    let resolveClosed;
    const closed = new Promise((r) => { resolveClosed = r; });
    ws.on('message', (data) => {
      try { frames.push(JSON.parse(data.toString())); } catch { frames.push({ raw: data.toString() }); }
    });
    ws.on('close', (code, reason) => resolveClosed({ code, reason: reason.toString() }));
    ws.once('unexpected-response', (req, res) => {
      const err = new Error(`HTTP ${res.statusCode}`);
      err.statusCode = res.statusCode;
      res.resume();
      reject(err);
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.removeListener('error', reject);
      ws.on('error', () => {});
      resolve({
        ws,
        frames,
        closed,
        send: (obj) => ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)),
        next: (pred, ms = 20000) => waitFor(() => frames.find(pred), ms, 'a matching frame'),
        close: () => new Promise((r) => {
          if (ws.readyState === WebSocket.CLOSED) { r(); return; }
          ws.once('close', () => r());
          ws.close();
          setTimeout(() => ws.terminate(), 2000).unref();
        }),
      });
    });
  });
}

module.exports = { openClient };
