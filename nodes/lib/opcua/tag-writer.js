'use strict';
/**
 * The tag bridge's writer to one side (bridge.js): what still has to go there, as frames in time
 * order, what that side has (last written or seen), and the loop that writes the frames one Write
 * at a time (what arrives while a Write runs is written by the loop that runs).
 *
 * - One frame = one Write. A new frame starts only where a tag changes again (sd 1 → 0 → 1 inside
 *   one publish: a pulse), so values that changed together go together and a pulse is replayed,
 *   not merged away.
 * - A frame that sets a tag the previous Write set a moment ago waits until that Write is
 *   `pulseHoldMs` old, so the target (a PLC scan) sees each value.
 * - A value equal to what the side has is dropped (unchanged).
 * - What could not be written (the side went away, the Write failed) is either kept for the
 *   side's return (`keepUnwritten`: the cloud mirrors the PLC's latest image) or dropped and
 *   counted (the PLC: a command written late could undo what happened meanwhile).
 */
const ot = require('./tags');
const { demoTable } = require('../core/io-table');

/**
 * Notifications of known tags with a good status, in time order (a publish lists its changes item
 * by item); those without a timestamp keep their place (Array.prototype.sort is stable).
 * @param {Array<[object, object]>} entries [tag, notification]
 * @returns {Array<[object, object]>}
 */
function inTimeOrder(entries) {
  const ordered = entries.filter(([tag, n]) => tag && n.status && n.status.isGood());
  ordered.sort((a, b) => (a[1].ts ?? 0) - (b[1].ts ?? 0));
  return ordered;
}

/**
 * Add key = value to the last frame, or to a new one if the key has another value there.
 * @param {object[]} frames changed in place
 * @returns {boolean} true when this started a new frame after an earlier one (a pulse)
 */
function addToFrames(frames, key, value) {
  let frame = frames[frames.length - 1];
  let pulse = false;
  if (!frame || (key in frame && frame[key] !== value)) {
    pulse = !!frame;
    frame = {};
    frames.push(frame);
  }
  frame[key] = value;
  return pulse;
}

/**
 * @param {object} opts
 * @param {string} opts.name the side, in errors ('plc' | 'cloud')
 * @param {{connected: boolean, write: Function}} opts.side the target session (session.js)
 * @param {(key: string) => string} opts.nodeIdOf the node id of a tag on that side
 * @param {object} opts.counters the bridge's: unchanged, pulses, merged, dropped, writeErrors and
 *   the two named in countAs
 * @param {{values: string, writes: string}} opts.countAs counters of values written and Writes
 * @param {boolean} opts.keepUnwritten keep what could not be written for the side's return
 * @param {number} opts.pulseHoldMs
 * @param {number} opts.maxFrames frames queued before they are merged (memory stays bounded)
 * @param {(ms: number) => Promise<void>} opts.wait a wait the bridge's stop ends (waits.js)
 * @param {() => boolean} opts.isStopped
 * @param {(err: Error) => void} opts.fail
 * @param {(values: object) => void} opts.onForward values the side accepted, by short name
 * @param {object} [opts.table] the plant's I/O table (the tags' types; default: the demo plant's)
 */
function createTagWriter(opts) {
  const table = opts.table || demoTable();
  const { side, counters, countAs } = opts;
  let frames = [];
  let known = {}; // short -> value the side has
  let flushing = false;
  let lastWrite = null; // {at, keys} of the last Write

  /** Merge every queued frame into one (latest value per tag): the image, not the history. */
  function collapse() {
    if (frames.length > 1) counters.merged += frames.length - 1;
    frames = [Object.assign({}, ...frames)];
  }

  /** Everything queued: dropped and counted, never written late. */
  function drop() {
    for (const frame of frames) counters.dropped += Object.keys(frame).length;
    frames = [];
  }

  function unwritten(batch) {
    if (opts.keepUnwritten) { frames.unshift(batch); collapse(); } else counters.dropped += Object.keys(batch).length;
  }

  /** A frame's values the side does not have yet. */
  function changes(frame) {
    const batch = {};
    for (const [k, v] of Object.entries(frame)) {
      if (known[k] === v) counters.unchanged += 1; else batch[k] = v;
    }
    return batch;
  }

  /**
   * The previous Write set one of these tags to another value a moment ago (a pulse): leave that
   * value long enough for the target to see it.
   * @returns {Promise<boolean>} false when the side went away or the bridge stopped meanwhile
   */
  async function holdPulse(keys) {
    const last = lastWrite;
    if (!last || !keys.some((k) => last.keys.has(k))) return true;
    const wait = last.at + opts.pulseHoldMs - performance.now();
    if (wait > 0) await opts.wait(wait);
    return !opts.isStopped() && side.connected;
  }

  function written(batch, keys, results) {
    lastWrite = { at: performance.now(), keys: new Set(keys) };
    counters[countAs.writes] += 1;
    const accepted = {};
    results.forEach((r, i) => {
      if (r.good) { known[keys[i]] = batch[keys[i]]; accepted[keys[i]] = batch[keys[i]]; } else {
        counters.writeErrors += 1;
        const err = new Error(`${opts.name}: write of ${keys[i]} refused: ${r.status}`);
        err.code = 'E_WRITE_REFUSED';
        opts.fail(err);
      }
    });
    counters[countAs.values] += Object.keys(accepted).length;
    if (Object.keys(accepted).length) opts.onForward(accepted);
  }

  /** Write what is queued, frame by frame; a second call while this runs returns at once. */
  async function flush() {
    if (flushing) return; // the running flush picks the rest up
    flushing = true;
    try {
      while (side.connected && frames.length && !opts.isStopped()) {
        const batch = changes(frames.shift());
        const keys = Object.keys(batch);
        if (!keys.length) continue;
        if (!(await holdPulse(keys))) {
          unwritten(batch);
          if (!opts.keepUnwritten) drop();
          break;
        }
        const items = keys.map((k) => {
          const v = ot.toVariant(table.get(k), batch[k]);
          return { nodeId: opts.nodeIdOf(k), dataType: v.dataType, value: v.value };
        });
        let results;
        try {
          results = await side.write(items);
        } catch (err) {
          unwritten(batch);
          counters.writeErrors += keys.length;
          opts.fail(err);
          break;
        }
        written(batch, keys, results);
      }
    } finally {
      flushing = false;
      if (!opts.keepUnwritten && !side.connected) drop();
    }
  }

  return {
    /** Queue key = value (a new frame where it changes again), counting pulses. */
    push(key, value) { if (addToFrames(frames, key, value)) counters.pulses += 1; },
    /** After a batch was pushed: merge if too far behind, and write. */
    settle() {
      if (frames.length > opts.maxFrames) collapse();
      flush();
    },
    collapse,
    drop,
    flush,
    /** The side may have other values now (a new session): forget what it was believed to have. */
    forget() { known = {}; },
    /** The side may have lost its values (a new session): it gets `image` again, merged with what is queued. */
    resync(image) {
      known = {};
      collapse();
      Object.assign(frames[0], image);
      flush();
    },
    /** Frames queued now. */
    get queued() { return frames.length; },
  };
}

module.exports = { createTagWriter, inTimeOrder, addToFrames };
