'use strict';
/**
 * Which notifications from the cloud OPC UA server are fresh commands for the PLC: a bridge that
 * starts never writes what it did not receive, since a stale value written into the PLC would undo
 * what another path set there meanwhile. Used by the edge's tag bridge (bridge.js, per command
 * tag) and probe relay (probes.js, per probe slot), each through baseline.js. Pure logic, no I/O:
 * the caller reads the values and feeds in notifications.
 *
 * What a subscription delivers that is not a command:
 * - the initial value of every monitored item, after it is created and after node-opcua's
 *   session repair recreates or transfers the subscription: the cloud's current image, possibly
 *   set long ago, or 0 after a cloud restart;
 * - notifications the server queued while the edge was away, republished after a reconnect:
 *   commands sent while the PLC could not get them, late now;
 * - a sample taken just before the baseline read but published just after it.
 *
 * So, per key (a tag's short name, a probe slot):
 * - hold(): from a lost connection (or the start) until the next baseline, notifications are
 *   kept aside, not judged;
 * - rebase(entries): the values read right after each (re)created session are the baseline:
 *   what was seen, without writing it anywhere. Of the notifications kept aside, those newer
 *   than the read (server clock) were written after it was served: they are judged like any
 *   later one and returned, so a twin's command in the moment the edge (re)connects is not
 *   lost; the older ones (initial values, republished ones) only update what was seen;
 * - accept(key, value, clock): afterwards a notification is a command when it is newer than the
 *   baseline read (server clock, within staleWindowMs of the baseline: later the clock is no
 *   longer consulted, so a value written with a far-future server timestamp cannot block a key
 *   for long) and its value differs from the last one seen. A pulse inside one publish
 *   (sd 1 → 0 → 1, fed in time order) is two changes and passes as two.
 */

const DEFAULTS = {
  // How long after a baseline the server clock is checked. Samples taken before the baseline
  // read arrive with the next publish or two (10 ms each by default; a few seconds at most with
  // slow publishing intervals), so 5 s covers them with room to spare.
  staleWindowMs: 5000,
  maxKept: 4096, // notifications kept aside while holding (the oldest go first: they are the stale ones)
};

/**
 * @param {{staleWindowMs?: number, maxKept?: number}} [opts]
 * @returns {{hold(): void, rebase(entries: Array<{key, value, clock}>, now?: number): Array<*>,
 *   accept(key, value, clock: bigint|null, item?: *, now?: number): boolean, seen(key): *, holding: boolean, counters: object}}
 */
function createFreshFilter(opts = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  const seen = new Map(); // key -> {value, clock}: the cloud's value as last seen
  const baseClock = new Map(); // key -> server clock of the baseline read (null: unknown)
  let holding = true;
  let rebasedAt = -Infinity;
  let kept = []; // {key, value, clock, item} while holding, in arrival order
  const counters = {
    held: 0, // notifications while there was no baseline (start, lost connection, new session) not newer than it
    stale: 0, // older than the baseline read (queued before it, or republished)
    unchanged: 0, // the value already seen
    fresh: 0, // commands
    baselines: 0,
  };

  /** Keep the newer of what was seen and (value, clock); a value without a clock replaces. */
  function see(key, value, clock) {
    const s = seen.get(key);
    if (!s || s.clock === null || clock === null || clock >= s.clock) seen.set(key, { value, clock });
  }

  /** The rule once there is a baseline: newer than the read (while in the window), and another value. */
  function judge(key, value, c, now) {
    const base = now - rebasedAt < o.staleWindowMs ? baseClock.get(key) : undefined;
    if (base !== undefined && base !== null && c !== null && c <= base) {
      counters.stale += 1;
      return false;
    }
    const s = seen.get(key);
    if (s && s.value === value) {
      counters.unchanged += 1;
      if (c !== null && (s.clock === null || c > s.clock)) s.clock = c;
      return false;
    }
    seen.set(key, { value, clock: c });
    baseClock.delete(key);
    counters.fresh += 1;
    return true;
  }

  return {
    counters,
    get holding() { return holding; },
    /** The connection was lost or a new session came: nothing is a command until the next rebase. */
    hold() {
      holding = true;
    },
    /**
     * The values read from the cloud right after a (re)created session become the baseline.
     * @param {Array<{key: *, value: *, clock: bigint|null}>} entries good values only
     * @param {number} [now] ms, a monotonic clock (performance.now())
     * @returns {Array<*>} the `item`s of notifications kept aside while holding that are newer
     *   than the read and are commands, in arrival order: the caller writes them now
     */
    rebase(entries, now = performance.now()) {
      const readClock = new Map();
      for (const { key, value, clock } of entries) {
        see(key, value, clock ?? null);
        baseClock.set(key, clock ?? null);
        readClock.set(key, clock ?? null);
      }
      holding = false;
      rebasedAt = now;
      counters.baselines += 1;
      const later = [];
      const aside = kept;
      kept = [];
      for (const k of aside) {
        const base = readClock.get(k.key);
        if (base !== undefined && base !== null && k.clock !== null && k.clock > base) {
          if (judge(k.key, k.value, k.clock, now)) later.push(k.item);
        } else {
          counters.held += 1;
          see(k.key, k.value, k.clock);
        }
      }
      return later;
    },
    /**
     * Is this notification a fresh command? Feed a publish's notifications in time order.
     * @param {*} key
     * @param {*} value
     * @param {bigint|null} clock server clock of the notification (null: unknown)
     * @param {*} [item] what rebase() hands back if this one, kept aside now, turns out a command
     * @param {number} [now] ms, the same clock as rebase's
     * @returns {boolean} true: a command, write it now; false: not one, or kept aside (holding)
     */
    accept(key, value, clock, item, now = performance.now()) {
      const c = clock ?? null;
      if (holding) {
        if (kept.length >= o.maxKept) { const old = kept.shift(); counters.held += 1; see(old.key, old.value, old.clock); }
        kept.push({ key, value, clock: c, item });
        return false;
      }
      return judge(key, value, c, now);
    },
    /** The cloud's value of a key as last seen (undefined: never). */
    seen(key) {
      const s = seen.get(key);
      return s ? s.value : undefined;
    },
  };
}

module.exports = { createFreshFilter, DEFAULTS };
