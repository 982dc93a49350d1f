'use strict';
/**
 * A stand-in for one PLC connection with the interface of nodes/lib/s7/nodes7-client.js, driven by
 * the test: every connect, read and write waits until the test answers it, so the S7 session and
 * connection can be tested without a PLC and without timing.
 */

/**
 * @param {{ioAddr?: string, ioBytes?: number}} [o]
 * @returns {object} the client, plus `connects`, `itemLists`, `reads`, `writes`, `destroyed` to
 *   look at and `up()`, `refuse(err)`, `drop()`, `answerRead()`, `answerWrite()` to drive it
 */
function createFakeS7Client(o = {}) {
  const ioAddr = o.ioAddr || 'DB1,BYTE0.16';
  const ioBytes = o.ioBytes || 16;
  const c = {
    connects: [], // pending connect callbacks: {onDone, onClose}
    itemLists: [], // every list setItems() was given
    reads: [], // pending read callbacks
    writes: [], // pending writes: {items, cb}
    destroyed: false,
    takesWrites: true, // false: write() refuses as nodes7 does with a write in progress
    maxPdu: 240,
    connect(onDone, onClose) { c.connects.push({ onDone, onClose }); },
    setItems(list) { c.itemLists.push(list); },
    read(cb) { c.reads.push(cb); },
    write(items, cb) {
      if (!c.takesWrites) return false;
      c.writes.push({ items, cb });
      return true;
    },
    destroy() { c.destroyed = true; },

    /** The connection attempt succeeds. */
    up() { c.connects[0].onDone(); },
    /** The connection attempt fails. */
    refuse(err = new Error('ECONNREFUSED')) { c.connects[0].onDone(err); },
    /** The PLC closes the established connection. */
    drop() { c.connects[0].onClose(); },
    /** Answer the oldest read: the I/O block (`io` bytes, zeros by default) plus `extra` items. */
    answerRead({ io, extra = {}, bad = false, pdus = 1 } = {}) {
      const values = { [ioAddr]: io || new Array(ioBytes).fill(0), ...extra };
      c.reads.shift()(bad, values, pdus);
    },
    /** Answer the oldest write (bad: the PLC refused it). */
    answerWrite(bad = false) { c.writes.shift().cb(bad); },
  };
  return c;
}

module.exports = { createFakeS7Client };
