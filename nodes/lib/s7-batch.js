'use strict';
/**
 * Which queued writes go out together in the edge's next S7 write job, and as which items.
 * Plain module (no I/O): lib/s7-connection.js calls it with its queue.
 *
 * The queue is taken in order: the first write always goes, and the writes behind it join the job
 * while it stays within `maxItems` items (the S7 protocol's limit per job; snap7's server crashes
 * past 20) and one PDU (`maxPdu` bytes, so a job is one request).
 *
 * Writes marked `independent` (the probe slots: each twin's own request slot, whose order against
 * other slots nobody can see) may also join from further back in the queue, ahead of writes that
 * stay queued, and their single `DBn,DWORDb` items that are neighbours in memory become one array
 * item (`DBn,DWORDb.len`). A deep queue of probes (1,000 twins starting at once) then goes out in
 * far fewer items and jobs: nodes7 allocates 64-96 KB of buffers per item of a write, and at the
 * start of a 1,000-twin level that allocation and the garbage collections it set off took half of
 * the edge's time (docs/bridge.md). Order is kept where it can be seen: writes to the same
 * address go out in queue order (a write never joins ahead of a queued one to its address), and
 * a write that is not independent never joins ahead of one left in the queue.
 */

/** Bytes of a write request before its items (nodes7's packetizer: 10 header + 4 parameters). */
const REQUEST_BYTES = 14;
/** Bytes per item besides its data (12 address + 4 data header). */
const ITEM_BYTES = 16;
const DWORD_RE = /^DB(\d+),DWORD(\d+)$/;

/** `{db, byte}` of a single-DWORD data block address, else null. */
function dwordAddr(addr) {
  const m = DWORD_RE.exec(addr);
  return m ? { db: Number(m[1]), byte: Number(m[2]) } : null;
}

/** Data bytes an item writes (nodes7 pads odd lengths to even). Commands write at most a DWORD. */
function dataBytes(addr) {
  const m = /,(X|BYTE|CHAR|INT|WORD|DINT|DWORD|REAL)\d+(?:\.(\d+))?$/.exec(addr);
  if (!m) return 4;
  const size = { X: 1, BYTE: 1, CHAR: 1, INT: 2, WORD: 2, DINT: 4, DWORD: 4, REAL: 4 }[m[1]];
  const n = m[1] === 'X' ? 1 : Number(m[2] || 1);
  const b = size * n;
  return b + (b % 2);
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
  const scanLimit = o.scanLimit || 1024;
  const words = new Map(); // "db:byte" -> value, of independent single-DWORD items
  const plain = []; // every other item, in queue order
  const used = new Set(); // addresses written by the job ("db:byte" for DWORDs, else the text)
  const blocked = new Set(); // addresses of writes left in the queue: nothing passes them
  let items = 0;
  let bytes = REQUEST_BYTES;
  let leftOne = false; // a write was left in the queue: dependent writes behind it must stay
  const ops = [];
  const rest = [];
  const keyOf = (addr) => { const d = dwordAddr(addr); return d ? `${d.db}:${d.byte}` : addr; };

  /** Items and bytes the job grows by with `op`, or null when it cannot join at all. */
  function cost(op) {
    let di = 0;
    let db = 0;
    const mine = new Set();
    for (const it of op.items) {
      const key = keyOf(it.addr);
      if (used.has(key) || blocked.has(key) || mine.has(key)) return null;
      mine.add(key);
      const d = op.independent ? dwordAddr(it.addr) : null;
      if (d) {
        const has = (b) => words.has(`${d.db}:${b}`) || mine.has(`${d.db}:${b}`);
        const runs = 1 - (has(d.byte - 4) ? 1 : 0) - (has(d.byte + 4) ? 1 : 0);
        di += runs;
        db += 4 + ITEM_BYTES * runs;
      } else {
        di += 1;
        db += ITEM_BYTES + dataBytes(it.addr);
      }
    }
    return { di, db };
  }

  function take(op) {
    for (const it of op.items) {
      used.add(keyOf(it.addr));
      const d = op.independent ? dwordAddr(it.addr) : null;
      if (d) words.set(`${d.db}:${d.byte}`, it.value);
      else plain.push(it);
    }
    ops.push(op);
  }

  for (let i = 0; i < queue.length; i++) {
    const op = queue[i];
    if (i >= scanLimit) { rest.push(op); continue; }
    // The first write always goes (alone if it is larger than a job: the caller splits those).
    const c = cost(op) || (i === 0 ? { di: op.items.length, db: 0 } : null);
    if (i === 0 || (c && (op.independent || !leftOne) && items + c.di <= o.maxItems && bytes + c.db <= o.maxPdu)) {
      take(op);
      items += c.di;
      bytes += c.db;
      continue;
    }
    rest.push(op);
    leftOne = true;
    for (const it of op.items) blocked.add(keyOf(it.addr));
  }
  queue.splice(0, queue.length, ...rest);

  // The job's items: plain ones as they came, then each run of neighbouring DWORDs as one item.
  const out = plain.slice();
  const byDb = new Map();
  for (const [key, value] of words) {
    const [db, byte] = key.split(':').map(Number);
    if (!byDb.has(db)) byDb.set(db, []);
    byDb.get(db).push({ byte, value });
  }
  for (const [db, list] of byDb) {
    list.sort((a, b) => a.byte - b.byte);
    for (let s = 0; s < list.length;) {
      let e = s + 1;
      while (e < list.length && list[e].byte === list[e - 1].byte + 4) e += 1;
      out.push(e - s === 1
        ? { addr: `DB${db},DWORD${list[s].byte}`, value: list[s].value }
        : { addr: `DB${db},DWORD${list[s].byte}.${e - s}`, value: list.slice(s, e).map((w) => w.value) });
      s = e;
    }
  }
  return { ops, items: out };
}

module.exports = { takeBatch, dwordAddr, REQUEST_BYTES, ITEM_BYTES };
