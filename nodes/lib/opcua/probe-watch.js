'use strict';
/**
 * Which PLC probe responses the relay monitors (probes.js). On the PLC a response item is sampled
 * every samplingIntervalMs (its variables have a MinimumSamplingInterval of one scan, so they
 * cannot be exception-based): that costs the PLC a read per item per 10 ms (measured: +16 % of a
 * core for 128 items, +64 % for 1,024). So a slot's response is monitored only from the slot's
 * first non-zero request on, and a slot idle for idleMs stops being monitored (its item is
 * deleted, and added again with the slot's next request): the PLC pays for the slots in use.
 */
const ot = require('./tags');

/**
 * @param {object} opts
 * @param {{connected: boolean, addMonitor: Function, removeMonitor: Function}} opts.plc the relay's PLC session
 * @param {number} opts.idleMs a slot without a request for this long is no longer watched (0 = keep them)
 * @param {{monitorErrors: number, unwatched: number}} opts.counters the relay's
 * @param {() => boolean} opts.isStopped
 * @param {(err: Error) => void} opts.fail
 * @param {() => number} [opts.now] ms (default Date.now)
 * @param {object} [opts.table] the plant's I/O table: its probe node ids (default: the demo plant's)
 */
function createProbeWatch({ plc, idleMs, counters, isStopped, fail, now = Date.now, table }) {
  const watched = new Set(); // slots whose PLC response is (to be) monitored
  const lastUsed = new Map(); // slot -> time (ms) of its latest non-zero request
  let sweepTimer = null;
  let sweeping = false;

  function addPlcItems(slots) {
    if (!plc.connected || isStopped()) return; // the next session adds them (resume)
    plc.addMonitor(slots.map((i) => ot.plcProbeNodeId('res', i, table))).catch((err) => {
      counters.monitorErrors += 1;
      fail(err);
    });
  }

  /** Monitor the PLC's Res of these slots (once each; again on the next session if it failed now). */
  function watch(slots) {
    const fresh = slots.filter((i) => !watched.has(i));
    if (!fresh.length) return;
    for (const i of fresh) watched.add(i);
    addPlcItems(fresh);
  }

  /** Delete the PLC Res items of slots idle for idleMs; a slot asked for meanwhile is watched again. */
  async function sweep() {
    if (sweeping || isStopped() || !plc.connected) return;
    const started = now();
    const idle = [...watched].filter((i) => started - (lastUsed.get(i) || 0) >= idleMs);
    if (!idle.length) return;
    sweeping = true;
    try {
      const removed = await plc.removeMonitor(idle.map((i) => ot.plcProbeNodeId('res', i, table)));
      const slots = removed.map((id) => ot.parseProbeNodeId(id).slot);
      for (const i of slots) watched.delete(i);
      counters.unwatched += slots.length;
      const again = slots.filter((i) => (lastUsed.get(i) || 0) >= started);
      if (again.length) watch(again);
    } catch (err) {
      fail(err);
    } finally {
      sweeping = false;
    }
  }

  return {
    /** Slots that just got a non-zero request: watched, and not idle. */
    used(slots) {
      for (const i of slots) lastUsed.set(i, now());
      watch(slots);
    },
    /** A (re)created PLC session: its response items come back (items it already has are skipped). */
    resume() { if (watched.size) addPlcItems([...watched]); },
    sweep,
    /** Sweep every idleMs / 4 (at least every 100 ms) while the relay runs. */
    start() {
      if (idleMs > 0 && !sweepTimer) {
        sweepTimer = setInterval(sweep, Math.max(100, idleMs / 4));
        sweepTimer.unref();
      }
    },
    stop() {
      clearInterval(sweepTimer);
      sweepTimer = null;
    },
    /** Slots watched now. */
    get size() { return watched.size; },
  };
}

module.exports = { createProbeWatch };
