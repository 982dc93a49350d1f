'use strict';
/**
 * Small pieces every twin transport has: its error class (TransportError, a stable `code`), error
 * codes counted in its stats (a bounded set, the last one kept for the panel), and the wait of
 * connect() for the first connection (resolve, reject with a coded error, time out). Used by every
 * transport in this folder and the browser's WebSocket transport; browser-safe. The other shared
 * parts have a file each: ./answers.js, ./envelopes.js, ./reconnect.js, ./wire.js.
 */
const { codedError } = require('../../nodes/lib/core/errors');

/** The error every twin transport throws or rejects with: `code` E_TRANSPORT_CONFIG, E_CLOSED, … */
const TransportError = codedError('TransportError');

/**
 * @param {object} stats the transport's stats ({errors, errorCodes, lastError} are kept there)
 * @param {{max?: number, log?: (line: string) => void, label?: string}} [o]
 * @returns {(code: string, msg?: string) => void}
 */
function createErrorCounter(stats, o = {}) {
  const max = o.max || 50;
  const log = o.log || (() => {});
  return (code, msg) => {
    stats.errors += 1;
    if (stats.errorCodes[code] !== undefined || Object.keys(stats.errorCodes).length < max) {
      stats.errorCodes[code] = (stats.errorCodes[code] || 0) + 1;
    }
    stats.lastError = `${code}${msg ? `: ${msg}` : ''}`;
    log(`${o.label ? `${o.label}: ` : ''}${stats.lastError}`);
  };
}

/**
 * connect()'s promise: settled by the first connection, a fatal error, close(), or the timeout.
 * Each call of connect() waits on its own (a second call while the first waits neither cancels
 * the first nor is cancelled by its timeout).
 * @param {(code: string, msg: string) => Error} makeError
 */
function createConnectWaiter(makeError) {
  const waiters = new Set();
  return {
    get waiting() { return waiters.size > 0; },
    /** A promise that settles when the link is up (or fails within timeoutMs). */
    wait(timeoutMs, timeoutMessage) {
      return new Promise((resolve, reject) => {
        const w = { resolve, reject };
        w.timer = setTimeout(() => { waiters.delete(w); reject(makeError('E_CONNECT_TIMEOUT', timeoutMessage())); }, timeoutMs);
        waiters.add(w);
      });
    },
    resolve() {
      for (const w of waiters) { clearTimeout(w.timer); w.resolve(); }
      waiters.clear();
    },
    /** @returns {boolean} whether someone was waiting (else the caller reports the error itself) */
    reject(err) {
      if (!waiters.size) return false;
      for (const w of waiters) { clearTimeout(w.timer); w.reject(err); }
      waiters.clear();
      return true;
    },
  };
}

/**
 * The message of connect()'s timeout: what did not happen in time, and the last error seen, if any.
 * @param {string} what e.g. `no connection to ws://…`
 * @param {number} ms the timeout
 * @param {{lastError?: string}} stats
 */
function connectTimeoutMessage(what, ms, stats) {
  return `${what} within ${ms} ms${stats.lastError ? ` (${stats.lastError})` : ''}`;
}

module.exports = { TransportError, createErrorCounter, createConnectWaiter, connectTimeoutMessage };
