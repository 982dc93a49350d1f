'use strict';
/**
 * The probe relay's writer to one side (probes.js): the latest value per probe slot still to go
 * there, what that side was written, and the loop that writes them. Probes are not pulses: only
 * the newest value of a slot matters, so what arrives while a Write runs is written by the next
 * one, all pending slots in one request (split into Writes of at most maxItemsPerWrite), and the
 * Write rate stays bounded by the round trip, not by the number of twins.
 *
 * What could not be written (the side went away, the Write failed) is either kept for the side's
 * return unless a newer value came meanwhile (`keepUnwritten`: the cloud gets the PLC's latest
 * responses), or dropped and counted (the PLC: a request written late is no request).
 */

/**
 * @param {object} opts
 * @param {{connected: boolean, write: Function}} opts.side the target session (session.js)
 * @param {(slot: number) => string} opts.nodeIdOf the node id of a slot's variable on that side
 * @param {number} opts.maxItemsPerWrite
 * @param {object} opts.counters the relay's: unchanged, dropped, writeErrors and the two named in countAs
 * @param {{values: string, writes: string}} opts.countAs counters of slot values written and Writes
 * @param {boolean} opts.keepUnwritten keep what could not be written for the side's return
 * @param {() => boolean} opts.isStopped
 * @param {(err: Error) => void} opts.fail
 * @param {(slot: number, status: string) => Error} opts.refusedError the error of a refused slot
 */
function createProbeWriter(opts) {
  const { side, counters, countAs } = opts;
  const pending = new Map(); // slot -> value still to write
  const known = new Map(); // slot -> value the side was written
  let flushing = false;

  /** Everything queued: dropped and counted, never written late. */
  function drop() {
    counters.dropped += pending.size;
    pending.clear();
  }

  /** The next Write's slots: at most maxItemsPerWrite, without those the side already has. */
  function nextEntries() {
    const entries = [];
    for (const [slot, v] of pending) {
      if (entries.length >= opts.maxItemsPerWrite) break;
      pending.delete(slot);
      if (known.get(slot) === v) counters.unchanged += 1; else entries.push([slot, v]);
    }
    return entries;
  }

  function unwritten(entries) {
    if (!opts.keepUnwritten) { counters.dropped += entries.length; return; }
    for (const [slot, v] of entries) if (!pending.has(slot)) pending.set(slot, v);
  }

  function written(entries, results) {
    counters[countAs.writes] += 1;
    results.forEach((r, k) => {
      const [slot, v] = entries[k];
      if (r.good) {
        known.set(slot, v);
        counters[countAs.values] += 1;
      } else {
        counters.writeErrors += 1;
        opts.fail(opts.refusedError(slot, r.status));
      }
    });
  }

  /** Write what is pending; a second call while this runs returns at once. */
  async function flush() {
    if (flushing) return; // the running flush takes what arrived meanwhile
    flushing = true;
    try {
      while (side.connected && pending.size && !opts.isStopped()) {
        const entries = nextEntries();
        if (!entries.length) continue;
        const items = entries.map(([slot, v]) => ({ nodeId: opts.nodeIdOf(slot), dataType: 'UInt32', value: v }));
        let results;
        try {
          results = await side.write(items);
        } catch (err) {
          unwritten(entries);
          counters.writeErrors += entries.length;
          opts.fail(err);
          break;
        }
        written(entries, results);
      }
    } finally {
      flushing = false;
      if (!opts.keepUnwritten && !side.connected) drop();
    }
  }

  return {
    /** Queue a slot's value (the latest wins). */
    set(slot, value) { pending.set(slot, value); },
    drop,
    flush,
    /** The side may have other values now (a new session): forget what it was written. */
    forget() { known.clear(); },
    /** The side may have lost its values (a new session): it gets `values` (slot -> value) again, unless newer ones are queued. */
    resync(values) {
      known.clear();
      for (const [slot, v] of values) if (!pending.has(slot)) pending.set(slot, v);
      flush();
    },
    /** Slots queued now. */
    get queued() { return pending.size; },
  };
}

module.exports = { createProbeWriter };
