'use strict';
/**
 * The first session of an OPC UA client, tried until it works. node-opcua retries a lost
 * connection by itself (session.js), but not a first session that failed: a refused login or a
 * certificate problem makes connect() reject once and for all. The edge bridge and its probe relay
 * try again every retryMs until it works or they stop, reporting each failure.
 */

const DEFAULTS = {
  retryMs: 5000, // a first session that failed (login refused, ...) is tried again after 5 s
};

/**
 * Connect `session` (session.js); on failure report it and try again after `retryMs`.
 * @param {{connect(): Promise<void>}} session
 * @param {object} opts
 * @param {() => boolean} opts.isStopped true once the owner stopped: no further try
 * @param {(ms: number) => Promise<void>} opts.wait a wait the owner's stop ends at once (waits.js)
 * @param {(err: Error) => void} [opts.onError] each failed try (not the ones after a stop)
 * @param {number} [opts.retryMs] default 5000
 * @returns {Promise<void>} resolves once connected, or once stopped (never rejects)
 */
async function connectFirstSession(session, opts) {
  const retryMs = opts.retryMs ?? DEFAULTS.retryMs;
  while (!opts.isStopped()) {
    try {
      await session.connect();
      return;
    } catch (err) {
      if (opts.isStopped()) return;
      if (opts.onError) opts.onError(err);
      await opts.wait(retryMs);
    }
  }
}

module.exports = { connectFirstSession, DEFAULTS };
