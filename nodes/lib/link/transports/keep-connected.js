'use strict';
/**
 * The cloud's side of a broker stays connected: connect, and when the connection is lost (or a
 * connect fails), say so and connect again with back-off (lib/core/backoff.js), until closed. The
 * AMQP and Kafka carriers keep their broker connection this way; every session on a lost
 * connection ends (lib/link/transports/bus-session.js), and the edges redial.
 *
 * Plain module (timers only).
 */
const { createBackoff } = require('../../core/backoff');

/**
 * @param {object} o
 * @param {(lost: (err: Error) => void) => Promise<object>} o.connect open one connection; call
 *   `lost(err)` when it goes; resolves with a handle that has close(): Promise
 * @param {(handle: object) => void} [o.onUp] a connection is up
 * @param {(err: Error) => void} [o.onDown] a connection was lost, or a connect failed
 * @param {object} [o.backoff] lib/core/backoff.js options (default 200 ms doubling to 5 s)
 * @returns {{first: Promise<void>, readonly up: boolean, readonly handle: object|null, close(): Promise<void>}}
 *   first: resolves on the first connection, rejects if the first connect fails (connecting goes on)
 */
function keepConnected(o) {
  const backoff = createBackoff({ initialMs: 200, maxMs: 5000, ...(o.backoff || {}) });
  let handle = null;
  let closed = false;
  let timer = null;
  let settleFirst = null;
  const first = new Promise((resolve, reject) => { settleFirst = { resolve, reject }; });
  first.catch(() => {}); // the caller may not wait for it

  function retry(err) {
    if (closed) return;
    if (o.onDown) o.onDown(err);
    timer = setTimeout(attempt, backoff.next());
    timer.unref?.();
  }

  async function attempt() {
    timer = null;
    if (closed) return;
    let mine = null;
    let gone = false;
    const lost = (err) => {
      if (gone) return;
      gone = true;
      if (handle === mine) handle = null;
      backoff.disconnected();
      if (mine) mine.close().catch(() => {});
      retry(err);
    };
    try {
      mine = await o.connect(lost);
    } catch (err) {
      if (settleFirst) { settleFirst.reject(err); settleFirst = null; }
      if (!gone) { gone = true; retry(err); }
      return;
    }
    if (closed || gone) { mine.close().catch(() => {}); return; }
    handle = mine;
    backoff.connected();
    if (o.onUp) o.onUp(mine);
    if (settleFirst) { settleFirst.resolve(); settleFirst = null; }
  }

  attempt();
  return {
    first,
    get up() { return Boolean(handle); },
    get handle() { return handle; },
    async close() {
      closed = true;
      clearTimeout(timer);
      const h = handle;
      handle = null;
      if (h) await h.close().catch(() => {});
    },
  };
}

module.exports = { keepConnected };
