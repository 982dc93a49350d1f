'use strict';
/**
 * The REST endpoint's view of the plant state (lib/web/rest.js): the latest state, and the last
 * `historySize` state frames as the edge sent them, each a version (its seq), so that a poll with
 * `since` gets every change after it and nothing is lost between two polls.
 *
 * Plain module; lib/web/rest.js keeps one.
 */
const envelope = require('../core/envelope');

/**
 * @param {object} o
 * @param {object} o.sender the endpoint's envelope sender (the frames kept are its own, numbered)
 * @param {number} o.historySize state frames kept for `since`
 * @param {object} [o.state] the latest plant state known at start
 * @param {() => number} [o.now] wall clock (a snapshot's ts)
 * @param {object} o.counters the endpoint's: stateFrames, snapshots, notModified
 */
function createStateHistory(o) {
  const { sender, counters } = o;
  const now = o.now || Date.now;
  const latest = { ...(o.state || {}) };
  let version = 0; // seq of the last state frame kept
  const history = []; // [{seq, env}] oldest first, at most historySize

  function keep(k, d) {
    const env = sender.make(k === 'snap' ? 'snap' : 'state', { d: { ...d } });
    version = env.seq;
    history.push({ seq: env.seq, env });
    if (history.length > o.historySize) history.shift();
    counters.stateFrames += 1;
  }

  /** The latest state as one snap whose seq is the current version. */
  function snap() {
    counters.snapshots += 1;
    return { v: envelope.VERSION, k: 'snap', src: sender.src, seq: version, ts: now(), d: { ...latest } };
  }

  if (Object.keys(latest).length) keep('snap', latest);

  return {
    get version() { return version; },
    /** A copy of the latest state. */
    latest: () => ({ ...latest }),
    /**
     * A state or snap frame of the edge: into the latest state and the history.
     * @param {{k: string, d: object}} env
     */
    add(env) {
      Object.assign(latest, env.d);
      keep(env.k, env.k === 'snap' ? latest : env.d);
    },
    /**
     * What a poll gets.
     * @param {number} since the version the poller has (NaN: none)
     * @returns {null|{status: 204}|{status: 200, body: object[]}} null: no state yet
     */
    poll(since) {
      if (version === 0) return null;
      if (since === version) { counters.notModified += 1; return { status: 204 }; }
      const oldest = history.length ? history[0].seq : version + 1;
      if (Number.isSafeInteger(since) && since >= oldest - 1 && since < version) {
        return { status: 200, body: history.filter((h) => h.seq > since).map((h) => h.env) };
      }
      return { status: 200, body: [snap()] };
    },
  };
}

module.exports = { createStateHistory };
