'use strict';
/**
 * The probe frames the edge has written and waits to see answered by the PLC. A probe frame
 * writes request slots; the PLC copies each slot's value to its response slot on its next scan,
 * and the frame is answered once: `probe-res` when every slot shows its value in a read, else one
 * error (timeout, the PLC connection lost, or the slot probed again by a newer frame first).
 *
 * Only the response slots with a probe pending are read: right before each read the tracker names
 * the ranges of DB3 (the table's response DB) that cover them (coverRanges), at most `maxRanges`
 * items, each within one PDU, neighbours a few slots apart read as one. With 1,000 twins nearly
 * every read is one request (about 9 ranges at 800 reads a second), where reading the response
 * blocks whole took 4 KB in five (docs/bridge.md). nodes7 is handed a new item list nearly
 * every read; lib/s7/nodes7-client.js makes that cheap.
 */
const { MAX_ITEMS } = require('./job');
const { sparseObject } = require('../core/sparse');

const RANGE_GAP = 3; // pending slots this few apart are read as one range (an item costs 16 bytes besides its data)
const DEFAULT_PDU = 240;

/**
 * The ranges that read every slot given: neighbours at most RANGE_GAP apart join, then the two
 * ranges closest together join until there are at most maxRanges; no range is longer than maxLen.
 * @param {number[]} slots ascending, no repeats
 * @param {number} maxRanges
 * @param {number} maxLen slots per range at most
 * @returns {Array<{start: number, len: number}>}
 */
function coverRanges(slots, maxRanges, maxLen) {
  const out = [];
  for (const s of slots) {
    const r = out[out.length - 1];
    if (r && s - (r.start + r.len) < RANGE_GAP && s - r.start < maxLen) r.len = s - r.start + 1;
    else out.push({ start: s, len: 1 });
  }
  while (out.length > maxRanges) {
    let best = -1;
    for (let i = 0; i + 1 < out.length; i++) {
      const gap = out[i + 1].start - (out[i].start + out[i].len);
      const len = out[i + 1].start + out[i + 1].len - out[i].start;
      if (len <= maxLen && (best < 0 || gap < out[best + 1].start - (out[best].start + out[best].len))) best = i;
    }
    if (best < 0) break; // every join would be too long: more items, more requests
    out[best].len = out[best + 1].start + out[best + 1].len - out[best].start;
    out.splice(best + 1, 1);
  }
  return out;
}

/**
 * @param {object} p
 * @param {{follow(fn: () => string[]): () => void, maxPdu?: number|null}} p.reads the connection
 *   (lib/s7/connection.js): asks the tracker for its ranges before every read
 * @param {number} p.responseDb the data block of the response slots (the table's probeResponseDb)
 * @param {number} [p.maxRanges] response items per read at most (default: what one request has
 *   room for beside one I/O range)
 * @param {number} p.timeoutMs a frame whose slots do not all answer within this is failed
 * @param {{probeRes: number, probeTimeouts: number, superseded: number}} p.counters incremented here
 * @param {(f: {about: object, client: *, got: object}) => void} p.onAnswer a frame fully answered
 * @param {(f: {about: object, client: *}, code: string, message: string) => void} p.onFail a frame failed
 * @param {() => number} [p.now] Date.now() by default
 */
function createProbeTracker(p) {
  const now = p.now || Date.now;
  const maxRanges = p.maxRanges || MAX_ITEMS - 1;
  const frames = new Map(); // "src seq" of a probe frame written -> {about, client, left: Map(slot -> value), got, deadline}
  const frameOfSlot = new Map(); // probe slot -> the key of the frame waiting on it
  // The ranges the read under way asks for: address and first slot, in slot order (a pending
  // slot's value is found among at most maxRanges of them, without a table of every slot read).
  const readingAddrs = [];
  const readingStarts = [];
  let rangesRead = 0;

  /** The response ranges for the next read (the read list asks right before it). */
  function ranges() {
    readingAddrs.length = 0;
    readingStarts.length = 0;
    if (!frameOfSlot.size) return [];
    const maxLen = Math.floor(((p.reads.maxPdu || DEFAULT_PDU) - 18) / 4);
    const slots = [...frameOfSlot.keys()].sort((a, b) => a - b);
    for (const r of coverRanges(slots, maxRanges, maxLen)) {
      readingAddrs.push(`DB${p.responseDb},DWORD${4 * r.start}.${r.len}`);
      readingStarts.push(r.start);
    }
    rangesRead += readingAddrs.length;
    return readingAddrs.slice(); // the caller's to keep
  }
  /** What the read shows in `slot` (undefined: the read did not ask for it). */
  function shown(extra, slot) {
    let i = readingStarts.length - 1;
    while (i >= 0 && readingStarts[i] > slot) i -= 1; // the last range starting at or before the slot
    if (i < 0) return undefined;
    const v = extra[readingAddrs[i]];
    if (Array.isArray(v)) return v[slot - readingStarts[i]];
    return slot === readingStarts[i] ? v : undefined;
  }
  const unfollow = p.reads.follow(ranges);

  /** Forget a frame (its slots no longer read) and answer it with an error. */
  function fail(key, code, message) {
    const f = frames.get(key);
    frames.delete(key);
    for (const slot of f.left.keys()) frameOfSlot.delete(slot);
    p.onFail(f, code, message);
  }

  return {
    /**
     * A probe frame was written: wait for its slots. A slot still waiting for an older frame
     * fails that frame (E_PROBE_SUPERSEDED): a new probe on a slot replaces the one waiting there.
     * @param {{src: string, seq: number, cid?: *, dl?: *}} about the frame, for its answer
     * @param {*} client who sent it (msg._client)
     * @param {Array<{slot: number, value: number}>} items lib/s7/edge.js probeItems
     */
    track(about, client, items) {
      const key = `${about.src} ${about.seq}`;
      const f = { about, client, left: new Map(), got: sparseObject(), deadline: now() + p.timeoutMs };
      for (const i of items) {
        const prev = frameOfSlot.get(i.slot);
        if (prev !== undefined && prev !== key && frames.has(prev)) {
          p.counters.superseded += 1;
          fail(prev, 'E_PROBE_SUPERSEDED', `probe slot ${i.slot} was probed again before it answered`);
        }
        f.left.set(i.slot, i.value);
        frameOfSlot.set(i.slot, key);
      }
      frames.set(key, f);
    },

    /** A read came back (`extra`: the values of the ranges it asked for): answer what it shows, expire the rest. */
    seen(extra) {
      if (!frames.size) return;
      const t = now();
      for (const [key, f] of frames) {
        for (const [slot, value] of f.left) {
          if (shown(extra, slot) !== value) continue;
          f.got[slot] = value;
          f.left.delete(slot);
          frameOfSlot.delete(slot);
        }
        if (f.left.size === 0) {
          frames.delete(key);
          p.counters.probeRes += 1;
          p.onAnswer(f);
        } else if (t >= f.deadline) {
          p.counters.probeTimeouts += 1;
          const slots = [...f.left].map(([slot, v]) => `${slot}=${v}`).join(', ');
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

    /** Stop: no more ranges in the reads, forget every frame (unanswered: the node is going away). */
    close() {
      unfollow();
      frames.clear();
      frameOfSlot.clear();
      readingAddrs.length = 0;
      readingStarts.length = 0;
    },

    /** Slots waiting for their answer. */
    get pendingSlots() { return frameOfSlot.size; },
    /** Response ranges read so far, over every read (divided by the reads: ranges per read). */
    get rangesRead() { return rangesRead; },
  };
}

module.exports = { createProbeTracker, coverRanges, RANGE_GAP };
