'use strict';
/**
 * Where the bytes of a twin's WebSocket go: every frame it sends and receives, by direction and
 * kind, as it crossed the wire (payload and WebSocket framing) and as the same envelope would
 * have cost in the readable JSON encoding, split into its parts: WebSocket framing, the header
 * (v, k, src, seq, ts), the answer and deadline fields (ref, dl, e, cid, ttl), tag names (the
 * keys of d) and values, and the values a state or snapshot echoed back of the twin's own last
 * command. The benchmark's report shows it ("where the bytes go"). Browser-safe.
 */

const HEADER = new Set(['v', 'k', 'src', 'seq', 'ts']);
const utf8 = new TextEncoder();
const len = (x) => utf8.encode(JSON.stringify(x)).length;

/**
 * WebSocket framing of one frame: 2 bytes up to 125 bytes of payload, 4 up to 65,535, else 10;
 * a client's frames carry a 4-byte mask as well (RFC 6455, 5.2).
 * @param {number} payload bytes
 * @param {boolean} masked sent by a client
 */
function framingOf(payload, masked) {
  return (payload < 126 ? 2 : payload < 65536 ? 4 : 10) + (masked ? 4 : 0);
}

/**
 * The JSON text of an envelope, split into parts (bytes): header, answer, names, values; the
 * braces and commas between fields go to the header.
 * @param {object} env
 * @returns {{header: number, answer: number, names: number, values: number, total: number}}
 */
function jsonParts(env) {
  const p = { header: 2, answer: 0, names: 0, values: 0, total: 0 }; // {}
  let fields = 0;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    fields += 1;
    const key = len(k) + 1; // "k":
    if (k === 'd' && v && typeof v === 'object') {
      p.header += key + 2; // "d":{}
      let n = 0;
      for (const [tk, tv] of Object.entries(v)) {
        n += 1;
        p.names += len(tk) + 1;
        p.values += len(tv);
      }
      p.header += Math.max(0, n - 1); // commas inside d
    } else if (HEADER.has(k)) {
      p.header += key + len(v);
    } else {
      p.answer += key + len(v);
    }
  }
  p.header += Math.max(0, fields - 1);
  p.total = p.header + p.answer + p.names + p.values;
  return p;
}

/** An empty book: per direction ('up' twin → cloud, 'down' cloud → twin) and kind. */
function createByteBook() {
  const rows = {}; // `${dir} ${kind}` -> counts
  const row = (dir, kind) => {
    const key = `${dir} ${kind}`;
    if (!rows[key]) {
      rows[key] = {
        dir, kind, frames: 0, wire: 0, wireFraming: 0,
        json: 0, jsonFraming: 0, header: 0, answer: 0, names: 0, values: 0, echoed: 0,
      };
    }
    return rows[key];
  };

  return {
    /**
     * One frame.
     * @param {'up'|'down'} dir
     * @param {object} env the envelope
     * @param {number} payload its bytes as sent (the connection's encoding)
     * @param {object} [mine] the twin's own last command values (echoes in a state are counted)
     */
    add(dir, env, payload, mine) {
      const r = row(dir, env.k || '?');
      const masked = dir === 'up';
      const j = jsonParts(env);
      r.frames += 1;
      r.wire += payload;
      r.wireFraming += framingOf(payload, masked);
      r.json += j.total;
      r.jsonFraming += framingOf(j.total, masked);
      r.header += j.header;
      r.answer += j.answer;
      r.names += j.names;
      r.values += j.values;
      if (mine && env.d && (env.k === 'state' || env.k === 'snap')) {
        for (const [k, v] of Object.entries(env.d)) if (k in mine && Number(mine[k]) === Number(v)) r.echoed += len(k) + 1 + len(v);
      }
    },
    /** The rows so far, a copy. */
    rows: () => Object.values(rows).map((r) => ({ ...r })),
  };
}

/**
 * Several books' rows added up (the productions of a run).
 * @param {Array<object[]>} lists rows of createByteBook
 * @returns {object[]}
 */
function addRows(lists) {
  const out = {};
  for (const list of lists) {
    for (const r of list || []) {
      const key = `${r.dir} ${r.kind}`;
      if (!out[key]) out[key] = { ...r };
      else for (const [k, v] of Object.entries(r)) if (typeof v === 'number') out[key][k] += v;
    }
  }
  return Object.values(out);
}

module.exports = { createByteBook, addRows, jsonParts, framingOf };
