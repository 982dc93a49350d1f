'use strict';
/**
 * What every read of the PLC asks for: the byte ranges of the I/O table's areas (one item per
 * range: the demo plant's DB1 is one), plus the items watched for a while (the probe response
 * blocks with a pending probe). The list outlives reconnects; the
 * session hands it to nodes7 only between requests (changing nodes7's item list while a read is
 * in flight made that read come back with bad quality, and the connection torn down).
 */

/**
 * @param {string|string[]} ioAddrs the I/O ranges' nodes7 addresses (`DB1,BYTE0.16`)
 * @returns {{watch(addr: string): void, unwatch(addr: string): void, list(): string[],
 *   readonly dirty: boolean, touch(): void, clean(): void, extra(values: object): object}}
 */
function createReadList(ioAddrs) {
  const io = [].concat(ioAddrs);
  const watched = new Set();
  let dirty = false; // changed since nodes7's item list was last set

  return {
    /** Read `addr` (nodes7 syntax) with every read until unwatch(). */
    watch(addr) {
      if (watched.has(addr)) return;
      watched.add(addr);
      dirty = true;
    },
    unwatch(addr) {
      if (!watched.delete(addr)) return;
      dirty = true;
    },
    /** Every address a read asks for, the I/O ranges first. */
    list() { return [...io, ...watched]; },
    /** Whether the list changed since clean(). */
    get dirty() { return dirty; },
    /** nodes7 was given other items (a one-off read): the next read sets list() again. */
    touch() { dirty = true; },
    /** nodes7 now reads list(). */
    clean() { dirty = false; },
    /** The watched items' values out of a read's values. */
    extra(values) {
      const out = {};
      for (const a of watched) if (a in values) out[a] = values[a];
      return out;
    },
  };
}

module.exports = { createReadList };
