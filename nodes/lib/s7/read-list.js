'use strict';
/**
 * What every read of the PLC asks for: the byte ranges of the I/O table's areas (one item per
 * range: the demo plant's DB1 is one), and the items followers name afresh for each read (the
 * probe response ranges with a probe pending, lib/s7/probes.js). The list outlives reconnects;
 * the session hands it to nodes7 only between requests (changing nodes7's item list while a read
 * is in flight made that read come back with bad quality, and the connection torn down), and only
 * when it changed (take()).
 */

/**
 * @param {string|string[]} ioAddrs the I/O ranges' nodes7 addresses (`DB1,BYTE0.16`)
 * @returns {{follow(fn: () => string[]): () => void, list(): string[], take(): string[]|null,
 *   touch(): void, extra(values: object): object}}
 */
function createReadList(ioAddrs) {
  const io = [].concat(ioAddrs);
  const followers = new Set();
  let last = null; // the list nodes7 was last given (take); null: give it the list at the next read

  return {
    /**
     * Ask fn() for more addresses (nodes7 syntax) right before every read; its answer may change
     * with each.
     * @returns {() => void} stops following
     */
    follow(fn) {
      followers.add(fn);
      return () => followers.delete(fn);
    },
    /** Every address a read asks for now, the I/O ranges first, each once. */
    list() {
      const out = [...io];
      for (const fn of followers) for (const a of fn()) if (!out.includes(a)) out.push(a);
      return out;
    },
    /**
     * The list for the read about to start, if it differs from the one nodes7 has (null if not):
     * nodes7 reads it from now on.
     */
    take() {
      const now = this.list();
      if (last && now.length === last.length && now.every((a, i) => a === last[i])) return null;
      last = now;
      return now;
    },
    /** nodes7 was given other items (a one-off read, a new connection): the next take() hands the list over. */
    touch() { last = null; },
    /** The values of the items besides the I/O ranges, out of a read's values. */
    extra(values) {
      const out = {};
      if (last) {
        for (let i = io.length; i < last.length; i++) {
          const v = values[last[i]];
          if (v !== undefined) out[last[i]] = v;
        }
      }
      return out;
    },
  };
}

module.exports = { createReadList };
