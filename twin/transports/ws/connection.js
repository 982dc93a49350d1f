'use strict';
/**
 * The headless twin's WebSocket connection to the cloud's twin endpoint, without what it carries:
 * one `ws` client socket at a time with the options every attempt uses (the token as
 * `Authorization: Bearer`, no per-message deflate, a bounded opening handshake and frame size, a
 * private CA for wss://; TCP_NODELAY is set by ws on the socket it takes over), a heartbeat
 * (./heartbeat.js), failover (an attempt that fails or a connection that drops sends the next
 * attempt to the next instance of a fleet), and reconnects with back-off (../reconnect.js) until
 * close() or a refusal that retrying will not change.
 */
const WebSocket = require('ws');
const { createReconnect } = require('../reconnect');
const { startHeartbeat } = require('./heartbeat');

/**
 * What the twin endpoint meant by answering the upgrade with an HTTP status. A refused token
 * (401) or a token not valid for this plant (403) is final: retrying will not help.
 * @param {number} status
 * @param {string} url the endpoint (a token in its query is masked in the message)
 * @returns {{code: string, msg: string, fatal: boolean}}
 */
function refusal(status, url) {
  if (status === 401) {
    const shown = url.replace(/([?&]token=)[^&]*/, '$1***');
    return { code: 'E_UNAUTHORIZED', msg: `the twin endpoint refused the token (HTTP 401) at ${shown}`, fatal: true };
  }
  if (status === 403) return { code: 'E_FORBIDDEN', msg: 'the twin endpoint refused the token for this plant (HTTP 403)', fatal: true };
  return { code: 'E_HTTP', msg: `HTTP ${status}`, fatal: false };
}

/**
 * @param {object} o
 * @param {{url: string, index: number, next(): void}} o.urls the endpoints, in turn (nodes/lib/link/cloud-urls.js)
 * @param {{token?: string, handshakeTimeoutMs: number, maxPayload: number, pingMs: number, ca?: Buffer,
 *   protocols?: string[]}} o.options protocols: the subprotocols offered (nodes/lib/core/codec offerFor)
 * @param {object} o.stats connected, connects, reconnects, failovers, lastError are kept there
 * @param {object} o.backoff nodes/lib/core/backoff.js
 * @param {(again: boolean, protocol: string, sock: object) => void} o.onOpen a connection is up (again: not
 *   the first one) with the subprotocol the endpoint chose ('' for none) on this TCP socket
 * @param {(raw: Buffer, isBinary: boolean) => void} o.onMessage a frame came
 * @param {() => void} o.onClose the connection (or an attempt) ended
 * @param {(r: {code: string, msg: string, fatal: boolean, status: number}) => void} o.onRefused
 *   the endpoint answered the upgrade with an HTTP status; a fatal one ends the attempts
 * @returns {{dial(): void, send(text: string): void, isOpen: boolean, close(reason: string): Promise<void>, closed: boolean}}
 */
function createConnection(o) {
  let ws = null;
  let heartbeat = null;
  const rc = createReconnect({ stats: o.stats, backoff: o.backoff, open });

  function stopHeartbeat() {
    if (heartbeat) heartbeat.stop();
    heartbeat = null;
  }

  function open() {
    if (rc.closed) return;
    const url = o.urls.url;
    const sock = new WebSocket(url, o.options.protocols || [], {
      headers: o.options.token ? { Authorization: `Bearer ${o.options.token}` } : {},
      perMessageDeflate: false,
      handshakeTimeout: o.options.handshakeTimeoutMs,
      maxPayload: o.options.maxPayload,
      ...(o.options.ca ? { ca: o.options.ca } : {}), // wss:// with a private CA (--ca, S7T_CA_FILE)
    });
    ws = sock;
    sock.on('unexpected-response', (req, res) => {
      const r = { ...refusal(res.statusCode, url), status: res.statusCode };
      if (r.fatal) rc.close();
      o.onRefused(r);
      res.resume();
      sock.terminate();
    });
    sock.on('open', () => {
      const again = rc.up();
      stopHeartbeat();
      o.onOpen(again, sock.protocol, sock._socket);
      heartbeat = startHeartbeat(sock, o.options.pingMs);
    });
    sock.on('message', (raw, isBinary) => o.onMessage(raw, isBinary));
    sock.on('error', (err) => {
      // 'close' follows; keep the reason for connect() and the stats.
      o.stats.lastError = err.message;
    });
    sock.on('close', () => {
      stopHeartbeat();
      if (ws === sock) ws = null;
      // The instance went (or refused): the next attempt goes to the next one.
      const before = o.urls.index;
      o.urls.next();
      if (o.urls.index !== before) o.stats.failovers += 1;
      o.onClose();
      rc.down();
      rc.schedule();
    });
  }

  return {
    /** Start the attempts, unless a connection or a scheduled attempt is there already. */
    dial() { if (!ws && !rc.pending) open(); },
    /** Send one frame, text or bytes (the caller checked isOpen). */
    send(frame) { ws.send(frame); },
    get isOpen() { return Boolean(ws && ws.readyState === WebSocket.OPEN); },
    get closed() { return rc.closed; },
    /** For good: no more attempts; the socket closes (terminated if it does not within 1 s). */
    close(reason) {
      rc.close();
      stopHeartbeat();
      const sock = ws;
      if (!sock || sock.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        const t = setTimeout(() => { sock.terminate(); }, 1000);
        sock.once('close', () => { clearTimeout(t); resolve(); });
        if (sock.readyState === WebSocket.CONNECTING) sock.terminate(); else sock.close(1000, reason);
      });
    },
  };
}

module.exports = { createConnection, refusal };
