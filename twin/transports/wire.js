'use strict';
/**
 * Bytes on the wire, counted on the TCP sockets a twin transport used (headers and framing
 * included, which is what a network carries), for the MQTT, Modbus and HTTP transports: the
 * sockets in use are read live, and a socket that is retired (closed, or replaced by a new
 * connection) adds what it carried to the totals. Each socket gets TCP_NODELAY unless told
 * otherwise: small frames must not wait for Nagle's algorithm and the peer's delayed ACK.
 * Browser-safe (a page has no sockets: it never calls add()).
 */

/**
 * @param {{in: number, out: number}} [done] totals of the sockets retired so far (kept up to date
 *   in this object)
 * @returns {{add(sock: object, o?: {noDelay?: boolean}): boolean, use(sock: object, o?: {noDelay?: boolean}): boolean,
 *   retire(sock?: object): void, bytes(): {in: number, out: number}, live: number}}
 */
function createWireCounter(done = { in: 0, out: 0 }) {
  const live = new Set();
  const seen = new WeakSet(); // a socket counted once, even when reported again after it closed

  function retireOne(sock) {
    if (!live.delete(sock)) return;
    done.in += sock.bytesRead || 0;
    done.out += sock.bytesWritten || 0;
  }

  /** Count a socket from now on (a second add of the same socket does nothing). @returns {boolean} whether it is new */
  function add(sock, o = {}) {
    if (!sock || seen.has(sock)) return false;
    seen.add(sock);
    live.add(sock);
    if (o.noDelay !== false && typeof sock.setNoDelay === 'function') sock.setNoDelay(true);
    return true;
  }

  return {
    add,
    /** The one socket of the current connection: every other one is retired. @returns {boolean} whether it is new */
    use(sock, o) {
      if (!sock || live.has(sock)) return false;
      for (const s of [...live]) retireOne(s);
      return add(sock, o);
    },
    /** A socket is done (closed, or its connection was given up); without one, every socket. */
    retire(sock) {
      if (sock) retireOne(sock);
      else for (const s of [...live]) retireOne(s);
    },
    /** Totals so far, the sockets in use included. */
    bytes() {
      let i = done.in;
      let out = done.out;
      for (const s of live) { i += s.bytesRead || 0; out += s.bytesWritten || 0; }
      return { in: i, out };
    },
    get live() { return live.size; },
  };
}

module.exports = { createWireCounter };
