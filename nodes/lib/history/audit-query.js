'use strict';
/**
 * Reading the command log (lib/history/audit-log.js) back: the commands of a plant that arrived
 * in a time window, each joined with its outcome (its own `outcome` entry, or, on the MQTT, OPC UA
 * and Modbus paths, the outcome its `cmd` entry carries), as rows (JSON) or CSV. The join is one for a
 * single log file and for a fleet's chains (lib/history/audit-fleet.js).
 *
 * The log is read from the start to its end on every query (a plant's commands are few next to
 * its states; the log has no index). An outcome is matched to the newest command of the same
 * plant, src and seq before it that has none yet; a command whose outcome is not in the log (the cloud stopped
 * before it answered) has outcome null. Entries that are not commands or outcomes (`gap`, `cut`,
 * and `muted`: a sender's refused commands counted, not logged one by one) are returned as notes,
 * so a reader sees that the log says it is incomplete.
 *
 * Plain module over node:fs and node:readline.
 */
const fs = require('node:fs');
const readline = require('node:readline');

/** The CSV's columns, in order. */
const COLUMNS = ['n', 'arrived', 'plant', 'via', 'token', 'role', 'user', 'from', 'src', 'seq', 'cid', 'key', 'deadline', 'ttl', 'values',
  'outcome', 'first', 'code', 'msg', 'answered', 'plcAt', 'chain', 'settled', 'target', 'node', 'unverified'];
const MAX_COMMANDS = 100000; // commands one query returns at most (truncated: true past it)

/**
 * What a command of the log is on a timeline, for readers who may see the plant's commands but
 * not the whole log (its viewer and twin tokens, through `GET /s7twin/history?commands=1`): when it
 * arrived, how, who sent it (the token's fingerprint and role, the sender's `src` where that is
 * the sender's own id), what it asked, what became of it and when the PLC took it. Left out: the
 * client's address (`from`), a login's user name, the correlation id and idempotency key a client
 * chose, the deadline and lifetime, and the answer's message text.
 */
const TIMELINE_FIELDS = ['n', 'arrived', 'plant', 'via', 'token', 'role', 'src', 'seq', 'values', 'outcome', 'first', 'code', 'answered', 'plcAt'];

/**
 * The paths whose `src` is the sender's own id (a twin's or edge's, in its envelope; an MQTT
 * client's id). On the others the log's `src` may be the client's address:port (Modbus) or a
 * session name that falls back to the user name (OPC UA): a timeline shows a label instead.
 */
const OWN_SRC_VIAS = new Set(['ws', 'rest', 'mqtt', 'flow']);

/**
 * A command's `src` as a timeline shows it: as logged on a path in OWN_SRC_VIAS, and `local` (a
 * flow's node) on any; else `<via> client` (`modbus client`, `opcua client`).
 * @param {{via?: string, src?: string}} row
 * @returns {string|undefined}
 */
function timelineSrc(row) {
  if (row.src === undefined || row.src === 'local' || OWN_SRC_VIAS.has(row.via)) return row.src;
  return row.via ? `${row.via} client` : 'client';
}

/**
 * A command row (queryCommands) as a timeline shows it: TIMELINE_FIELDS only, those it has,
 * `src` as timelineSrc says.
 * @param {object} row
 * @returns {object}
 */
function timelineOf(row) {
  const out = {};
  for (const k of TIMELINE_FIELDS) if (row[k] !== undefined) out[k] = row[k];
  if (out.src !== undefined) out.src = timelineSrc(row);
  return out;
}

const iso = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString() : '');

/**
 * The join of a log's entries, fed in the log's order: the commands of `q`'s plants that arrived
 * in [from, to], each with its outcome (the newest command of the same plant, src and seq before
 * it that has none yet), and the `gap` and `cut` notes of the window.
 * @param {{plant?: string|string[], from?: number, to?: number, limit?: number}} q plants: one,
 *   a list (a token scoped to several), or '*'/empty for all; from/to in ms since the epoch
 * @param {string} [chain] the chain the entries come from (a fleet's instance), put on each row
 * @returns {{entry(e: object): void, result(): {rows: object[], notes: object[], truncated: boolean, entries: number}}}
 */
function createCommandJoin(q, chain) {
  const from = Number.isFinite(q.from) ? q.from : -Infinity;
  const to = Number.isFinite(q.to) ? q.to : Infinity;
  const limit = q.limit || MAX_COMMANDS;
  const plants = !q.plant || q.plant === '*' ? null : new Set([].concat(q.plant));
  const rows = [];
  const notes = [];
  const waiting = new Map(); // plant+src+seq -> rows of that ref without an outcome, oldest first
  let entries = 0;
  let truncated = false;
  const mark = chain === undefined ? {} : { chain };

  function entry(e) {
    if (!e || typeof e !== 'object') return;
    entries += 1;
    if (e.kind !== 'cmd' && e.kind !== 'outcome') {
      // A note of one plant (a `muted` count of refusals) only for readers of that plant.
      if (e.t >= from && e.t <= to && !(plants && e.plant !== undefined && !plants.has(e.plant))) notes.push({ ...e, ...mark });
      return;
    }
    if (plants && !plants.has(e.plant)) return;
    const k = `${e.plant}\u0000${e.src}\u0000${e.seq}`;
    if (e.kind === 'cmd') {
      if (e.t < from || e.t > to) { waiting.delete(k); return; }
      if (rows.length >= limit) { truncated = true; return; }
      const row = {
        n: e.n, arrived: e.t, plant: e.plant, via: e.via, token: e.token, role: e.role, user: e.user, from: e.from, src: e.src, seq: e.seq,
        cid: e.cid, key: e.key, deadline: e.dl, ttl: e.ttl, values: e.d, outcome: null, ...mark,
        ...(e.target === undefined ? {} : { target: e.target }), ...(e.node === undefined ? {} : { node: e.node }),
      };
      rows.push(row);
      // A command of a path without answers carries its outcome (decided as it arrived).
      if (e.outcome !== undefined) { Object.assign(row, { outcome: e.outcome, code: e.code, msg: e.msg, answered: e.t }); return; }
      if (!waiting.has(k)) waiting.set(k, []);
      waiting.get(k).push(row);
      return;
    }
    // The newest command of the ref still waiting: a duplicate is refused at once, before the
    // answer of the command it repeats.
    const list = waiting.get(k);
    if (!list) return;
    const row = list.pop();
    if (!list.length) waiting.delete(k);
    Object.assign(row, { outcome: e.outcome, first: e.first, code: e.code, msg: e.msg, answered: e.t, plcAt: e.plcAt });
    // The outcome's own entry number, for a verifier (not part of the answer).
    Object.defineProperty(row, 'outcomeN', { value: e.n, enumerable: false });
  }

  return { entry, result: () => ({ rows, notes, truncated, entries }) };
}

/** The outcomes the edge itself gave a key: they settle an earlier command of that key left in doubt. */
const SETTLING = new Set(['written', 'repeat']);

/**
 * Commands left in doubt (no outcome: the instance stopped before answering; or `unknown`) that
 * carried an idempotency key, settled by a later command of the same plant and key that the edge
 * answered (`written`: the edge had not seen the key, so the first never reached it; `repeat`:
 * `first` is what the edge did with it). The later command may have gone through another instance
 * (the twin moved when its instance died): `settled` names it by chain and number.
 * @param {object[]} rows ordered by arrival
 * @returns {object[]} the same rows
 */
function settleByKey(rows) {
  const later = new Map(); // plant+key -> the earliest settling row seen after the current one
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    const r = rows[i];
    if (r.key === undefined || r.key === null) continue;
    const k = `${r.plant}\u0000${r.key}`;
    const s = later.get(k);
    if ((r.outcome === null || r.outcome === 'unknown') && s) {
      r.settled = {
        outcome: s.outcome, ...(s.first === undefined ? {} : { first: s.first }), n: s.n, ...(s.chain === undefined ? {} : { chain: s.chain }), at: s.answered,
      };
    }
    if (SETTLING.has(r.outcome)) later.set(k, r);
  }
  return rows;
}

/**
 * The rows of the commands that arrived in [from, to] for `plant` (any plant when '*' or empty),
 * read from one log file.
 * @param {string} file the log
 * @param {{plant?: string|string[], from?: number, to?: number, limit?: number}} q see createCommandJoin
 * @param {{onLine?: (text: string) => void}} [o] every line as read (a verifier)
 * @returns {Promise<{rows: object[], notes: object[], truncated: boolean, entries: number, first: object|null}>}
 *   first: the log's first entry (it names the chain)
 */
async function queryCommands(file, q, o = {}) {
  const join = createCommandJoin(q, o.chain);
  let first = null;
  let stream;
  try {
    stream = fs.createReadStream(file, { encoding: 'utf8' });
    await new Promise((resolve, reject) => { stream.once('open', resolve); stream.once('error', reject); });
  } catch (err) {
    if (err.code === 'ENOENT') return { ...join.result(), first };
    throw err;
  }
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of lines) {
    if (o.onLine) o.onLine(line);
    let e;
    try { e = JSON.parse(line); } catch { continue; } // scripts/audit-verify.js says which line is bad
    if (first === null && e && e.n === 1) first = e;
    join.entry(e);
  }
  const r = join.result();
  settleByKey(r.rows);
  return { ...r, first };
}

/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
function csvField(v) {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // A leading = + - @ would be run as a formula by a spreadsheet: a quote makes it text.
  const safe = /^[=+\-@]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * Rows as CSV text (a header line, then one line per command; times in ISO 8601 UTC).
 * @param {object[]} rows queryCommands' rows
 * @returns {string}
 */
function toCsv(rows) {
  const TIMES = new Set(['arrived', 'deadline', 'answered', 'plcAt']);
  const lines = [COLUMNS.join(',')];
  for (const r of rows) lines.push(COLUMNS.map((c) => csvField(TIMES.has(c) ? iso(r[c]) : r[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

module.exports = {
  COLUMNS, MAX_COMMANDS, TIMELINE_FIELDS, OWN_SRC_VIAS, createCommandJoin, settleByKey, queryCommands, timelineOf, timelineSrc, toCsv, csvField,
};
