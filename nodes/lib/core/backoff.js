'use strict';
/**
 * Exponential back-off with jitter for reconnects (the link client and the PLC connection).
 *
 * Why not a fixed retry: core's websocket node retries every 3 s, which is both too slow after a
 * short blip and too aggressive against a server that is down. We start small, double, cap, and
 * randomise each delay ("full jitter" between half and the whole step) so that many edges that
 * lost the same cloud do not all come back in the same millisecond.
 */

const DEFAULTS = {
  initialMs: 200, // first retry after 0.1..0.2 s
  factor: 2, // doubling
  maxMs: 5000, // cap: 5 s
  jitter: 0.5, // fraction of each step that is randomised (0 = none, 1 = 0..step)
  stableMs: 5000, // a connection that lived this long resets the sequence
};

/**
 * @param {object} [opts] see DEFAULTS
 * @param {() => number} [opts.random] random source in [0, 1) (tests pass a fixed one)
 * @returns {{next(): number, reset(): void, connected(): void, disconnected(): void, attempt: number}}
 */
function createBackoff(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  if (!(o.initialMs > 0) || !(o.maxMs >= o.initialMs) || !(o.factor >= 1) || !(o.jitter >= 0 && o.jitter <= 1)) {
    const err = new Error('backoff needs initialMs > 0, maxMs >= initialMs, factor >= 1, 0 <= jitter <= 1');
    err.code = 'E_CONFIG';
    throw err;
  }
  const random = o.random || Math.random;
  const now = o.now || Date.now;
  let attempt = 0;
  let upSince = 0;
  return {
    get attempt() { return attempt; },
    /** Delay (ms) before the next attempt; advances the sequence. */
    next() {
      const step = Math.min(o.maxMs, o.initialMs * o.factor ** attempt);
      attempt += 1;
      return Math.round(step * (1 - o.jitter * random()));
    },
    reset() { attempt = 0; },
    /** Mark the connection as up (remembers when, to judge stability). */
    connected() { upSince = now(); },
    /** Mark it as down: a connection that stayed up for stableMs resets the sequence. */
    disconnected() {
      if (upSince && now() - upSince >= o.stableMs) attempt = 0;
      upSince = 0;
    },
  };
}

module.exports = { DEFAULTS, createBackoff };
