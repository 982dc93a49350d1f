'use strict';
/**
 * The report's "where the bytes go": the twin connection's bytes per box sorted, by path,
 * direction and kind of frame (or MQTT packet), counted by the twin transports
 * (twin/transports/ws/bytes.js, twin/transports/mqtt/bytes.js) over every production; what the
 * TCP stream carried besides (opening handshake, pings, close, packets not seen one by one) is
 * its own row. For WebSocket–S7 a second table splits every frame as the readable JSON envelope
 * would have cost it (framing, header, answer fields, tag names, values, echoes of the twin's own
 * command) beside what the connection's encoding sent.
 */
const { addRows } = require('../../twin/transports/ws/bytes');

const fmt = (v) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v >= 10 ? v.toFixed(0) : v.toFixed(1));
const table = (head, rows) => [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const ARROW = { up: '↑ twin → cloud', down: '↓ cloud → twin' };

/**
 * The per-production accumulation: add one production's transport stats.
 * @param {object} acc {rows, tcpIn, tcpOut, encoding}
 * @param {object} ts the transport's stats()
 */
function addProduction(acc, ts) {
  if (!ts || !Array.isArray(ts.where)) return acc;
  acc.rows = addRows([acc.rows, ts.where]);
  acc.tcpIn += ts.bytesIn || 0;
  acc.tcpOut += ts.bytesOut || 0;
  if (ts.encoding) acc.encoding = ts.encoding;
  return acc;
}

/** An empty accumulation. */
const emptyWhere = () => ({ rows: [], tcpIn: 0, tcpOut: 0, encoding: null });

/** The rows of one path, per box, with the rest of the TCP stream per direction. */
function perBox(w, boxes) {
  const per = (x) => (boxes > 0 ? x / boxes : null);
  const rows = [...w.rows].sort((a, b) => (a.dir === b.dir ? b.wire + b.wireFraming - (a.wire + a.wireFraming) : a.dir === 'up' ? -1 : 1));
  const out = [];
  for (const dir of ['up', 'down']) {
    let seen = 0;
    for (const r of rows.filter((x) => x.dir === dir)) {
      // WebSocket rows count payload and framing apart; MQTT rows count whole packets (framing inside).
      const total = r.json !== undefined ? r.wire + r.wireFraming : r.wire;
      seen += total;
      out.push({ dir, kind: r.kind, frames: per(r.frames), bytes: per(total), framing: per(r.wireFraming) });
    }
    const tcp = dir === 'up' ? w.tcpOut : w.tcpIn;
    if (tcp) out.push({ dir, kind: 'rest of the TCP stream (handshake, pings, close, …)', frames: null, bytes: per(Math.max(0, tcp - seen)), framing: null });
  }
  return out;
}

/**
 * The report's lines.
 * @param {object} s the summary: profiles[name].productions[proto] = {bytes: {boxes}, where}
 * @param {(proto: string) => string} label
 * @returns {string[]}
 */
function whereLines(s, label) {
  const L = [];
  const rows = [];
  const wsRows = [];
  for (const [name, p] of Object.entries(s.profiles)) {
    for (const [proto, r] of Object.entries(p.productions)) {
      const w = r.where;
      const boxes = r.bytes && r.bytes.boxes;
      if (!w || !w.rows.length || !boxes) continue;
      const lab = `${label(proto)}${w.encoding ? ` (${w.encoding})` : ''}`;
      for (const x of perBox(w, boxes)) rows.push([name, lab, ARROW[x.dir], x.kind, fmt(x.frames), fmt(x.bytes), fmt(x.framing)]);
      for (const x of w.rows.filter((y) => y.json !== undefined)) {
        const per = (v) => fmt(v / boxes);
        wsRows.push([name, lab, ARROW[x.dir], x.kind, per(x.frames), per(x.jsonFraming), per(x.header), per(x.answer), per(x.names), per(x.values),
          per(x.echoed), per(x.json + x.jsonFraming), per(x.wire + x.wireFraming)]);
      }
    }
  }
  if (!rows.length) return L;
  L.push('### Where the bytes go', '');
  L.push('Per box sorted, both directions of the twin connection, by kind of frame (WebSocket–S7) or packet (MQTT: a PUBLISH by its topic\'s last level), '
    + 'framing and headers included; "rest of the TCP stream" is what the socket carried besides (the opening handshake, pings, close frames, '
    + 'MQTT packets sent whose size mqtt.js does not report).', '');
  L.push(table(['profile', 'path (encoding)', 'direction', 'kind', 'frames/box', 'bytes/box', 'of it framing'], rows), '');
  if (wsRows.length) {
    L.push('WebSocket–S7 frame by frame: each frame as the readable JSON envelope would have cost it (WebSocket framing; header v, k, src, seq, ts; '
      + 'answer fields ref, dl, e, cid, ttl; tag names; values; of names and values, those that echo the twin\'s own last command), '
      + 'beside what the connection\'s encoding sent (payload and framing). Bytes per box.', '');
    L.push(table(['profile', 'path (encoding)', 'direction', 'kind', 'frames/box', 'JSON framing', 'JSON header', 'JSON answer fields', 'JSON tag names',
      'JSON values', 'JSON echoes', 'JSON total', 'sent'], wsRows), '');
  }
  return L;
}

module.exports = { addProduction, emptyWhere, whereLines, perBox };
