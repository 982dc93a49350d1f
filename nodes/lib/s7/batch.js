'use strict';
/**
 * Which queued writes go out together in the edge's next S7 write job, and as which items.
 * Plain module (no I/O): lib/s7/connection.js calls it with its queue.
 *
 * The queue is taken in order: the first write always goes, and the writes behind it join the job
 * while it stays within `maxItems` items (the S7 protocol's limit per job; snap7's server crashes
 * past 20) and one PDU (`maxPdu` bytes, so a job is one request).
 *
 * Writes marked `independent` (the probe slots: each twin's own request slot, whose order against
 * other slots nobody can see) may also join from further back in the queue, ahead of writes that
 * stay queued, and their single `DBn,DWORDb` items that are neighbours in memory become one array
 * item (`DBn,DWORDb.len`). A deep queue of probes (1,000 twins starting at once) then goes out in
 * far fewer items and jobs: nodes7 allocates 96 KB of buffers per item of a write, and at the
 * start of a 1,000-twin level that allocation and the garbage collections it set off took half of
 * the edge's time (docs/bridge.md). Order is kept where it can be seen: writes to the same
 * address go out in queue order (a write never joins ahead of a queued one to its address), and
 * a write that is not independent never joins ahead of one left in the queue.
 */

// What one job may hold and what an item costs: nodes/lib/s7/job.js (shared with plc/s7-push.js).
const { ITEM_BYTES, REQUEST_BYTES, createJobBudget } = require('./job');
const DWORD_RE = /^DB(\d+),DWORD(\d+)$/;

/** `{db, byte}` of a single-DWORD data block address, else null. */
function dwordAddr(addr) {
  const m = DWORD_RE.exec(addr);
  return m ? { db: Number(m[1]), byte: Number(m[2]) } : null;
}

/**
 * Data bytes an item writes (nodes7 pads odd lengths to even): a bit, or a tag's bytes in a data
 * block or the M area (lib/s7/address.js), up to a STRING's 256.
 */
function dataBytes(addr) {
  const m = /(?:^DB\d+,|^M)(X|B|BYTE|CHAR|INT|WORD|DINT|DWORD|REAL|LREAL|)\d+(?:\.(\d+))?$/.exec(addr);
  if (!m) return 4;
  const kind = m[1] === '' ? 'X' : m[1]; // M2.0: a bit of the M area
  const size = { X: 1, B: 1, BYTE: 1, CHAR: 1, INT: 2, WORD: 2, DINT: 4, DWORD: 4, REAL: 4, LREAL: 8 }[kind];
  const n = kind === 'X' ? 1 : Number(m[2] || 1);
  const b = size * n;
  return b + (b % 2);
}

/** Numeric key of a data block DWORD (db, byte): neighbours are key ± 4. */
const wordKey = (db, byte) => db * 0x1000000 + byte;
const parsedOf = new WeakMap(); // write -> its items' keys, parsed once however often it is looked at

/** `[{key, word, bytes}]` of a write's items: word = DWORD key when it may merge, else null. */
function parse(op) {
  let p = parsedOf.get(op);
  if (!p) {
    p = op.items.map((it) => {
      const d = dwordAddr(it.addr);
      const key = d ? wordKey(d.db, d.byte) : it.addr;
      return { key, word: d && op.independent ? key : null, bytes: d ? 4 : dataBytes(it.addr) };
    });
    parsedOf.set(op, p);
  }
  return p;
}

/**
 * Take the next job's writes out of `queue` (changed in place: taken writes are removed, the
 * others keep their order).
 * @param {Array<{items: Array<{addr:string, value:*}>, independent?: boolean}>} queue non-empty
 * @param {{maxItems: number, maxPdu: number, scanLimit?: number}} o scanLimit: how many queued
 *   writes are looked at (default 1024)
 * @returns {{ops: object[], items: Array<{addr:string, value:*}>}} the writes taken (resolve or
 *   reject them together) and the job's items
 */
function takeBatch(queue, o) {
  if (queue.length === 1) { const op = queue.pop(); return { ops: [op], items: op.items }; }
  const scanLimit = o.scanLimit || 1024;
  const words = new Map(); // DWORD key -> value, of independent single-DWORD items
  const plain = []; // every other item, in queue order
  const used = new Set(); // keys written by the job
  const blocked = new Set(); // keys of writes left in the queue: nothing passes them
  const budget = createJobBudget({ maxItems: o.maxItems, maxPdu: o.maxPdu, requestBytes: REQUEST_BYTES.nodes7 });
  let leftOne = false; // a write was left in the queue: dependent writes behind it must stay
  const ops = [];
  const rest = [];

  /** Items and bytes the job grows by with `op`, or null when it cannot join at all. */
  function cost(op) {
    const parsed = parse(op);
    let di = 0;
    let db = 0;
    const mine = parsed.length > 1 ? new Set() : null;
    const has = (k) => words.has(k) || (mine !== null && mine.has(k));
    for (const it of parsed) {
      if (used.has(it.key) || blocked.has(it.key) || (mine && mine.has(it.key))) return null;
      if (mine) mine.add(it.key);
      if (it.word !== null) {
        const runs = 1 - (has(it.word - 4) ? 1 : 0) - (has(it.word + 4) ? 1 : 0);
        di += runs;
        db += 4 + ITEM_BYTES * runs;
      } else {
        di += 1;
        db += ITEM_BYTES + it.bytes;
      }
    }
    return { di, db };
  }

  function take(op) {
    const parsed = parse(op);
    for (let k = 0; k < parsed.length; k++) {
      used.add(parsed[k].key);
      if (parsed[k].word !== null) words.set(parsed[k].word, op.items[k].value);
      else plain.push(op.items[k]);
    }
    ops.push(op);
  }

  function leave(op) {
    rest.push(op);
    leftOne = true;
    for (const it of parse(op)) blocked.add(it.key);
  }

  for (let i = 0; i < queue.length; i++) {
    const op = queue[i];
    if (i >= scanLimit || !budget.fits(0, 4)) { rest.push(op); continue; } // nothing more fits
    if (i > 0 && !op.independent && leftOne) { leave(op); continue; }
    // The first write always goes (alone if it is larger than a job: the caller splits those).
    const c = cost(op) || (i === 0 ? { di: op.items.length, db: 0 } : null);
    if (i === 0 || (c && budget.fits(c.di, c.db))) {
      take(op);
      budget.add(c.di, c.db);
    } else {
      leave(op);
    }
  }
  queue.splice(0, queue.length, ...rest);

  // The job's items: plain ones as they came, then each run of neighbouring DWORDs as one item.
  const out = plain.slice();
  const list = [...words.keys()].sort((a, b) => a - b);
  for (let s = 0; s < list.length;) {
    let e = s + 1;
    while (e < list.length && list[e] === list[e - 1] + 4) e += 1;
    const db = Math.floor(list[s] / 0x1000000);
    const byte = list[s] % 0x1000000;
    out.push(e - s === 1
      ? { addr: `DB${db},DWORD${byte}`, value: words.get(list[s]) }
      : { addr: `DB${db},DWORD${byte}.${e - s}`, value: list.slice(s, e).map((k) => words.get(k)) });
    s = e;
  }
  return { ops, items: out };
}

module.exports = { takeBatch };
