'use strict';
/**
 * The link over ZeroMQ (libzmq through the `zeromq` 6 npm package and its prebuilt addon): no
 * broker. The cloud binds a ROUTER on a configured address (`tcp://127.0.0.1:5560`: loopback or
 * one interface, never `*` unless that is meant), each edge session connects a DEALER of its own.
 *
 * What ZeroMQ does not give, and how the link provides it (lib/link/transports/bus-session.js):
 * - Who may connect: anyone who reaches the port can send. The session's hello carries the edge's
 *   link token and plant; the ROUTER reads no frame of a routing id whose hello it has not
 *   admitted (a token check, then one edge per plant, as on the WebSocket). The token crosses in
 *   clear: across a network, run it over a VPN or TLS tunnel (or add CURVE keys).
 * - No persistence and no queue that outlives a connection: a session is one DEALER, made for
 *   one dial and closed with linger 0, so nothing it held is sent after it; the DEALER does not
 *   reconnect by itself (a dropped TCP connection ends the session and the dialer dials a new
 *   one), and the ROUTER refuses to send to a peer that is gone (mandatory): that ends the
 *   peer's session at once, as a closed WebSocket would.
 * - Liveness: ZeroMQ hides nothing here (no broker between), but a black-holed link keeps its TCP
 *   connection, so the sync heartbeat is what finds it, as on the WebSocket.
 *
 * A frame is one ZeroMQ message: the 17-byte link header and the frame (lib/link/transports/bus-frame.js);
 * the ROUTER prepends the DEALER's routing id, which is where the answer goes.
 */
const { loadClient } = require('./clients');

const DEFAULTS = {
  sendHighWaterMark: 10000, // messages queued per peer before the ROUTER drops (the dealer waits)
  maxQueue: 10000, // messages waiting for the socket in this process; past it the session is cut
};

/**
 * Messages written one after the other: zeromq allows one pending send per socket.
 * @param {object} sock a zeromq socket
 * @param {(err: Error, parts: Buffer[]) => void} onError a send failed
 * @param {number} maxQueue
 */
function createWriter(sock, onError, maxQueue) {
  const queue = [];
  let busy = false;
  let bytes = 0;
  async function drain() {
    busy = true;
    while (queue.length) {
      const m = queue.shift();
      bytes -= m.size;
      try { await sock.send(m.parts); } catch (err) { if (!sock.closed) onError(err, m.parts); }
    }
    busy = false;
  }
  return {
    get bytes() { return bytes; },
    write(parts) {
      if (sock.closed) throw new Error('the ZeroMQ socket is closed');
      if (queue.length >= maxQueue) throw Object.assign(new Error(`${maxQueue} messages already wait for the ZeroMQ socket`), { code: 'E_BUSY' });
      const size = parts.reduce((n, p) => n + p.length, 0);
      queue.push({ parts, size });
      bytes += size;
      if (!busy) drain();
    },
  };
}

/**
 * The cloud's carrier: a ROUTER bound to `url`.
 * @param {object} o
 * @param {string} o.url e.g. tcp://127.0.0.1:5560 (port 0: a free one; `port` says which)
 * @param {number} [o.maxPayload] bytes; libzmq cuts a peer that sends a larger message
 * @returns {object} a cloud carrier (lib/link/transports/bus-session.js), with `port` once started
 */
function cloudCarrier(o) {
  const zmq = loadClient('zmq');
  const opts = { ...DEFAULTS, ...o };
  // mandatory: a message to a peer that is gone fails (EHOSTUNREACH) instead of vanishing, so the
  // session of an edge whose connection dropped ends at the cloud's next frame, not after its
  // silence; sendTimeout 0: a peer that does not read is not waited for (its frames are dropped,
  // and its silence ends its session).
  const sock = new zmq.Router({
    linger: 0, mandatory: true, sendTimeout: 0, sendHighWaterMark: opts.sendHighWaterMark, ...(opts.maxPayload ? { maxMessageSize: opts.maxPayload + 64 } : {}),
  });
  let downFn = () => {};
  let goneFn = () => {};
  const writer = createWriter(sock, (err, parts) => {
    if (err.code === 'EHOSTUNREACH') goneFn(parts[0]);
    else if (err.code !== 'EAGAIN') downFn(err);
  }, opts.maxQueue);
  const carrier = {
    port: null,
    async start(onMessage) {
      await sock.bind(String(opts.url).replace(/:0$/, ':*'));
      carrier.port = Number(/:(\d+)$/.exec(sock.lastEndpoint)[1]);
      (async () => {
        try {
          for await (const [id, buf] of sock) onMessage(buf, { replyTo: id, remote: `zmq:${id.toString('hex').slice(0, 12)}` });
        } catch (err) {
          if (!sock.closed) downFn(err);
        }
      })();
    },
    send(to, buf) { writer.write([to, buf]); },
    onDown(fn) { downFn = fn; },
    /** A frame could not go: nothing is connected with that routing id any more. */
    onPeerGone(fn) { goneFn = fn; },
    async close() { if (!sock.closed) sock.close(); },
  };
  return carrier;
}

/**
 * The edge's carrier for one session: a DEALER connected to the cloud's ROUTER.
 * @param {string} url tcp://host:port
 * @param {object} [o]
 * @param {number} [o.maxPayload]
 * @returns {object} an edge carrier (lib/link/transports/bus-session.js)
 */
function edgeCarrier(url, o = {}) {
  const zmq = loadClient('zmq');
  const opts = { ...DEFAULTS, ...o };
  // immediate: nothing is queued for a connection that is not up; reconnectInterval -1: a dropped
  // connection stays dropped (the session ends, the dialer dials a fresh one).
  const sock = new zmq.Dealer({ linger: 0, immediate: true, reconnectInterval: -1, ...(opts.maxPayload ? { maxMessageSize: opts.maxPayload + 64 } : {}) });
  let downFn = () => {};
  let messageFn = () => {};
  const writer = createWriter(sock, (err) => downFn(err), opts.maxQueue);
  sock.events.on('disconnect', () => downFn(Object.assign(new Error('the ZeroMQ connection to the cloud dropped'), { code: 'ECONNRESET' })));
  return {
    async open() {
      sock.connect(url);
      (async () => {
        try {
          for await (const [buf] of sock) messageFn(buf);
        } catch (err) {
          if (!sock.closed) downFn(err);
        }
      })();
    },
    send(buf) { writer.write([buf]); },
    buffered: () => writer.bytes,
    onMessage(fn) { messageFn = fn; },
    onDown(fn) { downFn = fn; },
    async close() { if (!sock.closed) sock.close(); },
  };
}

module.exports = { DEFAULTS, cloudCarrier, edgeCarrier };
