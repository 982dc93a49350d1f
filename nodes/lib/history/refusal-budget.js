'use strict';
/**
 * How many refused commands of one sender the command log takes line by line: the first
 * `perWindow` of each `windowMs` (a minute), then only a count. A client that floods a broker or
 * a server with refused writes (a wrong password is refused before it can write; this is a client
 * that is in but asks for what it may not have, or too fast) so costs the log at most `perWindow`
 * command pairs a minute, and one `muted` entry when its window ends that says how many more it
 * sent, by code, between when and when.
 *
 * A sender is what the caller names (the command log: path, plant, user and source address). At
 * most `maxSenders` are tracked at once: past that, refusals of new senders are counted together
 * under one overflow sender (`'*'`), so memory stays bounded whoever floods.
 *
 * Plain module; lib/history/command-audit.js keeps one.
 */

const DEFAULTS = {
  perWindow: 20, // refused commands of one sender logged per window; more are counted
  windowMs: 60000,
  maxSenders: 10000, // senders tracked at once; new ones past it share the overflow sender
};
const OVERFLOW = '*';

/**
 * @param {object} [opts] DEFAULTS plus:
 * @param {() => number} [opts.now] the cloud's clock
 * @param {(summary: {sender: object, muted: number, codes: Object<string, number>, since: number, until: number}) => void} opts.onMuted
 *   a sender's window ended with refusals not logged (called from take() or sweep())
 * @returns {{take(key: string, sender: object, code: string): boolean, sweep(all?: boolean): void, counters: object, size(): number}}
 */
function createRefusalBudget(opts) {
  const o = { ...DEFAULTS, ...opts };
  const now = o.now || Date.now;
  const senders = new Map(); // key -> {sender, start, logged, muted, codes, last}
  const counters = { refusals: 0, muted: 0, summaries: 0 };

  function close(key, s) {
    senders.delete(key);
    if (s.muted === 0) return;
    counters.summaries += 1;
    o.onMuted({ sender: s.sender, muted: s.muted, codes: s.codes, since: s.firstMuted, until: s.last });
  }

  /**
   * End the windows that are over (all of them with `all`: a flush), each with its summary.
   * @param {boolean} [all]
   */
  function sweep(all = false) {
    const t = now();
    for (const [key, s] of senders) if (all || t - s.start >= o.windowMs) close(key, s);
  }

  return {
    counters,
    /** Senders tracked now. */
    size: () => senders.size,
    sweep,
    /**
     * One refused command of a sender.
     * @param {string} key the sender
     * @param {object} sender what its `muted` summary names it by
     * @param {string} code the refusal's code
     * @returns {boolean} true: log it line by line; false: counted in its window's summary
     */
    take(key, sender, code) {
      const t = now();
      counters.refusals += 1;
      let k = key;
      let s = senders.get(k);
      if (s && t - s.start >= o.windowMs) { close(k, s); s = undefined; }
      if (!s && senders.size >= o.maxSenders) {
        sweep();
        if (senders.size >= o.maxSenders) {
          k = OVERFLOW;
          s = senders.get(k);
          if (!s) {
            // Room for the overflow sender itself: the oldest window ends early, with its summary.
            const [oldKey, old] = senders.entries().next().value;
            close(oldKey, old);
          }
        }
      }
      if (!s) {
        s = { sender: k === OVERFLOW ? { overflow: true } : sender, start: t, logged: 0, muted: 0, codes: {}, firstMuted: t, last: t };
        senders.set(k, s);
      }
      s.last = t;
      if (k !== OVERFLOW && s.logged < o.perWindow) { s.logged += 1; return true; }
      if (s.muted === 0) s.firstMuted = t;
      s.muted += 1;
      s.codes[code] = (s.codes[code] || 0) + 1;
      counters.muted += 1;
      return false;
    },
  };
}

module.exports = { DEFAULTS, OVERFLOW, createRefusalBudget };
