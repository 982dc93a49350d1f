'use strict';
/**
 * Per-peer limits on a link endpoint: a message rate and an error budget, so that one peer (a
 * twin sending thousands of frames a second, or a stream of bad ones) cannot slow the others or
 * grow the cloud's memory. Both are leaky buckets: a steady peer is never limited, a short burst
 * is absorbed, a sustained excess trips the limit and the endpoint tells the peer why and
 * disconnects it.
 *
 * Plain module; nodes/lib/link/endpoint.js keeps one per peer.
 */

const DEFAULTS = {
  ratePerS: 200, // frames per second a peer may send on average (0 = no rate limit)
  burst: 400, // frames a peer may send at once above that rate
  errors: 50, // refused frames a peer may send within `errorWindowMs` (0 = no budget)
  errorWindowMs: 10000,
};

/**
 * @param {object} [opts] see DEFAULTS
 * @param {() => number} [opts.now] ms clock (tests pass their own)
 * @returns {{frame(): null|{code: string, message: string}, error(): null|{code: string, message: string}}}
 */
function createPeerLimits(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || Date.now;
  let frames = 0; // bucket level: frames above the allowed rate
  let framesAt = now();
  let errors = 0;
  let errorsAt = framesAt;

  return {
    /** One frame arrived: null while within the rate, else why the peer is over it. */
    frame() {
      if (!(o.ratePerS > 0)) return null;
      const t = now();
      frames = Math.max(0, frames - ((t - framesAt) * o.ratePerS) / 1000) + 1;
      framesAt = t;
      if (frames <= o.burst) return null;
      return { code: 'E_RATE_LIMIT', message: `more than ${o.ratePerS} frames a second (burst ${o.burst}): disconnected` };
    },
    /** One frame was refused: null while within the budget, else why the peer is over it. */
    error() {
      if (!(o.errors > 0)) return null;
      const t = now();
      errors = Math.max(0, errors - ((t - errorsAt) * o.errors) / o.errorWindowMs) + 1;
      errorsAt = t;
      if (errors <= o.errors) return null;
      return { code: 'E_ERROR_BUDGET', message: `more than ${o.errors} refused frames within ${o.errorWindowMs / 1000} s: disconnected` };
    },
  };
}

module.exports = { createPeerLimits, DEFAULTS };
