'use strict';
/**
 * The link over WebSocket: the one transport that carries envelopes between twins, the cloud and
 * the edge today. The endpoints (lib/link/endpoint-core.js) and the dialer (lib/link/dialer.js)
 * see only a "connection", so that another transport can carry the same frames beside it.
 *
 * A connection is an EventEmitter with:
 * - `send(text, dl?)` write one frame (dl: its deadline on this process's clock, for a transport
 *   that queues frames and drops them once it has passed; a WebSocket writes at once); `close(code, reason)` an orderly close (WebSocket close codes:
 *   1000 done, 1001 going away, 1008 policy, 1009 too large; a connection still opening is cut);
 *   `terminate()` cut at once; `ping()` ask the peer for a sign of life ('alive' follows);
 * - `open` (frames can be written now), `closed` (gone for good), `buffered` (bytes written and
 *   not yet on the wire: the back-pressure an outbox waits on);
 * - events: `frame(data: Buffer, isBinary)`, `alive()` (a ping or pong), `error(err)` (an error
 *   with code E_TOO_LARGE is a frame the transport refused for its size), `close(code, reason)`;
 * - `protocol`: the subprotocol the two ends agreed on ('' for none: JSON), which names the
 *   encoding of the frames (lib/core/codec); `codec` is set by whoever runs the connection;
 * - `ws`: the WebSocket underneath (tests and diagnostics only).
 *
 * Every socket gets noDelay and no per-message deflate: frames are small and latency matters.
 */
const { EventEmitter } = require('node:events');
const WebSocket = require('ws');
const { pickProtocol } = require('../core/codec');

const { WebSocketServer } = WebSocket;

/** ws reports a frame past its maxPayload with this code (and closes with 1009 itself). */
const WS_TOO_LARGE = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/**
 * A connection over an open (or opening) WebSocket.
 * @param {WebSocket} ws
 * @returns {EventEmitter & object} see the header
 */
function wrapSocket(ws) {
  const conn = new EventEmitter();
  ws.on('message', (data, isBinary) => conn.emit('frame', Array.isArray(data) ? Buffer.concat(data) : data, isBinary));
  ws.on('ping', () => conn.emit('alive'));
  ws.on('pong', () => conn.emit('alive'));
  ws.on('error', (err) => {
    if (err.code === WS_TOO_LARGE) {
      conn.emit('error', Object.assign(new Error(err.message), { code: 'E_TOO_LARGE', cause: err }));
      return;
    }
    conn.emit('error', err);
  });
  ws.on('close', (code, reason) => conn.emit('close', code, reason));
  return Object.defineProperties(conn, Object.getOwnPropertyDescriptors({
    ws,
    get open() { return ws.readyState === WebSocket.OPEN; },
    get closed() { return ws.readyState === WebSocket.CLOSED; },
    get buffered() { return ws.bufferedAmount; },
    get protocol() { return ws.protocol; },
    codec: null,
    /** One frame: text goes as a text frame, bytes as a binary one. */
    send(frame) { ws.send(frame); },
    close(code, reason) {
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(code, reason);
    },
    terminate() { ws.terminate(); },
    ping() { ws.ping(); },
  }));
}

/**
 * Write an HTTP refusal on an upgrade request's socket (no WebSocket was opened) and close it.
 * @param {import('net').Socket} socket
 * @param {number} status
 * @param {string} text the status text, and the body
 */
function refuseUpgrade(socket, status, text) {
  try {
    socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n`
      + (status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '')
      + `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  } catch { /* peer gone */ }
  socket.destroy();
}

/**
 * The server side: takes HTTP upgrade requests for one path (on a server's 'upgrade' event).
 * @param {object} o
 * @param {string} o.path the only path it answers
 * @param {number} o.maxPayload bytes; ws itself refuses larger frames (close 1009, no answer)
 * @returns {{matches(req): boolean, refuse: typeof refuseUpgrade, upgrade(req, socket, head, cb: (conn) => void): void, close(): void}}
 */
function createWsAcceptor(o) {
  const wss = new WebSocketServer({
    noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: o.maxPayload,
    handleProtocols: (offered) => pickProtocol(offered) || false,
  });
  return {
    matches(req) {
      try { return new URL(req.url, 'http://localhost').pathname === o.path; } catch { return false; }
    },
    /**
     * The subprotocol the request will get: undefined when it offers none (JSON), null when it
     * offers only subprotocols this bridge does not speak (refuse it: 400).
     */
    protocolOf: (req) => pickProtocol(req.headers['sec-websocket-protocol']),
    refuse: refuseUpgrade,
    upgrade(req, socket, head, cb) {
      socket.setNoDelay(true);
      wss.handleUpgrade(req, socket, head, (ws) => cb(wrapSocket(ws)));
    },
    close() { wss.close(); },
  };
}

/**
 * The client side: dial a ws:// or wss:// URL. Besides a connection's events it emits `open`
 * and `refused(status)` (the server answered the upgrade with an HTTP status, e.g. 401 or 409;
 * the connection is cut and 'close' follows).
 * @param {string} url
 * @param {object} o
 * @param {string} [o.token] sent as `Authorization: Bearer`
 * @param {string[]} [o.protocols] subprotocols offered, preferred first (lib/core/codec offerFor)
 * @param {number} o.maxPayload bytes; larger frames close the link (1009)
 * @param {number} o.handshakeTimeoutMs opening handshake limit (a black-holed link hangs there)
 * @param {string|Buffer|Array} [o.ca] CA certificate(s) to verify a wss:// server with
 * @returns {EventEmitter & object}
 */
function dialWs(url, o) {
  const ws = new WebSocket(url, o.protocols || [], {
    headers: o.token ? { Authorization: `Bearer ${o.token}` } : {},
    perMessageDeflate: false,
    maxPayload: o.maxPayload,
    handshakeTimeout: o.handshakeTimeoutMs,
    ...(o.ca ? { ca: o.ca } : {}),
  });
  const conn = wrapSocket(ws); // ws sets noDelay on its own socket
  ws.on('open', () => conn.emit('open'));
  ws.on('unexpected-response', (req, res) => {
    res.resume();
    conn.emit('refused', res.statusCode);
    ws.terminate();
  });
  return conn;
}

module.exports = { wrapSocket, refuseUpgrade, createWsAcceptor, dialWs };
