'use strict';
/**
 * Loading a replay window from the cloud's plant history (`GET /s7twin/history`, docs/history.md)
 * with the page's own token: the frames the edge sent in the window and a lead-in before it, the
 * commands of the window (`commands=1`: who sent what, and what became of it), and the state of
 * the plant at the lead-in's start.
 *
 * - The lead-in (a minute by default) is replayed at once before the window starts, so the belts
 *   carry the boxes they carried when the window opens.
 * - The state at the lead-in's start: the history has the values that changed, so every tag the
 *   lead-in and the window's first frames do not set is looked up further back (an hour, a day, a
 *   week: the retention), asking for those tags only. A counter that last changed an hour ago is
 *   still shown right from the window's first moment.
 * - A long window comes in pages: an answer cut at the history's row limit (`truncated`) ends
 *   with a frame that may be cut too, so the next page asks again from that frame's time. After
 *   `maxPages` the replay ends where the pages end (`truncated`, `coveredTo`), and the page says so.
 * - The live frames are put on the edge's timing (onEdgeTiming): the history files a live state
 *   at its arrival at the cloud, late by however long the cloud was held up then.
 *
 * Browser-safe: `fetch` is passed in (the page's, or Node's in tests).
 */
const { codedError } = require('../../nodes/lib/core/errors');

/** Error with a stable `code`. */
const ReplayError = codedError('ReplayError');

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const DEFAULTS = {
  leadMs: MINUTE_MS, // replayed before the window (boxes already on the belts)
  maxWindowMs: 6 * HOUR_MS, // the longest window one replay loads (seeking runs the plant through it)
  maxPages: 8, // pages of states for one window (the history cuts an answer at 500,000 values)
  backMs: [HOUR_MS, DAY_MS, 7 * DAY_MS], // how far back a tag's last value is looked for, in turn
  bisect: 4, // halvings of a back window whose answer was cut, towards its newest part
};

/**
 * GET /s7twin/history with a token.
 * @param {{fetch: Function, path: string, token: string, plant: string}} o path: the history's path on the admin API
 * @returns {(q: {from: number, to: number, tags?: string[], commands?: boolean}) => Promise<object>} the answer's body
 */
function historyClient(o) {
  return async function get(q) {
    const query = new URLSearchParams({ plant: o.plant, from: String(Math.floor(q.from)), to: String(Math.ceil(q.to)) });
    if (q.tags) query.set('tags', q.tags.join(','));
    if (q.commands) query.set('commands', '1');
    let res;
    try {
      res = await o.fetch(`${o.path}?${query}`, { headers: { Authorization: `Bearer ${o.token}` }, cache: 'no-store' });
    } catch (err) {
      throw new ReplayError('E_NETWORK', `cannot reach the plant history: ${err.message}`);
    }
    let body = null;
    try { body = await res.json(); } catch { /* not JSON: said below */ }
    if (res.status !== 200 || !body || !Array.isArray(body.states)) {
      const e = body && body.error;
      throw new ReplayError(e && e.code ? e.code : `E_HTTP_${res.status}`, e && e.msg ? e.msg : `the plant history answered HTTP ${res.status}`,
        { status: res.status });
    }
    return body;
  };
}

/**
 * The newest value of each of `tags` in [lo, hi]. An answer cut at the row limit holds the oldest
 * rows only, so its window is halved and the newer half asked first.
 * @param {Function} get historyClient()
 * @param {string[]} tags
 * @param {number} lo
 * @param {number} hi
 * @param {number} halvings left
 * @returns {Promise<object>} tag → value (tags with no row in the window are missing)
 */
async function lastValues(get, tags, lo, hi, halvings) {
  if (!tags.length || hi < lo) return {};
  const b = await get({ from: lo, to: hi, tags });
  if (b.truncated && halvings > 0 && hi - lo > 1) {
    const mid = Math.floor(lo + (hi - lo) / 2);
    const later = await lastValues(get, tags, mid + 1, hi, halvings - 1);
    const rest = tags.filter((k) => !(k in later));
    return { ...(await lastValues(get, rest, lo, mid, halvings - 1)), ...later };
  }
  const out = {};
  for (const f of b.states) for (const k of tags) if (k in f.d) out[k] = f.d[k];
  return out;
}

/**
 * The frames of [start, to], page by page.
 * @returns {Promise<{frames: object[], truncated: boolean, coveredTo: number, pages: number, first: object}>}
 */
async function framesOf(get, start, to, maxPages) {
  const frames = [];
  let cursor = start;
  let first = null;
  for (let page = 1; ; page += 1) {
    const b = await get({ from: cursor, to, commands: page === 1 });
    if (!first) first = b;
    if (!b.truncated) {
      frames.push(...b.states);
      return { frames, truncated: false, coveredTo: to, pages: page, first };
    }
    // The last frame of a cut answer may be cut itself: the next page starts again at its time.
    const last = b.states.length ? b.states[b.states.length - 1].t : cursor;
    frames.push(...b.states.filter((f) => f.t < last));
    if (last <= cursor || page >= maxPages) return { frames, truncated: true, coveredTo: Math.max(start, last - 1), pages: page, first };
    cursor = last;
  }
}

/**
 * Live frames on the edge's timing. A live state's `t` is its arrival at the cloud: late by the
 * link and by however long the cloud's event loop was held up then, tens of milliseconds on a
 * loaded machine, and at the fast profile's 3 m/s a box is then 100 mm from where the edge saw
 * it. Its `ets` is when the edge read it, on the edge's clock. Between two snapshots (one edge
 * connection: one clock) every live frame is put at its `ets` plus the least `t − ets` of that
 * stretch: one offset for all of them, so they are spaced as the edge read them, and none later
 * than it arrived. Backfill is on the edge's timing already (its `t` is the edge's time on the
 * cloud's clock); a frame without `ets` keeps its `t`. Sorted again by time (a stable sort).
 * @param {Array<{t: number, ets: ?number, k: string}>} frames oldest first
 * @returns {object[]} new frames
 */
function onEdgeTiming(frames) {
  const out = frames.map((f) => ({ ...f }));
  let stretch = [];
  const settle = () => {
    let least = Infinity;
    for (const f of stretch) least = Math.min(least, f.t - f.ets);
    for (const f of stretch) f.t = f.ets + least;
    stretch = [];
  };
  for (const f of out) {
    if (f.k === 'backfill') continue;
    if (f.k === 'snap') settle();
    if (Number.isFinite(f.ets)) stretch.push(f);
  }
  settle();
  return out.sort((a, b) => a.t - b.t);
}

/**
 * Load a window for a replay.
 * @param {Function} get historyClient()
 * @param {object} q
 * @param {number} q.from the window, ms since the epoch
 * @param {number} q.to
 * @param {string[]} q.tags the plant's streamed tags (the state at the lead-in's start is looked up for each)
 * @param {number} [q.leadMs] @param {number} [q.maxWindowMs] @param {number} [q.maxPages] @param {number[]} [q.backMs] @param {number} [q.bisect]
 * @returns {Promise<{start: number, from: number, to: number, frames: object[], initial: object, commands: object[],
 *   commandsTruncated: boolean, truncated: boolean, coveredTo: number, pages: number, unknown: string[]}>}
 *   `to` is `coveredTo` when the answer was cut; `unknown`: tags with no value before the window
 *   (the panel shows them as unknown until a frame sets them)
 * @throws {ReplayError} E_REPLAY_WINDOW for a window that cannot be replayed; the history's own
 *   refusals (E_UNAUTHORIZED, E_FORBIDDEN, E_HISTORY_QUERY, …) and E_NETWORK as they come
 */
async function loadWindow(get, q) {
  const o = { ...DEFAULTS, ...q };
  if (!Number.isFinite(o.from) || !Number.isFinite(o.to) || o.from >= o.to) {
    throw new ReplayError('E_REPLAY_WINDOW', 'a replay window needs a start before its end');
  }
  if (o.to - o.from > o.maxWindowMs) {
    throw new ReplayError('E_REPLAY_WINDOW', `a replay window is at most ${Math.round(o.maxWindowMs / HOUR_MS)} h long: pick a shorter one`);
  }
  const start = o.from - o.leadMs;
  const got = await framesOf(get, start, o.to, o.maxPages);
  const frames = onEdgeTiming(got.frames);
  // What the frames before the window set; everything else is looked up further back.
  const seen = new Set();
  for (const f of frames) { if (f.t >= o.from) break; for (const k of Object.keys(f.d)) seen.add(k); }
  let missing = o.tags.filter((k) => !seen.has(k));
  const initial = {};
  let hi = start - 1;
  for (const back of o.backMs) {
    if (!missing.length) break;
    const lo = start - back;
    Object.assign(initial, await lastValues(get, missing, lo, hi, o.bisect));
    missing = missing.filter((k) => !(k in initial));
    hi = lo - 1;
  }
  const commands = (got.first.commands || []).filter((c) => c.arrived >= o.from && c.arrived <= o.to);
  const to = got.truncated ? Math.max(o.from, got.coveredTo) : o.to;
  return {
    start, from: o.from, to, frames, initial, commands, commandsTruncated: Boolean(got.first.commandsTruncated),
    truncated: got.truncated, coveredTo: got.coveredTo, pages: got.pages, unknown: missing,
  };
}

module.exports = { DEFAULTS, ReplayError, historyClient, lastValues, loadWindow, onEdgeTiming };
