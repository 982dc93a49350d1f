'use strict';
/**
 * What a frame of the plant history is as rows, and rows back as frames: one home for every store
 * of the history (the embedded SQLite one, lib/history/state-store.js, and a fleet's shared one).
 *
 * A row is [plant, t, ets, seq, kind, tag, value]:
 * - `t` the time the history files the value under, on the CLOUD's clock: a live state's or
 *   snapshot's arrival; a backfilled state's own time put on the cloud's clock by the edge (`ct`,
 *   the edge's time plus its link's clock-offset estimate), else its arrival;
 * - `ets` the edge's own timestamp of the frame (its `ts`, the edge's clock), or null;
 * - `seq` the frame's sequence number, or null;
 * - `kind` `state`, `snap` (every streamed tag, sent on each reconnect) or `backfill` (a state the
 *   edge read while its link was down, journalled there and forwarded after the reconnect);
 * - `value` as it came: a BOOL as 0/1, numbers as numbers, a STRING tag's text as text.
 *
 * A `backfill` row is one record of the edge's journal: its `seq` is the record's number there and
 * `ets` its timestamp, so (plant, seq, ets, tag) names it, and every store files it once (the
 * edge sends a record again when the answer to it was lost with the link).
 */

/** The frame kinds the history keeps. */
const HISTORY_KINDS = new Set(['state', 'snap', 'backfill']);

/**
 * The rows of one frame (none for a kind the history does not keep, or a frame without values).
 * @param {string} plant
 * @param {{k: string, d?: object, ts?: number, seq?: number, ct?: number}} env
 * @param {number} at its arrival on the cloud's clock
 * @returns {Array<Array>} rows
 */
function rowsOf(plant, env, at) {
  if (typeof plant !== 'string' || !env || !HISTORY_KINDS.has(env.k) || !env.d || typeof env.d !== 'object') return [];
  const t = env.k === 'backfill' && Number.isFinite(env.ct) ? env.ct : at;
  const ets = Number.isFinite(env.ts) ? env.ts : null;
  const seq = Number.isFinite(env.seq) ? env.seq : null;
  const rows = [];
  for (const [tag, v] of Object.entries(env.d)) {
    const value = typeof v === 'boolean' ? Number(v) : v;
    if (typeof value !== 'string' && (typeof value !== 'number' || !Number.isFinite(value))) continue;
    rows.push([plant, t, ets, seq, env.k, tag, value]);
  }
  return rows;
}

/**
 * Rows (ordered by t) back into frames: consecutive rows of one frame (same plant, t, seq, kind)
 * make one `{plant, t, ets, seq, k, d}`.
 * @param {Iterable<{plant: string, t: number, ets: ?number, seq: ?number, kind: string, tag: string, value: *}>} rows
 * @returns {object[]} frames
 */
function framesOf(rows) {
  const frames = [];
  let last = null;
  for (const r of rows) {
    if (!last || last.t !== r.t || last.seq !== r.seq || last.k !== r.kind || last.plant !== r.plant) {
      last = { plant: r.plant, t: r.t, ets: r.ets, seq: r.seq, k: r.kind, d: {} };
      frames.push(last);
    }
    last.d[r.tag] = r.value;
  }
  return frames;
}

module.exports = { HISTORY_KINDS, rowsOf, framesOf };
