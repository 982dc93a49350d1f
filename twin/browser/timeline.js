'use strict';
/**
 * What the replay's timeline shows, as plain values the page draws: the quick picks of a window,
 * times as the page's inputs and labels take them (local time), each command of the window as a
 * mark with its sender and what became of it, the senders in a legend, and the spans of backfilled
 * states (what the edge journalled while its link was down) and the edge's snapshots. Browser-safe;
 * the page (app.mjs, replay-ui.mjs) turns these into elements.
 */

/** Windows a user picks with one press: the last few minutes up to now. */
const QUICK_PICKS = [
  { id: 'last-5m', label: 'last 5 min', ms: 5 * 60 * 1000 },
  { id: 'last-15m', label: 'last 15 min', ms: 15 * 60 * 1000 },
  { id: 'last-1h', label: 'last hour', ms: 60 * 60 * 1000 },
];

const pad = (n, w = 2) => String(n).padStart(w, '0');

/**
 * A time as a datetime-local input holds it, to the second, in the page's time zone.
 * @param {number} ms since the epoch
 * @returns {string} YYYY-MM-DDTHH:MM:SS
 */
function toLocalInput(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * A datetime-local input's value (local time; seconds optional) as ms since the epoch.
 * @param {string} text
 * @returns {number} NaN when it is not such a value
 */
function fromLocalInput(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(String(text || ''));
  if (!m) return NaN;
  const [y, mo, d, h, mi, s = '0', frac = '0'] = m.slice(1);
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0'))).getTime();
}

/**
 * A time of day on the timeline (local time, to the tenth of a second when asked).
 * @param {number} ms
 * @param {boolean} [tenths]
 * @returns {string} HH:MM:SS(.t)
 */
function clockText(ms, tenths = false) {
  const d = new Date(ms);
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return tenths ? `${base}.${Math.floor(d.getMilliseconds() / 100)}` : base;
}

/**
 * The window a quick pick stands for.
 * @param {string} id one of QUICK_PICKS' ids
 * @param {number} now
 * @returns {{from: number, to: number}|null}
 */
function pickWindow(id, now) {
  const p = QUICK_PICKS.find((x) => x.id === id);
  return p ? { from: now - p.ms, to: now } : null;
}

/** Who sent a command, as one key: the token's fingerprint and role, and the sender's own id. */
const senderKey = (c) => `${c.role || '?'}:${c.token || '?'}:${c.src || '?'}`;

/**
 * The senders of the window's commands, most commands first, each with a colour slot (0..7) the
 * page styles.
 * @param {object[]} commands the history's commands (timeline fields)
 * @returns {Array<{key: string, role: string, token: string, src: string, via: string[], count: number, slot: number, label: string}>}
 */
function sendersOf(commands) {
  const by = new Map();
  for (const c of commands) {
    const k = senderKey(c);
    let s = by.get(k);
    if (!s) {
      s = { key: k, role: c.role || '?', token: c.token || '?', src: c.src || '?', via: [], count: 0 };
      by.set(k, s);
    }
    s.count += 1;
    if (c.via && !s.via.includes(c.via)) s.via.push(c.via);
  }
  return [...by.values()].sort((a, b) => b.count - a.count || a.key.localeCompare(b.key))
    // A command of the MQTT, OPC UA or Modbus path, or a flow's, has no token: its role only.
    .map((s, i) => ({ ...s, slot: i % 8, label: `${s.src} (${s.role}${s.token === '?' ? '' : ` token ${s.token}`}, ${s.via.join('+') || '?'})` }));
}

/**
 * What a command asked, in the table's names: "StartButton=1, StopButton=0" ("values not read"
 * where the log has none).
 * @param {object} values
 * @param {{get(short: string): {name: string}|undefined}} [table]
 */
function valuesText(values, table) {
  if (!values) return 'values not read'; // a viewer's REST command is refused before its body is read
  return Object.entries(values).map(([k, v]) => {
    const tag = table && table.get(k);
    return `${tag ? tag.name : k}=${typeof v === 'string' ? JSON.stringify(v) : v}`;
  }).join(', ') || 'nothing';
}

/**
 * What became of a command, in words.
 * @param {{outcome: ?string, code?: string, first?: string}} c
 */
function outcomeText(c) {
  if (!c.outcome) return 'no answer in the log';
  if (c.outcome === 'repeat') return `repeat (first: ${c.first || '?'})`;
  return c.code ? `${c.outcome} ${c.code}` : c.outcome;
}

/**
 * The window's commands as marks on the timeline: where (0..1 along the window), which sender
 * (its colour slot), and a sentence a screen reader reads and a tooltip shows.
 * @param {object[]} commands
 * @param {number} from
 * @param {number} to
 * @param {object} [table] for the tags' names
 * @returns {Array<{at: number, x: number, slot: number, outcome: string, text: string, sender: string}>}
 */
function commandMarks(commands, from, to, table) {
  const senders = new Map(sendersOf(commands).map((s) => [s.key, s]));
  const span = Math.max(1, to - from);
  return commands.filter((c) => c.arrived >= from && c.arrived <= to).map((c) => {
    const s = senders.get(senderKey(c));
    return {
      at: c.arrived,
      x: (c.arrived - from) / span,
      slot: s.slot,
      outcome: c.outcome || 'none',
      sender: s.label,
      text: `${clockText(c.arrived, true)} ${valuesText(c.values, table)} from ${s.label}: ${outcomeText(c)}`,
    };
  });
}

/**
 * Where the history holds backfilled states (kind `backfill`: read by the edge while its link was
 * down, forwarded after it came back) and the edge's snapshots (`snap`, one per reconnect), in
 * the window. Backfilled frames closer than `gapMs` make one span.
 * @param {Array<{t: number, k: string}>} frames
 * @param {number} from
 * @param {number} to
 * @param {number} [gapMs]
 * @returns {{backfill: Array<{from: number, to: number, x0: number, x1: number, frames: number}>, snaps: Array<{at: number, x: number}>}}
 */
function historyMarks(frames, from, to, gapMs = 2000) {
  const span = Math.max(1, to - from);
  const x = (t) => (t - from) / span;
  const backfill = [];
  const snaps = [];
  for (const f of frames) {
    if (f.t < from || f.t > to) continue;
    if (f.k === 'snap') snaps.push({ at: f.t, x: x(f.t) });
    if (f.k !== 'backfill') continue;
    const last = backfill[backfill.length - 1];
    if (last && f.t - last.to <= gapMs) {
      last.to = f.t;
      last.x1 = x(f.t);
      last.frames += 1;
    } else {
      backfill.push({ from: f.t, to: f.t, x0: x(f.t), x1: x(f.t), frames: 1 });
    }
  }
  return { backfill, snaps };
}

module.exports = {
  QUICK_PICKS, toLocalInput, fromLocalInput, clockText, pickWindow, sendersOf, valuesText, outcomeText, commandMarks, historyMarks,
};
