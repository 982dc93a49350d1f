'use strict';
/**
 * One nodes7 connection behind a narrow interface (connect, set the read items, read, write,
 * destroy): everything the edge knows about nodes7's object, its callbacks and the private fields
 * it must clear, is in this file. The session (lib/s7/session.js) calls only this interface, so
 * its tests drive a stand-in, and whatever must happen right before bytes go to the PLC's socket
 * has one place to happen.
 *
 * nodes7 reconnects by itself on fixed 2-3.5 s timers and keeps timers around after
 * dropConnection(). We do not use that: every connection attempt is a fresh NodeS7 object, any
 * failure tears it down completely (teardown(): its timers cleared, its socket destroyed), and
 * lib/s7/reconnector.js reconnects with our own exponential back-off.
 *
 * Two things about a write happen here because only here can they be seen:
 * - the last deadline check. nodes7 builds a write request (several 8 KiB buffers per item; with
 *   the garbage collections they set off, 10-78 ms in a profile of the edge under load) before it
 *   puts the bytes on the socket. A write may carry a gate, asked right before that, after the
 *   build: closed, nothing is sent, and nodes7 is left as if no write had been asked for;
 * - whether a failed write left the socket. nodes7's own packet timer (the connection's timeout)
 *   answers a write the PLC never answered as a bad write, though its request went out and the
 *   PLC may still apply it when it resumes: the callback says `timedOut` then.
 */
const NodeS7 = require('nodes7');

const noop = () => {};
const NODES7_TIMERS = ['reconnectTimer', 'rereadTimer', 'connectTimeout', 'PDUTimeout', 'resetTimeout', 'dropConnectionTimer'];
const DEFAULT_PDU = 240; // the smallest PDU an S7 CPU offers, until the connection says otherwise

/**
 * Stop everything a NodeS7 object has running (it keeps timers even after dropConnection).
 * @param {object|null} inst a NodeS7 object
 */
function teardown(inst) {
  if (!inst) return;
  inst.connectCBIssued = true;
  inst.connectCallback = noop;
  inst.readDoneCallback = noop;
  inst.writeDoneCallback = noop;
  for (const t of NODES7_TIMERS) {
    clearTimeout(inst[t]);
    inst[t] = undefined;
  }
  try { inst.connectionCleanup(); } catch { /* socket already gone */ }
}

/**
 * A fresh nodes7 connection (not yet connecting).
 * @param {{host: string, port: number, rack: number, slot: number, timeoutMs: number,
 *   parallelJobs: number}} o
 * @returns {{connect(onDone: (err?: Error) => void, onClose: () => void): void,
 *   setItems(addrs: string[]): void, read(cb: (bad: boolean, values: object, pdus: number) => void): void,
 *   write(items: Array<{addr: string, value: *}>, cb: (bad: boolean, info: {timedOut: boolean}) => void,
 *     gate?: () => boolean): 'sent'|'busy'|'late',
 *   readonly maxPdu: number, destroy(): void}}
 */
function createNodes7Client(o) {
  const inst = new NodeS7({ silent: true });
  let hasItems = false;
  let gate = null; // the write's last check, right before its bytes go out
  let refused = false; // the gate said no: nothing was sent
  let timedOut = false; // nodes7's packet timer answered the write, not the PLC
  // Per object, over nodes7's own steps: writeItems() builds the request, then sendWritePacket()
  // puts it on the socket (writeResponse() is called with the PLC's answer, or with nothing by
  // the packet timer). Skipping sendWritePacket() leaves no packet marked sent: nodes7 takes the
  // next writeItems() as if this one had never been asked for.
  inst.sendWritePacket = function sendWritePacket() {
    if (gate && !gate()) { refused = true; return undefined; }
    return NodeS7.prototype.sendWritePacket.call(this);
  };
  inst.writeResponse = function writeResponse(data, index) {
    if (data === undefined) timedOut = true;
    return NodeS7.prototype.writeResponse.call(this, data, index);
  };
  return {
    /** Connect; onDone(err) once; onClose when the PLC closes an established connection. */
    connect(onDone, onClose) {
      inst.initiateConnection({
        host: o.host, port: o.port, rack: o.rack, slot: o.slot, timeout: o.timeoutMs,
        connection_name: `s7twin ${o.host}:${o.port}`,
      }, (err) => {
        if (err) { onDone(err); return; }
        inst.isoclient.setNoDelay(true);
        inst.maxParallel = Math.max(1, Math.min(inst.maxParallel, o.parallelJobs));
        inst.isoclient.on('close', onClose);
        onDone();
      });
    },
    /** The items every read asks for (call between requests only: see session.js). */
    setItems(addrs) {
      if (hasItems) inst.removeItems();
      inst.addItems(addrs);
      hasItems = true;
    },
    /** Read every item; pdus = the requests the read took. */
    read(cb) {
      inst.readAllItems((bad, values) => cb(bad, values, inst.readPacketArray.length));
    },
    /**
     * Write in one request.
     * @param {Array<{addr: string, value: *}>} items
     * @param {(bad: boolean, info: {timedOut: boolean}) => void} cb once, unless it was not sent
     * @param {() => boolean} [gate] asked right before the bytes go to the socket: false, not sent
     * @returns {'sent'|'busy'|'late'} busy: nodes7 had a write in progress; late: the gate said no
     */
    write(items, cb, g) {
      gate = g || null;
      refused = false;
      timedOut = false;
      const taken = inst.writeItems(items.map((i) => i.addr), items.map((i) => i.value), (bad) => cb(bad, { timedOut })) !== 1;
      gate = null;
      if (!taken) return 'busy';
      return refused ? 'late' : 'sent';
    },
    get maxPdu() { return inst.maxPDU || DEFAULT_PDU; },
    destroy() { teardown(inst); },
  };
}

module.exports = { createNodes7Client, teardown };
