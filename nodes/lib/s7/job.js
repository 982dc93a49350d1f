'use strict';
/**
 * What fits in one S7 write job: the one budget of the edge's writes (nodes/lib/s7/batch.js, over
 * nodes7) and the virtual PLC's own (plc/s7-push.js, over snap7's client). A job carries at most
 * MAX_ITEMS items (the S7 protocol's limit per job; snap7's server crashes past it) in one request
 * of at most the negotiated PDU size; what each item costs is the same for both clients, what a
 * request costs before its items is each client's own.
 */

/** Items per write job at most. */
const MAX_ITEMS = 20;
/** Bytes per item besides its data: 12 of address, 4 of data header. */
const ITEM_BYTES = 16;
/**
 * Bytes of a write request before its items: 10 header + function code + item count as snap7's
 * client packs it (12); nodes7's packetizer reserves 4 there (14).
 */
const REQUEST_BYTES = { snap7: 12, nodes7: 14 };

/** Bytes an item of `dataBytes` costs (odd data lengths are padded to even). */
const itemBytes = (dataBytes) => ITEM_BYTES + dataBytes + (dataBytes % 2);

/**
 * The room left in one job.
 * @param {{maxItems?: number, maxPdu: number, requestBytes: number}} o
 * @returns {{fits(items: number, bytes: number): boolean, add(items: number, bytes: number): void,
 *   readonly items: number, readonly bytes: number}}
 */
function createJobBudget(o) {
  const maxItems = o.maxItems || MAX_ITEMS;
  let items = 0;
  let bytes = o.requestBytes;
  return {
    /** Whether `items` more items of `bytes` more bytes still fit. */
    fits: (di, db) => items + di <= maxItems && bytes + db <= o.maxPdu,
    add(di, db) { items += di; bytes += db; },
    get items() { return items; },
    get bytes() { return bytes; },
  };
}

module.exports = { MAX_ITEMS, ITEM_BYTES, REQUEST_BYTES, itemBytes, createJobBudget };
