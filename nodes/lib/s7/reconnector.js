'use strict';
/**
 * Keeps one PLC connection up: each attempt is a fresh client (lib/s7/nodes7-client.js), an
 * attempt that does not succeed within the timeout plus a second fails, and any failure tears the
 * client down completely and tries again after an exponential back-off (lib/core/backoff.js, reset
 * after a connection that lived). What a connection is used for is the caller's: onUp gets each
 * established client, onDown each loss.
 */
const { s7Error } = require('./errors');

/**
 * @param {object} r
 * @param {{host: string, port: number, timeoutMs: number}} r.o the connection's options (passed to open)
 * @param {(o: object) => object} r.open makes a fresh client
 * @param {{next(): number, connected(): void, disconnected(): void}} r.backoff
 * @param {{connects: number, reconnects: number}} r.counters incremented here
 * @param {() => void} r.onConnecting an attempt starts
 * @param {(client: object) => void} r.onUp a connection is established
 * @param {(err: Error, wasUp: boolean) => void} r.onDown an attempt or a connection failed (the
 *   client is already torn down); a retry follows
 * @returns {{start(): void, fail(client: object, err: Error): void, close(): object|null}}
 */
function createReconnector(r) {
  const { o } = r;
  let client = null; // the attempt in progress or the connection up
  let up = false;
  let closed = true;
  let everUp = false;
  let connectTimer = null;
  let retryTimer = null;

  function connect() {
    retryTimer = null;
    if (closed) return;
    r.onConnecting();
    const me = r.open(o);
    client = me;
    clearTimeout(connectTimer);
    connectTimer = setTimeout(() => fail(me, s7Error('E_CONNECT', `no S7 connection to ${o.host}:${o.port} within ${o.timeoutMs} ms`)), o.timeoutMs + 1000);
    me.connect((err) => {
      if (me !== client || closed) return;
      if (err) {
        fail(me, s7Error('E_CONNECT', `cannot connect to the PLC at ${o.host}:${o.port}: ${err.code || err.message || err}`));
        return;
      }
      clearTimeout(connectTimer);
      up = true;
      r.counters.connects += 1;
      if (everUp) r.counters.reconnects += 1;
      everUp = true;
      r.backoff.connected();
      r.onUp(me);
    }, () => fail(me, s7Error('E_PLC_DOWN', 'the PLC closed the connection')));
  }

  /** Tear `me` down (unless it is already replaced), report the loss, retry after back-off. */
  function fail(me, err) {
    if (me !== client) return;
    client = null;
    me.destroy();
    clearTimeout(connectTimer);
    const wasUp = up;
    up = false;
    if (wasUp) r.backoff.disconnected();
    r.onDown(err, wasUp);
    if (!closed && !retryTimer) retryTimer = setTimeout(connect, r.backoff.next());
  }

  return {
    /** Start connecting (idempotent). */
    start() {
      if (!closed) return;
      closed = false;
      connect();
    },
    /** The connection `me` failed (a request timed out, a bad read): fail() above. */
    fail,
    /**
     * Stop: no more attempts. The client is not torn down here.
     * @returns {object|null} the client of the attempt or connection there was (the caller ends
     *   its requests, then destroys it)
     */
    close() {
      closed = true;
      clearTimeout(retryTimer);
      retryTimer = null;
      clearTimeout(connectTimer);
      const me = client;
      client = null;
      up = false;
      return me;
    },
  };
}

module.exports = { createReconnector };
