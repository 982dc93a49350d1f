'use strict';
/**
 * The probe frames the edge has written and waits to see answered by the PLC. A probe frame
 * writes request slots; the PLC copies each slot's value to its response slot on its next scan,
 * and the frame is answered once: `probe-res` when every slot shows its value in a read, else one
 * error (timeout, the PLC connection lost, or the slot probed again by a newer frame first).
 *
 * The response slots are read in blocks (lib/s7/edge.js PROBE_BLOCK): a block is watched while a
 * probe in it waits. A block whose last probe was answered stays in the read for `lingerMs`:
 * with many twins, blocks empty and refill all the time, and every change of nodes7's item list
 * re-parses and re-prepares the whole read (4.7 % of the edge's JS time at 1,000 twins). An idle
 * block costs 256 bytes more per read until it goes.
 */

const LINGER_MS = 2000; // an emptied probe response block stays in the read this long

/**
 * @param {object} p
 * @param {{watch(addr: string): void, unwatch(addr: string): void}} p.reads the connection's read list
 * @param {number} p.timeoutMs a frame whose slots do not all answer within this is failed
 * @param {number} [p.lingerMs] see LINGER_MS
 * @param {{probeRes: number, probeTimeouts: number, superseded: number}} p.counters incremented here
 * @param {(f: {about: object, client: *, got: object}) => void} p.onAnswer a frame fully answered
 * @param {(f: {about: object, client: *}, code: string, message: string) => void} p.onFail a frame failed
 * @param {() => number} [p.now] Date.now() by default
 */
function createProbeTracker(p) {
  const lingerMs = p.lingerMs ?? LINGER_MS;
  const now = p.now || Date.now;
  const frames = new Map(); // "src seq" of a probe frame written -> {about, client, left: Map(slot -> item), got, deadline}
  const frameOfSlot = new Map(); // probe slot -> the key of the frame waiting on it
  const blocks = new Map(); // response block read item -> pending probes in it
  const lingering = new Map(); // block -> timer that unwatches it

  function watchBlock(addr) {
    blocks.set(addr, (blocks.get(addr) || 0) + 1);
    if (blocks.get(addr) !== 1) return;
    if (lingering.has(addr)) { clearTimeout(lingering.get(addr)); lingering.delete(addr); return; }
    p.reads.watch(addr);
  }
  function unwatchBlock(addr) {
    const n = (blocks.get(addr) || 1) - 1;
    if (n > 0) { blocks.set(addr, n); return; }
    blocks.delete(addr);
    if (lingering.has(addr)) return;
    lingering.set(addr, setTimeout(() => { lingering.delete(addr); p.reads.unwatch(addr); }, lingerMs));
  }
  /** Forget a frame (its slots no longer watched) and answer it with an error. */
  function fail(key, code, message) {
    const f = frames.get(key);
    frames.delete(key);
    for (const [slot, item] of f.left) {
      frameOfSlot.delete(slot);
      unwatchBlock(item.resAddr);
    }
    p.onFail(f, code, message);
  }

  return {
    /**
     * A probe frame was written: wait for its slots. A slot still waiting for an older frame
     * fails that frame (E_PROBE_SUPERSEDED): a new probe on a slot replaces the one waiting there.
     * @param {{src: string, seq: number, cid?: *, dl?: *}} about the frame, for its answer
     * @param {*} client who sent it (msg._client)
     * @param {Array<{slot: number, value: number, resAddr: string, resIndex: number}>} items lib/s7/edge.js probeItems
     */
    track(about, client, items) {
      const key = `${about.src} ${about.seq}`;
      const f = { about, client, left: new Map(), got: {}, deadline: now() + p.timeoutMs };
      for (const i of items) {
        const prev = frameOfSlot.get(i.slot);
        if (prev !== undefined && prev !== key && frames.has(prev)) {
          p.counters.superseded += 1;
          fail(prev, 'E_PROBE_SUPERSEDED', `probe slot ${i.slot} was probed again before it answered`);
        }
        f.left.set(i.slot, i);
        frameOfSlot.set(i.slot, key);
        watchBlock(i.resAddr);
      }
      frames.set(key, f);
    },

    /** A read came back (`extra`: the watched blocks' values): answer what it shows, expire the rest. */
    seen(extra) {
      if (!frames.size) return;
      const t = now();
      for (const [key, f] of frames) {
        for (const [slot, item] of f.left) {
          const block = extra[item.resAddr];
          if (!Array.isArray(block) || block[item.resIndex] !== item.value) continue;
          f.got[slot] = item.value;
          f.left.delete(slot);
          frameOfSlot.delete(slot);
          unwatchBlock(item.resAddr);
        }
        if (f.left.size === 0) {
          frames.delete(key);
          p.counters.probeRes += 1;
          p.onAnswer(f);
        } else if (t >= f.deadline) {
          p.counters.probeTimeouts += 1;
          const slots = [...f.left].map(([slot, i]) => `${slot}=${i.value}`).join(', ');
          fail(key, 'E_PROBE_TIMEOUT', `probe slot(s) ${slots} did not answer within ${p.timeoutMs} ms`);
        }
      }
    },

    /** The PLC connection is gone (`err`): every waiting frame fails with E_PLC_DOWN. */
    lost(err) {
      for (const key of [...frames.keys()]) {
        fail(key, 'E_PLC_DOWN', `probe slot(s) ${[...frames.get(key).left.keys()].join(', ')} lost with the PLC connection: ${err.message}`);
      }
    },

    /** Stop: unwatch every block now, forget every frame (unanswered: the node is going away). */
    close() {
      for (const addr of blocks.keys()) p.reads.unwatch(addr);
      for (const [addr, timer] of lingering) { clearTimeout(timer); p.reads.unwatch(addr); }
      lingering.clear();
      blocks.clear();
      frames.clear();
      frameOfSlot.clear();
    },

    /** Slots waiting for their answer. */
    get pendingSlots() { return frameOfSlot.size; },
    /** Response blocks in the read (waited on or lingering). */
    get blocksRead() { return blocks.size + lingering.size; },
  };
}

module.exports = { createProbeTracker, LINGER_MS };
