'use strict';
/**
 * One S7 connection to a PLC for the edge, on nodes7 (MIT, pure JavaScript: no compiler on the
 * edge box). No Node-RED here: the `s7twin-plc` config node wraps it.
 *
 * Why not node-red-contrib-s7: it polls no faster than every 50 ms (MIN_CYCLE_TIME) and makes one
 * write per message. A PLC output change then waits 25 ms on average before the edge even sees
 * it. Here:
 * - the I/O table's areas are read as few byte ranges as the table allows (one per area whose
 *   tags lie close together: the demo plant's DB1 is one item `DB1,BYTE0.16`), all in one request
 *   while they fit one PDU (nodes7 packs the items of a read into as few PDUs as the negotiated
 *   size allows), at the PLC's scan period (default 10 ms), never two requests in flight;
 * - a read is started after each write completes, and reads follow each other `readGapMs` apart
 *   until the values change (the PLC has scanned since the write) or for at most `chaseMs`, and
 *   one more read follows an early end a scan later (lib/s7/read-pacer.js): the PLC reacts to a
 *   write within one scan, and the edge sees the reaction within `readGapMs` of that scan instead
 *   of up to a whole read cycle later;
 * - of the probe response slots, only those with a probe waiting are read (lib/s7/probes.js);
 * - every value of one command is written in ONE multi-item write request, and queued writes go
 *   out together (lib/s7/batch.js: probe slots next to each other become one array item);
 * - writes are either done or refused: while the PLC is down write() rejects at once with
 *   E_PLC_DOWN, and writes waiting behind a lost connection are rejected, never written late;
 * - a write with a deadline (lib/core/clock.js time) whose deadline has passed when its turn comes,
 *   or will have before its request reaches the PLC (`transitMs`), is rejected with E_EXPIRED and
 *   never sent: checked when its turn comes and again right before its bytes go to the socket;
 * - a write whose request went out and whose answer did not come (a timeout, the connection lost
 *   or closed on a redeploy) is E_OUTCOME_UNKNOWN: the PLC may have applied it.
 *
 * The parts, each in its own file with its own tests: which writes go out and when they are
 * refused (write-queue.js, batch.js), when the next read is due (read-pacer.js), what a read asks
 * for (read-list.js), the requests of one established connection (session.js), keeping the
 * connection up (reconnector.js) and nodes7 itself (nodes7-client.js). This file wires them and
 * is the interface the s7twin-plc config node and the tests use.
 */
const { EventEmitter } = require('node:events');
const { createBackoff } = require('../core/backoff');
const { MAX_ITEMS } = require('./job');
const { s7Error } = require('./errors');
const { nodes7Address, rangeAddress, writeItem } = require('./address');
const { createWriteQueue } = require('./write-queue');
const { createReadPacer } = require('./read-pacer');
const { createReadList } = require('./read-list');
const { createSession } = require('./session');
const { createReconnector } = require('./reconnector');
const { createNodes7Client, teardown } = require('./nodes7-client');

/**
 * The longest byte range nodes7 (0.3.18) reads as one item: it gathers an item's parts into 8 KiB
 * buffers, and the bytes past them come back with bad quality. Longer ranges are read in parts.
 */
const NODES7_MAX_ITEM_BYTES = 8192;

/**
 * Ranges cut into parts nodes7 reads whole.
 * @returns {Array<{range: number, area: string, db: number, start: number, length: number}>} range: the index of the range it is part of
 */
function itemParts(ranges) {
  const parts = [];
  ranges.forEach((r, i) => {
    for (let off = 0; off < r.length; off += NODES7_MAX_ITEM_BYTES) {
      parts.push({ range: i, area: r.area || 'DB', db: r.db, start: r.start + off, length: Math.min(NODES7_MAX_ITEM_BYTES, r.length - off) });
    }
  });
  return parts;
}

const DEFAULTS = {
  port: 102,
  rack: 0,
  slot: 1,
  cycleMs: 10, // read period = the PLC's scan period; reads never overlap
  // After a write, read readGapMs apart (one request in flight, never overlapping) until the values
  // differ from the first read after the write (the PLC has scanned since: its reaction is in),
  // but at most this long: a write the PLC does not react to changes nothing, and its reaction
  // appears within one scan, so one scan plus a margin. 0 = off. Chasing on after the reaction
  // was seen kept the edge and the PLC re-reading unchanged values while the answer travelled
  // back: one twin probing 26 times a second cost the edge 30 % of a core instead of 17, the PLC
  // 17 % instead of 9 (docs/bridge.md).
  chaseMs: 15,
  // Reads start at least this far apart, unless one is asked for (connect, a snapshot): the
  // probe answers change once a scan, and a read of one PDU takes a fraction of a millisecond. At
  // 1,000 twins, chasing back to back made 6,000 reads a second, costing the edge and the PLC
  // more CPU than reading 4 KB in five PDUs 300 times (docs/bridge.md). A scan's answers wait at
  // most this long for the read that sees them.
  readGapMs: 2,
  // A read that spans several PDUs (the probe blocks of hundreds of twins, a round trip per PDU)
  // is followed by a rest, so that such reads take at most this share of the time. Back to back,
  // they kept the edge and the PLC busy re-reading answers that change once per scan: at 1,000 WAN
  // twins, sending read requests was a third of the edge's JS time. 1 = no rest.
  readDuty: 1 / 3,
  // ... but never longer than this: a read that took long because the edge or the PLC was held up
  // (a GC pause, a busy core) must not be followed by a rest twice as long, while every probe
  // waits for the next read. Unbounded, one 50 ms hiccup became 150 ms of nobody's answer.
  maxRestMs: 5,
  timeoutMs: 1500, // connect and per-request timeout
  // A write must reach the PLC before its deadline: it is not sent when less than this is left.
  // The way from the edge's socket to the PLC's (and into snap7's data block) takes well under a
  // millisecond on a LAN; the margin also covers the edge being descheduled right after the
  // check. Raise it for a PLC behind a slow or congested link.
  transitMs: 5,
  // What every read asks for: byte ranges of the I/O table's areas (table.readRanges()), each
  // {key, area, db, start, length}; without them, bytes 0..ioSize-1 of data block ioDb.
  ranges: null,
  ioDb: 1,
  ioSize: 16,
  maxWrites: 4096, // writes waiting behind the one in progress; more are refused (E_BUSY)
  // An S7 read/write job carries at most 20 variables (the protocol's limit; snap7's server
  // segfaults past it and nodes7 does not split writes): queued writes are merged up to this (and
  // one PDU), and a larger write is split into jobs of this size. Independent writes (probes) to
  // neighbouring DWORDs count as one variable (lib/s7/batch.js).
  maxBatchItems: MAX_ITEMS,
  // Requests nodes7 may have in flight at once when one read spans several PDUs (the probe
  // response blocks under load). nodes7 takes the PLC's offer (8 from snap7's server), but
  // snap7 serves one connection's requests one by one and pipelined requests stall: a 4 KB read
  // in five PDUs took 5.4 ms median with 8 in flight and 0.23 ms with 1 (bench/plc-bench.js, "read DB3").
  // Over a real network to a real PLC, more in flight can pay off; measure before raising it.
  parallelJobs: 1,
  backoff: {}, // lib/core/backoff.js defaults: 200 ms doubling to 5 s, jitter
};

function newCounters() {
  return {
    connects: 0, reconnects: 0, reads: 0, readErrors: 0, writes: 0, writeErrors: 0, refused: 0,
    readPdus: 0, // requests the cyclic reads took (readPdus / reads = requests per read)
    lastReadMs: 0, batched: 0, // writes that went out merged with others in one job
    writeJobs: 0, // write requests sent (writes / writeJobs = writes per request)
    chaseReads: 0, // reads of a chase window after a write (readGapMs apart)
    chaseEnds: 0, // chases ended early: the PLC's scan after the write was seen
    rests: 0, // reads of several PDUs followed by a rest (readDuty)
    expired: 0, // writes whose deadline passed before their turn: rejected, never sent
    onceReads: 0, oncePdus: 0, // one-off reads (readOnce) and the requests they took
  };
}

/**
 * @param {object} opts see DEFAULTS; `host` required; `createClient(o)` makes each attempt's
 *   client (default lib/s7/nodes7-client.js; tests pass a stand-in with the same interface)
 * @returns {EventEmitter & object} events: status(state, detail), connect(), disconnect(err),
 *   data(areas, watchedValues): areas = each area's bytes by key (`{DB1: Buffer}`: byte 0 is the
 *   area's byte 0; bytes outside the read ranges are 0), as the table's decodeBlock takes them
 */
function createS7Connection(opts) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.host) throw s7Error('E_CONFIG', 'PLC host is required');
  const ee = new EventEmitter();
  const counters = newCounters();
  const ranges = o.ranges || [{ key: `DB${o.ioDb}`, area: 'DB', db: o.ioDb, start: 0, length: o.ioSize }];
  const ioAddrs = ranges.map((r) => rangeAddress(r, r.start, r.length));
  const sizes = {};
  for (const r of ranges) sizes[r.key] = Math.max(sizes[r.key] || 0, r.start + r.length);
  /** One read's ranges laid into their areas' bytes. */
  const areasOf = (io) => {
    const out = {};
    for (const [k, n] of Object.entries(sizes)) out[k] = Buffer.alloc(n);
    io.forEach((buf, i) => buf.copy(out[ranges[i].key], ranges[i].start));
    return out;
  };
  const queue = createWriteQueue({ maxWrites: o.maxWrites, maxBatchItems: o.maxBatchItems, transitMs: o.transitMs, counters });
  const pacer = createReadPacer(o, counters);
  const reads = createReadList(ioAddrs);
  const once = []; // one-off reads waiting for their turn (readOnce)
  let session = null; // the requests of the connection up now; null while down
  let state = 'disconnected';
  let maxPdu = null; // the PDU size the PLC negotiated, once connected

  function setState(s, detail) {
    if (s === state) return;
    state = s;
    ee.emit('status', s, detail);
  }

  const link = createReconnector({
    o, counters, backoff: createBackoff(o.backoff), open: o.createClient || createNodes7Client,
    onConnecting: () => setState('connecting'),
    onUp(client) {
      maxPdu = client.maxPdu;
      reads.touch(); // a new client: the first read hands it the list
      session = createSession({
        client, queue, pacer, reads, counters, timeoutMs: o.timeoutMs, ioAddrs, once,
        onData: (io, extra) => ee.emit('data', areasOf(io), extra),
        onFail: (err) => link.fail(client, err),
      });
      setState('connected');
      ee.emit('connect');
      session.start();
    },
    onDown(err, wasUp) {
      const inFlight = endSession();
      if (inFlight) {
        counters.writeErrors += 1;
        // The request went out: the PLC may have applied it before the connection went. Not a
        // refusal (E_PLC_DOWN says nothing was written): the outcome is unknown.
        inFlight.reject(s7Error('E_OUTCOME_UNKNOWN',
          `the PLC connection was lost while the write was in flight (${err.message}): whether it was applied is unknown`));
      }
      queue.refuseAll(err);
      refuseOnce(err);
      if (wasUp) ee.emit('disconnect', err);
      setState('disconnected', err.message);
    },
  });

  /** Refuse the one-off reads waiting (the connection went). */
  function refuseOnce(err) {
    for (const job of once.splice(0)) job.reject(s7Error('E_PLC_DOWN', `the PLC connection went before the read: ${err.message}`));
  }

  /** End the session, if any: @returns {object|null} the write it had in flight */
  function endSession() {
    const inFlight = session ? session.stop() : null;
    session = null;
    return inFlight;
  }

  // defineProperties, not Object.assign: Object.assign would copy the getters' values once.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    get state() { return state; },
    get connected() { return session !== null; },
    /** The PDU size the PLC negotiated (bytes; null before the first connect): what one request carries. */
    get maxPdu() { return maxPdu; },
    get queueDepth() { return queue.length; },
    /** The nodes7 addresses every read asks for, one per range. */
    ioAddrs,
    /** Start connecting (idempotent). */
    start() { link.start(); },
    /**
     * Write several items in one request.
     * @param {Array<{addr: string, value: number|boolean}>} items nodes7 addresses and values
     * @param {{independent?: boolean, deadline?: number}} [opts] independent: no other write's
     *   order against this one matters, except writes to the same addresses (probe slots); such
     *   writes may go out ahead of others queued before them, merged with neighbouring ones
     *   (lib/s7/batch.js). deadline: lib/core/clock.js time after which it must not be sent
     * @returns {Promise<void>} rejects with E_PLC_DOWN, E_BUSY, E_WRITE, E_EXPIRED (nothing written), or
     *   E_OUTCOME_UNKNOWN (the request was sent, and the connection was lost or closed, or the PLC
     *   did not answer it in time); a write split over several jobs rejects once every part
     *   settled, with `written` (the items that were)
     */
    write(items, opts = {}) {
      return new Promise((resolve, reject) => {
        if (!session) {
          counters.refused += 1;
          reject(s7Error('E_PLC_DOWN', `the PLC at ${o.host}:${o.port} is not connected`));
          return;
        }
        if (queue.add(items, opts, resolve, reject)) session.kick();
      });
    },
    /** Ask fn() right before every read for more addresses to read (lib/s7/read-list.js follow). */
    follow: reads.follow,
    /**
     * Read byte ranges once, between the cyclic reads and the writes (one request in flight, as
     * ever): a signal's ring blocks (lib/stream/reader.js). nodes7 packs the ranges into as few
     * requests as the PDU allows, in address order.
     * @param {Array<{area?: 'DB'|'M', db?: number, start: number, length: number}>} ranges
     * @returns {Promise<{buffers: Buffer[], pdus: number}>} each range's bytes, in the order asked;
     *   rejects E_PLC_DOWN (not connected, or the connection went first), E_READ (bad quality)
     */
    readOnce(ranges) {
      return new Promise((resolve, reject) => {
        if (!session) {
          reject(s7Error('E_PLC_DOWN', `the PLC at ${o.host}:${o.port} is not connected`));
          return;
        }
        const parts = itemParts(ranges);
        const done = (res) => resolve({
          buffers: ranges.map((_, i) => Buffer.concat(res.buffers.filter((_b, j) => parts[j].range === i))),
          pdus: res.pdus,
        });
        once.push({ addrs: parts.map((p) => rangeAddress(p, p.start, p.length)), resolve: done, reject });
        session.kick();
      });
    },
    /** Ask for a read as soon as the current request is done. */
    readSoon() {
      pacer.requestRead();
      if (session) session.kick();
    },
    /** Stop: tear the connection down, refuse waiting writes. */
    close() {
      const client = link.close();
      if (client) {
        const inFlight = endSession();
        // Its request went out: the PLC may apply it whatever happens to this connection now.
        const why = 'the connection was closed (a redeploy) with the write request sent: whether it was applied is unknown';
        if (inFlight) inFlight.reject(s7Error('E_OUTCOME_UNKNOWN', why));
        queue.refuseAll(new Error('connection closed'));
        refuseOnce(new Error('connection closed'));
        client.destroy();
      }
      setState('disconnected', 'closed');
      return Promise.resolve();
    },
  }));
}

module.exports = { DEFAULTS, NODES7_MAX_ITEM_BYTES, createS7Connection, itemParts, nodes7Address, writeItem, teardown };
