'use strict';
/**
 * Waits that a stop ends at once. The bridge and the probe relay wait between tries (a first
 * session, a baseline read) and hold a pulse for a scan; when they stop, every such wait must end
 * now, not when its timer would have fired, so that start() and the loops behind it return and
 * no timer outlives the stop.
 */

/**
 * @returns {{wait(ms: number): Promise<void>, cancel(): void, size: number}} `wait` resolves after
 *   `ms` (never rejects); `cancel` resolves every pending wait now and clears its timer
 */
function createWaits() {
  const pending = new Set(); // {timer, resolve}

  return {
    wait(ms) {
      return new Promise((resolve) => {
        const w = { resolve, timer: null };
        w.timer = setTimeout(() => { pending.delete(w); resolve(); }, ms);
        pending.add(w);
      });
    },
    cancel() {
      for (const w of pending) { clearTimeout(w.timer); w.resolve(); }
      pending.clear();
    },
    /** Waits not yet over. */
    get size() { return pending.size; },
  };
}

module.exports = { createWaits };
