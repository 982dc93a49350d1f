'use strict';
/**
 * The connection bookkeeping a twin transport that dials its own connections shares (the
 * WebSocket, Modbus and HTTP transports here, the browser's WebSocket transport): the link
 * counted up and down in the transport's stats (`connected`, `connects`, `reconnects`), the
 * back-off told of both (a connection that lived long enough starts the next series of retries
 * small again), and the next attempt scheduled after a back-off with jitter, one at a time,
 * never after close(). Browser-safe.
 */

/**
 * @param {object} o
 * @param {object} o.stats the transport's stats: connected, connects and reconnects are kept there
 * @param {{next(): number, connected(): void, disconnected(): void}} o.backoff nodes/lib/core/backoff.js
 * @param {() => void} [o.open] makes the next attempt (called by the retry schedule() set up;
 *   a transport whose retries are paced elsewhere counts its link here without one)
 * @param {(ms: number) => void} [o.onWait] told of every retry scheduled, with its delay
 * @returns {{up(): boolean, down(): boolean, schedule(): void, close(): void, pending: boolean, closed: boolean}}
 */
function createReconnect(o) {
  let timer = null;
  let closed = false;
  for (const k of ['connects', 'reconnects']) o.stats[k] = o.stats[k] || 0;
  o.stats.connected = Boolean(o.stats.connected);

  return {
    /**
     * The link is up.
     * @returns {boolean} whether it was up before (a reconnect: the transport sends its whole
     *   input image again, so the PLC learns the plant as it is now)
     */
    up() {
      o.stats.connected = true;
      o.stats.connects += 1;
      if (o.stats.connects > 1) o.stats.reconnects += 1;
      o.backoff.connected();
      return o.stats.connects > 1;
    },
    /**
     * The link went down (or an attempt failed).
     * @returns {boolean} whether it had been up
     */
    down() {
      const was = o.stats.connected;
      o.stats.connected = false;
      if (was) o.backoff.disconnected();
      return was;
    },
    /** The next attempt, after the back-off; one at a time, none once closed. */
    schedule() {
      if (closed || timer) return;
      const ms = o.backoff.next();
      if (o.onWait) o.onWait(ms);
      timer = setTimeout(() => {
        timer = null;
        if (!closed) o.open();
      }, ms);
    },
    /** An attempt is scheduled and not made yet. */
    get pending() { return timer !== null; },
    get closed() { return closed; },
    /** For good: the scheduled attempt is cancelled and no other is made. */
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

module.exports = { createReconnect };
