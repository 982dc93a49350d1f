'use strict';
/**
 * What the virtual PLC still has to write into the snap7 areas that S7 clients write too (the
 * table's data blocks and the M area: inputs, outputs and markers; the probe request block), as
 * S7 write items for the PLC's own S7 client (plc/s7.js). Pure data, no I/O.
 *
 * Why a client: node-snap7 lets JS replace a data block only whole (GetArea, merge, SetArea), and
 * a client write that lands between the two calls is undone. snap7's server writes each item of
 * a client's write job under the area's lock (a bit as a read-modify-write of its byte), so when
 * the PLC writes only its own bytes and bits as S7 items, no other client's write can be undone.
 *
 * Entries are kept by key, the newest value per key: the PLC-owned output bytes of an area
 * ("DB1/o:<byte>"), an input written through another interface ("i:<short>"), a probe slot
 * ("p:<slot>"). One job at a
 * time is in flight; what is queued meanwhile waits for the next job. Until a write has landed,
 * `overlay` lays its value over what the scan reads back from the areas, so the program never
 * sees an older value for a scan.
 */
const { encode } = require('../nodes/lib/core/table/types');
// What one job may hold and what an item costs: nodes/lib/s7/job.js (shared with the edge's writes).
const { MAX_ITEMS, REQUEST_BYTES, itemBytes, createJobBudget } = require('../nodes/lib/s7/job');

const DEFAULTS = {
  maxItems: MAX_ITEMS, // the S7 protocol's limit per job (snap7's server crashes past it)
  pdu: 480, // bytes of one request: snap7's client negotiates 480
};

/**
 * The PLC-owned parts of an area as write items: runs of whole bytes, single bits of shared bytes.
 * @param {Buffer} mask bits the PLC owns (plc/image.js outputMask)
 * @returns {Array<{key:string, start:number, bit:number, len:number}>} bit -1 for bytes
 */
function ownedItems(mask) {
  const out = [];
  for (let b = 0; b < mask.length;) {
    if (mask[b] === 0xff) {
      let e = b + 1;
      while (e < mask.length && mask[e] === 0xff) e += 1;
      out.push({ key: `o:${b}`, start: b, bit: -1, len: e - b });
      b = e;
    } else {
      for (let bit = 0; bit < 8; bit++) if (mask[b] & (1 << bit)) out.push({ key: `o:${b}.${bit}`, start: b, bit, len: 1 });
      b += 1;
    }
  }
  return out;
}

const bitOf = (buf, byte, bit) => (buf[byte] >> bit) & 1;

/** Lay an entry's value over an area's bytes. */
function apply(buf, e) {
  if (e.bit >= 0) buf[e.start] = e.data[0] ? buf[e.start] | (1 << e.bit) : buf[e.start] & ~(1 << e.bit);
  else e.data.copy(buf, e.start);
}

/**
 * @param {{areas?: Array<{key: string, area: 'DB'|'M', db: number, mask: Buffer}>, mask?: Buffer,
 *   ioDb?: number, reqDb: number, maxItems?: number, pdu?: number}} opts the areas clients share
 *   with the PLC, each with the mask of the PLC's bits (or one data block: mask and ioDb)
 */
function createPushQueue(opts) {
  const o = { ...DEFAULTS, ...opts };
  const areas = (o.areas || [{ key: `DB${o.ioDb}`, area: 'DB', db: o.ioDb, mask: o.mask }])
    .map((a) => ({ ...a, owned: ownedItems(a.mask) }));
  const byKey = new Map(areas.map((a) => [a.key, a]));
  const queued = new Map(); // key -> entry {key, kind, area, db, areaKey, start, bit, data, slot?}
  const inflight = new Map();

  /** Queue `data` for an owned part unless the area (or the job in flight) already holds it. */
  function own(a, item, desired, native) {
    const key = `${a.key}/${item.key}`;
    const data = item.bit >= 0 ? Buffer.from([bitOf(desired, item.start, item.bit)]) : null;
    const flying = inflight.get(key);
    let same;
    if (item.bit >= 0) same = (flying ? flying.data[0] : bitOf(native, item.start, item.bit)) === data[0];
    else same = (flying ? flying.data : native.subarray(item.start, item.start + item.len)).equals(desired.subarray(item.start, item.start + item.len));
    if (same) { queued.delete(key); return; }
    queued.set(key, {
      key, kind: 'o', area: a.area, db: a.db, areaKey: a.key, start: item.start, bit: item.bit,
      data: data || Buffer.from(desired.subarray(item.start, item.start + item.len)),
    });
  }

  return {
    /**
     * The PLC's outputs of this scan in one area: queue every owned part that differs from it.
     * @param {Buffer} desired the image's bytes of the area
     * @param {Buffer} native the area as read at scan start
     * @param {string} [key] the area (default: the first)
     */
    outputs(desired, native, key = areas[0].key) {
      const a = byKey.get(key);
      for (const item of a.owned) own(a, item, desired, native);
    },

    /** An input written through another interface (OPC UA, Modbus, MQTT, setInputs). */
    input(tag, value) {
      const { byte, bit, key, area, db } = tag.addr;
      const data = Buffer.from(encode(tag, value));
      queued.set(`i:${tag.short}`, { key: `i:${tag.short}`, kind: 'i', area, db, areaKey: key, start: byte, bit: tag.type === 'BOOL' ? bit : -1, data });
    },

    /** A probe request written through another interface. */
    probe(slot, value) {
      const data = Buffer.alloc(4);
      data.writeUInt32BE(value);
      queued.set(`p:${slot}`, { key: `p:${slot}`, kind: 'p', area: 'DB', db: o.reqDb, start: 4 * slot, bit: -1, data, slot });
    },

    /**
     * Lay inputs and probe requests not yet written (in flight, then queued) over the areas as
     * the scan read them.
     * @param {Object<string, Buffer>|Buffer} bufs the areas' bytes by key (or one data block's)
     * @param {Buffer} db2 the probe requests
     */
    overlay(bufs, db2) {
      for (const m of [inflight, queued]) {
        for (const e of m.values()) {
          if (e.kind === 'i') apply(Buffer.isBuffer(bufs) ? bufs : bufs[e.areaKey], e);
          else if (e.kind === 'p') apply(db2, e);
        }
      }
    },

    get queued() { return queued.size; },
    get busy() { return inflight.size > 0; },

    /**
     * The next job: at most `maxItems` items in one request of at most `pdu` bytes; neighbouring
     * probe slots go as one item. Null while a job is in flight or nothing is queued.
     * @returns {{items: Array<{area: 'DB'|'M', db:number, start:number, bit:number, data:Buffer}>, entries: number}|null}
     */
    take() {
      if (inflight.size || !queued.size) return null;
      const list = [...queued.values()].sort((a, b) => a.area.localeCompare(b.area) || (a.db - b.db) || (a.start - b.start) || (a.bit - b.bit));
      const items = [];
      const budget = createJobBudget({ maxItems: o.maxItems, maxPdu: o.pdu, requestBytes: REQUEST_BYTES.snap7 });
      let cur = null; // the probe run being built
      for (const e of list) {
        if (e.kind === 'p' && cur && cur.area === e.area && cur.db === e.db && cur.start + cur.len === e.start && budget.fits(0, 4)) {
          cur.parts.push(e);
          cur.len += 4;
          budget.add(0, 4);
        } else {
          if (!budget.fits(1, itemBytes(e.data.length))) continue;
          cur = { area: e.area, db: e.db, start: e.start, bit: e.bit, len: e.data.length, parts: [e] };
          items.push(cur);
          budget.add(1, itemBytes(e.data.length));
          if (e.kind !== 'p') cur = null;
        }
      }
      for (const it of items) {
        for (const e of it.parts) { queued.delete(e.key); inflight.set(e.key, e); }
      }
      return {
        items: items.map((it) => ({
          area: it.area, db: it.db, start: it.start, bit: it.bit, data: it.parts.length === 1 ? it.parts[0].data : Buffer.concat(it.parts.map((e) => e.data)),
        })),
        entries: inflight.size,
      };
    },

    /**
     * The job in flight ended. Written: its entries are in the areas. Not written: they go back
     * to the queue, unless a newer value for their key is queued.
     */
    done(written) {
      if (!written) for (const [k, e] of inflight) if (!queued.has(k)) queued.set(k, e);
      inflight.clear();
    },

    /**
     * Everything not yet written, for a write-back without the client (its connection is down):
     * every queued and in-flight entry, newest per key, and the queue emptied.
     */
    drain() {
      const all = new Map(inflight);
      for (const [k, e] of queued) all.set(k, e);
      inflight.clear();
      queued.clear();
      return [...all.values()];
    },
  };
}

module.exports = { createPushQueue, ownedItems, apply, DEFAULTS };
