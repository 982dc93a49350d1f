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
 * Changing the items of a read or a write is cheap here. nodes7 parses every address of a new
 * list into an item with four zero-filled 8 KiB buffers and clones each again for its request
 * (a read of 16 small ranges cost more than reading 4 KB; a write item cost 96 KiB). The probe
 * response ranges change with nearly every read under load (lib/s7/probes.js) and every write
 * job names other probe slots, so this file keeps the items (createItemPool): an address seen
 * before reuses its item, a DWORD range (`DBn,DWORDo.len`) takes one no longer in use and is
 * re-aimed. A read request is laid out here, one request item per address, at most MAX_ITEMS per
 * PDU (fastPrepare); a write's items are cloned shallow. A list nodes7's own way would split over
 * several requests goes that way.
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
const { MAX_ITEMS } = require('./job');

const noop = () => {};
const NODES7_TIMERS = ['reconnectTimer', 'rereadTimer', 'connectTimeout', 'PDUTimeout', 'resetTimeout', 'dropConnectionTimer'];
const DEFAULT_PDU = 240; // the smallest PDU an S7 CPU offers, until the connection says otherwise
const KEPT_ITEMS = 256; // items kept per pool for addresses other than DWORD ranges (I/O ranges, tags written): more go the stock way
const DWORD_RANGE = /^DB(\d+),DWORD(\d+)(?:\.(\d+))?$/;

/** An S7Item's clone without S7Item's four fresh 8 KiB buffers (prepareWritePacket replaces them by slices). */
function shallowClone() { return { ...this }; }

/**
 * Items kept by address for a connection, so a list that changes does not make nodes7 parse every
 * address into a new item: an address seen before gets its item back, a DWORD range
 * (`DBn,DWORDo.len`) one no longer in use, re-aimed.
 * @param {(addr: string) => object|undefined} parse nodes7's own parsing of an address
 * @param {number} overhead bytes one item costs a request besides its data
 * @returns {(addrs: string[], maxPdu: number) => object[]|null} the items, or null when one is not
 *   kept (more than KEPT_ITEMS other addresses, one nodes7 cannot parse) or needs more than one PDU
 */
function createItemPool(parse, overhead) {
  const kept = new Map(); // address -> its item (addresses other than DWORD ranges)
  const ranges = new Map(); // DWORD range address -> the item aimed at it now
  const spare = []; // DWORD range items no list uses now, to be re-aimed
  return (addrs, maxPdu) => {
    const want = new Set(addrs);
    for (const [a, it] of ranges) if (!want.has(a)) { ranges.delete(a); if (spare.length < KEPT_ITEMS) spare.push(it); }
    const out = [];
    for (const a of addrs) {
      let it = kept.get(a) || ranges.get(a);
      const m = it ? null : DWORD_RANGE.exec(a);
      if (m) {
        it = spare.pop() || parse(`DB${m[1]},DWORD0`);
        const n = m[3] === undefined ? 1 : Number(m[3]);
        Object.assign(it, {
          addr: a, useraddr: a, dbNumber: Number(m[1]), offset: Number(m[2]), arrayLength: n, byteLength: 4 * n,
          byteLengthWithFill: 4 * n, value: undefined, quality: undefined, valid: false, errCode: undefined,
        });
        ranges.set(a, it);
      } else if (!it) {
        if (kept.size >= KEPT_ITEMS) return null;
        it = parse(a);
        if (!it) return null;
        kept.set(a, it);
      }
      if (!it.byteLength || it.byteLengthWithFill + overhead > maxPdu) return null;
      out.push(it);
    }
    return out;
  };
}

/**
 * Lay out a read of `items` (nodes7 items, each read whole in one request item) into requests of
 * at most one PDU and MAX_ITEMS items, as nodes7's prepareReadPacket would for items it neither
 * merges nor splits: no item is cloned, each is its own block and its own request.
 * @param {object} inst the NodeS7 object
 * @param {object[]} items
 */
function fastPrepare(inst, items) {
  inst.globalReadBlockList = items;
  inst.readReqHeader.copy(inst.readReq, 0); // what nodes7's own layout does first
  inst.clearReadPacketTimeouts();
  inst.readPacketArray = [];
  let packet = null;
  let reply = 0;
  items.forEach((it, i) => {
    it.block = i;
    it.parts = 1;
    it.isOptimized = false;
    it.itemReference = [it];
    it.requestReference = [it];
    const need = it.byteLengthWithFill + 4;
    if (!packet || reply + need > inst.maxPDU || 12 + 12 * (packet.itemList.length + 1) > inst.maxPDU || packet.itemList.length >= MAX_ITEMS) {
      packet = { seqNum: 0, itemList: [], reqTime: undefined, sent: false, rcvd: false, timeoutError: undefined, timeout: undefined };
      inst.readPacketArray.push(packet);
      reply = 14;
    }
    packet.itemList.push(it);
    reply += need;
  });
  inst.readPacketValid = true;
}

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
  let fastItems = null; // the cyclic read's items when this file lays the read out, else null (nodes7's own way)
  /** A nodes7 item parsed by nodes7 itself (not in its read list). */
  function parsed(addr) {
    const list = inst.polledReadBlockList;
    inst.polledReadBlockList = [];
    inst.addItemsNow(addr);
    const item = inst.polledReadBlockList[0];
    inst.polledReadBlockList = list;
    return item;
  }
  // Two pools: a read's items keep their values while a write goes out, and the other way round.
  const readItems = createItemPool(parsed, 18); // a read item's data + 4 bytes + the 14 of the reply header
  const writeItems = createItemPool(parsed, 30); // a write item's data + 16 bytes + the 14 of the request header
  inst.prepareReadPacket = function prepareReadPacket() {
    if (fastItems) fastPrepare(this, fastItems);
    else NodeS7.prototype.prepareReadPacket.call(this);
  };
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
  // A write of items from the pool: nodes7's writeItems() without parsing (stringToS7Addr), and
  // its two clones per item in prepareWritePacket() shallow (the request items get slices of the
  // item's buffers there anyway). A write whose items are not all pooled, or that names an
  // address twice, goes nodes7's own way.
  inst.writeItems = function pooledWriteItems(arg, value, cb) {
    if (this.isWriting() || this.writeInQueue) return 1;
    const items = Array.isArray(arg) && Array.isArray(value) && arg.length === value.length && new Set(arg).size === arg.length && this.maxPDU
      ? writeItems(arg, this.maxPDU) : null;
    if (!items) return NodeS7.prototype.writeItems.call(this, arg, value, cb);
    this.writeDoneCallback = typeof cb === 'function' ? cb : noop;
    items.forEach((it, i) => {
      it.writeValue = value[i];
      it.writeQualityBuffer.fill(0xFF); // BAD until the PLC's answer says otherwise, whatever the last write left
      it.clone = shallowClone;
    });
    this.instantWriteBlockList = items;
    this.prepareWritePacket();
    if (!this.isReading()) this.sendWritePacket();
    else this.writeInQueue = true;
    return 0;
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
    /**
     * The items every read asks for (call between requests only: see session.js). Cheap for
     * addresses seen before and for DWORD ranges, however often the list changes.
     */
    setItems(addrs) {
      fastItems = inst.maxPDU ? readItems(addrs, inst.maxPDU) : null;
      if (fastItems) {
        inst.addRemoveArray = [];
        inst.polledReadBlockList = fastItems;
        inst.readPacketValid = false;
        hasItems = true;
        return;
      }
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
