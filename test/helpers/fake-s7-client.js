'use strict';
/**
 * A stand-in for one PLC connection with the interface of nodes/lib/s7/nodes7-client.js, driven by
 * the test: every connect, read and write waits until the test answers it, so the S7 session and
 * connection can be tested without a PLC and without timing.
 */

/**
 * @param {{ioAddr?: string, ioBytes?: number}} [o]
 * @returns {object} the client, plus `connects`, `itemLists`, `reads`, `writes`, `held`, `destroyed`
 *   to look at, `beforeSend` (called right before a write's bytes would go out, after the request
 *   was built: a test moves its clock there) and `up()`, `refuse(err)`, `drop()`, `answerRead()`,
 *   `answerWrite()` to drive it
 */
function createFakeS7Client(o = {}) {
  const ioAddr = o.ioAddr || 'DB1,BYTE0.16';
  const ioBytes = o.ioBytes || 16;
  const c = {
    connects: [], // pending connect callbacks: {onDone, onClose}
    itemLists: [], // every list setItems() was given
    reads: [], // pending read callbacks
    writes: [], // pending writes: {items, cb}
    held: [], // writes whose gate said no right before they would have gone out: never sent
    destroyed: false,
    takesWrites: true, // false: write() refuses as nodes7 does with a write in progress
    beforeSend: null,
    maxPdu: 240,
    connect(onDone, onClose) { c.connects.push({ onDone, onClose }); },
    setItems(list) { c.itemLists.push(list); },
    read(cb) { c.reads.push(cb); },
    write(items, cb, gate) {
      if (!c.takesWrites) return 'busy';
      if (c.beforeSend) c.beforeSend(items);
      if (gate && !gate()) { c.held.push(items); return 'late'; }
      c.writes.push({ items, cb });
      return 'sent';
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
    /**
     * Answer the oldest write (bad: not done; `timedOut`: the PLC never answered, as nodes7 reports
     * a write its own timer gave up on).
     */
    answerWrite(bad = false, info = {}) { c.writes.shift().cb(bad, info); },
  };
  return c;
}

module.exports = { createFakeS7Client };
