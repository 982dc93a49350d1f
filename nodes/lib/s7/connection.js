'use strict';
/**
 * One S7 connection to a PLC for the edge, on nodes7 (MIT, pure JavaScript: no compiler on the
 * edge box). No Node-RED here: the `s7twin-plc` config node wraps it.
 *
 * Why not node-red-contrib-s7: it polls no faster than every 50 ms (MIN_CYCLE_TIME) and makes one
 * write per message. A PLC output change then waits 25 ms on average before the edge even sees
 * it. Here:
 * - the whole I/O data block is ONE read item (`DB1,BYTE0.<n>`), read back-to-back at the PLC's
 *   scan period (default 10 ms), never two requests in flight;
 * - a read is started right after each write completes, and reads follow each other back to back
 *   until the values change (the PLC has scanned since the write) or for at most `chaseMs`: the
 *   PLC reacts to a write within one scan, and the edge sees the reaction within one read (a
 *   fraction of a millisecond on a LAN) instead of up to a whole read cycle later;
 * - every value of one command is written in ONE multi-item write request, and queued writes go
 *   out together (lib/s7/batch.js: probe slots next to each other become one array item);
 * - writes are either done or refused: while the PLC is down write() rejects at once with
 *   E_PLC_DOWN, and writes waiting behind a lost connection are rejected, never written late;
 * - a write with a deadline (lib/core/clock.js time) whose deadline has passed when its turn comes is
 *   rejected with E_EXPIRED right before the write request would go out, never sent.
 *
 * nodes7 reconnects by itself on fixed 2-3.5 s timers and keeps timers around after
 * dropConnection(). We do not use that: every connection attempt is a fresh NodeS7 object, any
 * failure tears it down completely (its timers cleared, its socket destroyed) and we reconnect
 * with our own exponential back-off.
 */
const { EventEmitter } = require('node:events');
const { performance } = require('node:perf_hooks');
const NodeS7 = require('nodes7');
const { createBackoff } = require('../core/backoff');
const { takeBatch: batchOf } = require('./batch');
const { MAX_ITEMS } = require('./job');
const clock = require('../core/clock');

const DEFAULTS = {
  port: 102,
  rack: 0,
  slot: 1,
  cycleMs: 10, // read period = the PLC's scan period; reads never overlap
  // After a write, read back to back (one request in flight, never overlapping) until the values
  // differ from the first read after the write (the PLC has scanned since: its reaction is in),
  // but at most this long: a write the PLC does not react to changes nothing, and its reaction
  // appears within one scan, so one scan plus a margin. 0 = off. Chasing on after the reaction
  // was seen kept the edge and the PLC re-reading unchanged values while the answer travelled
  // back: one twin probing 26 times a second cost the edge 30 % of a core instead of 17, the PLC
  // 17 % instead of 9 (docs/bridge.md).
  chaseMs: 15,
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
  ioDb: 1,
  ioSize: 16, // bytes of the I/O block to read (tags.ioDbSize)
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

/** nodes7 values (arrays for ranges) equal? */
function sameValue(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function s7Error(code, message) {
  const err = new Error(message);
  err.code = code;
  return err;
}

const noop = () => {};

/** Stop everything a NodeS7 object has running (it keeps timers even after dropConnection). */
function teardown(inst) {
  if (!inst) return;
  inst.connectCBIssued = true;
  inst.connectCallback = noop;
  inst.readDoneCallback = noop;
  inst.writeDoneCallback = noop;
  for (const t of ['reconnectTimer', 'rereadTimer', 'connectTimeout', 'PDUTimeout', 'resetTimeout', 'dropConnectionTimer']) {
    clearTimeout(inst[t]);
    inst[t] = undefined;
  }
  try { inst.connectionCleanup(); } catch { /* socket already gone */ }
}

/**
 * @param {object} opts see DEFAULTS; `host` required
 * @returns {EventEmitter & object} events: status(state, detail), connect(), disconnect(err),
 *   data(ioBuffer, watchedValues)
 */
function createS7Connection(opts) {
  const o = { ...DEFAULTS, ...opts };
  if (!o.host) throw s7Error('E_CONFIG', 'PLC host is required');
  const ee = new EventEmitter();
  const backoff = createBackoff(o.backoff);
  const ioAddr = `DB${o.ioDb},BYTE0.${o.ioSize}`;
  const watched = new Set();
  const writes = [];
  const counters = {
    connects: 0, reconnects: 0, reads: 0, readErrors: 0, writes: 0, writeErrors: 0, refused: 0,
    lastReadMs: 0, batched: 0, // writes that went out merged with others in one job
    writeJobs: 0, // write requests sent (writes / writeJobs = writes per request)
    chaseReads: 0, // reads made back to back in a chase window after a write
    chaseEnds: 0, // chases ended early: the PLC's scan after the write was seen
    rests: 0, // reads of several PDUs followed by a rest (readDuty)
    expired: 0, // writes whose deadline passed before their turn: rejected, never sent
  };
  let inst = null;
  let itemsDirty = false; // watched items changed since nodes7's item list was last set
  let up = false;
  let busy = null; // the request in progress: {kind, op?}
  let closed = true;
  let state = 'disconnected';
  let tickTimer = null;
  let retryTimer = null;
  let guardTimer = null;
  let nextReadAt = 0;
  let chaseUntil = 0; // reads follow each other back to back until then (after a write)
  let chaseBase = null; // values of the first read of the current chase (see chaseOver)
  let restAt = 0; // no read starts before then (after a read of several PDUs, see readDuty)
  let readNow = false;
  let everUp = false;

  function setState(s, detail) {
    if (s === state) return;
    state = s;
    ee.emit('status', s, detail);
  }

  function connect() {
    retryTimer = null;
    if (closed) return;
    setState('connecting');
    const me = new NodeS7({ silent: true });
    inst = me;
    guard(o.timeoutMs + 1000, () => fail(me, s7Error('E_CONNECT', `no S7 connection to ${o.host}:${o.port} within ${o.timeoutMs} ms`)));
    me.initiateConnection({
      host: o.host, port: o.port, rack: o.rack, slot: o.slot, timeout: o.timeoutMs,
      connection_name: `s7twin ${o.host}:${o.port}`,
    }, (err) => {
      if (me !== inst || closed) return;
      if (err) {
        fail(me, s7Error('E_CONNECT', `cannot connect to the PLC at ${o.host}:${o.port}: ${err.code || err.message || err}`));
        return;
      }
      clearTimeout(guardTimer);
      me.isoclient.setNoDelay(true);
      me.maxParallel = Math.max(1, Math.min(me.maxParallel, o.parallelJobs));
      me.isoclient.on('close', () => fail(me, s7Error('E_PLC_DOWN', 'the PLC closed the connection')));
      me.addItems([ioAddr, ...watched]);
      itemsDirty = false;
      up = true;
      counters.connects += 1;
      if (everUp) counters.reconnects += 1;
      everUp = true;
      backoff.connected();
      setState('connected');
      ee.emit('connect');
      readNow = true;
      tick();
    });
  }

  function guard(ms, onExpire) {
    clearTimeout(guardTimer);
    guardTimer = setTimeout(onExpire, ms);
  }

  /** Tear the connection down, refuse what waits, reconnect after back-off. */
  function fail(me, err) {
    if (me !== inst) return;
    teardown(me);
    inst = null;
    clearTimeout(guardTimer);
    clearTimeout(tickTimer); tickTimer = null;
    const wasUp = up;
    up = false;
    const inFlight = busy;
    busy = null;
    if (inFlight && inFlight.op) {
      counters.writeErrors += 1;
      // The request went out: the PLC may have applied it before the connection went. Not a
      // refusal (E_PLC_DOWN says nothing was written): the outcome is unknown.
      inFlight.op.reject(s7Error('E_OUTCOME_UNKNOWN', `the PLC connection was lost while the write was in flight (${err.message}): whether it was applied is unknown`));
    }
    refuseQueued(err);
    if (wasUp) {
      backoff.disconnected();
      ee.emit('disconnect', err);
    }
    setState('disconnected', err.message);
    if (!closed && !retryTimer) retryTimer = setTimeout(connect, backoff.next());
  }

  /** Reject the queued writes whose deadline has passed: the job about to go out must not hold them. */
  function dropExpired() {
    const t = clock.now();
    let kept = 0;
    for (const w of writes) {
      if (w.deadline !== undefined && t >= w.deadline) {
        counters.expired += 1;
        w.reject(s7Error('E_EXPIRED', `deadline passed ${Math.round(t - w.deadline)} ms before its turn in the write queue: not written`));
      } else {
        writes[kept++] = w;
      }
    }
    writes.length = kept;
  }

  function refuseQueued(err) {
    while (writes.length) {
      counters.refused += 1;
      writes.shift().reject(s7Error('E_PLC_DOWN', `PLC connection lost before the write: ${err.message}`));
    }
  }

  function tick() {
    tickTimer = null;
    if (!up || busy || closed) return;
    const now = Date.now();
    // After a write the next job is a read (the PLC's answer can only be seen that way), so a
    // stream of writes (hundreds of twins' probes) never starves the reads; otherwise writes first.
    // A read of several PDUs is not followed by another before restAt, whatever asks for it.
    if (readNow && now >= restAt) { doRead(); return; }
    if (writes.length) dropExpired();
    if (writes.length) { doWrite(takeBatch()); return; }
    const due = readNow ? restAt : Math.max(nextReadAt, restAt);
    if (now >= due) { doRead(); return; }
    tickTimer = setTimeout(tick, due - now);
  }

  function doRead() {
    const me = inst;
    const started = Date.now();
    const t0 = performance.now();
    // nodes7's item list is changed only here, between requests: changing it while a read is in
    // flight made that read come back with bad quality (and the connection torn down).
    if (itemsDirty) {
      me.removeItems();
      me.addItems([ioAddr, ...watched]);
      itemsDirty = false;
      chaseBase = null; // other items: compare from this read on
    }
    readNow = false;
    busy = { kind: 'read' };
    guard(o.timeoutMs * 2, () => fail(me, s7Error('E_TIMEOUT', 'read timed out')));
    me.readAllItems((bad, values) => {
      if (me !== inst || closed) return;
      clearTimeout(guardTimer);
      busy = null;
      if (bad || !Array.isArray(values[ioAddr])) {
        counters.readErrors += 1;
        fail(me, s7Error('E_READ', 'read failed (bad quality): is the PLC reachable and DB' + o.ioDb + ' big enough?'));
        return;
      }
      counters.reads += 1;
      const now = Date.now();
      counters.lastReadMs = now - started;
      const tookMs = performance.now() - t0;
      if (o.readDuty < 1 && me.readPacketArray.length > 1) {
        restAt = started + tookMs + Math.min(o.maxRestMs, tookMs * (1 / o.readDuty - 1));
        counters.rests += 1;
      }
      if (now < chaseUntil && !chaseOver(values)) {
        counters.chaseReads += 1;
        nextReadAt = now;
      } else {
        nextReadAt = started + o.cycleMs;
      }
      const extra = {};
      for (const a of watched) if (a in values) extra[a] = values[a];
      try {
        ee.emit('data', Buffer.from(values[ioAddr]), extra);
      } finally {
        if (!tickTimer && !busy) tick();
      }
    });
  }

  /**
   * True once a chase has seen the PLC scan: the values differ from those of the chase's first
   * read. Every read of a chase started after the write completed, so a scan that changed them
   * ran after the write too.
   */
  function chaseOver(values) {
    if (!chaseBase) { chaseBase = values; return false; }
    for (const k in values) {
      if (!sameValue(values[k], chaseBase[k])) {
        chaseUntil = 0;
        counters.chaseEnds += 1;
        return true;
      }
    }
    return false;
  }

  /**
   * The next job: the first queued write and those that can join it (lib/s7/batch.js), resolved
   * or rejected together. Each write's items stay together, so each is still all or nothing from
   * its sender's view.
   */
  function takeBatch() {
    const { ops, items } = batchOf(writes, { maxItems: o.maxBatchItems, maxPdu: (inst && inst.maxPDU) || 240 });
    if (ops.length === 1 && items.length === ops[0].items.length) return ops[0];
    return {
      items,
      resolve: () => { for (const op of ops) op.resolve(); },
      reject: (err) => { for (const op of ops) op.reject(err); },
      merged: ops.length,
    };
  }

  function doWrite(op) {
    const me = inst;
    busy = { kind: 'write', op };
    counters.writeJobs += 1;
    guard(o.timeoutMs * 2, () => fail(me, s7Error('E_TIMEOUT', 'write timed out')));
    const rc = me.writeItems(op.items.map((i) => i.addr), op.items.map((i) => i.value), (bad) => {
      if (me !== inst || closed) return;
      clearTimeout(guardTimer);
      busy = null;
      if (bad) {
        counters.writeErrors += 1;
        op.reject(s7Error('E_WRITE', 'the PLC refused the write (bad quality)'));
      } else {
        counters.writes += op.merged || 1;
        if (op.merged) counters.batched += op.merged;
        op.resolve();
      }
      readNow = true; // see the PLC's reaction as soon as it can exist
      if (!bad && o.chaseMs > 0) { chaseUntil = Date.now() + o.chaseMs; chaseBase = null; }
      tick();
    });
    if (rc === 1) { // nodes7 had a write in progress: cannot happen as we serialise, but be safe
      clearTimeout(guardTimer);
      busy = null;
      counters.writeErrors += 1;
      op.reject(s7Error('E_BUSY', 'nodes7 refused the write: another write is in progress'));
      tick();
    }
  }

  // defineProperties, not Object.assign: Object.assign would copy the getters' values once.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    counters,
    get state() { return state; },
    get connected() { return up; },
    get queueDepth() { return writes.length; },
    ioAddr,
    /** Start connecting (idempotent). */
    start() {
      if (!closed) return;
      closed = false;
      connect();
    },
    /**
     * Write several items in one request.
     * @param {Array<{addr: string, value: number|boolean}>} items nodes7 addresses and values
     * @param {{independent?: boolean, deadline?: number}} [opts] independent: no other write's
     *   order against this one matters, except writes to the same addresses (probe slots); such
     *   writes may go out ahead of others queued before them, merged with neighbouring ones
     *   (lib/s7/batch.js). deadline: lib/core/clock.js time after which it must not be sent
     * @returns {Promise<void>} rejects with E_PLC_DOWN, E_BUSY, E_WRITE, E_EXPIRED (nothing written), or
     *   E_OUTCOME_UNKNOWN (the connection was lost with the request sent)
     */
    write(items, opts = {}) {
      const independent = opts.independent === true;
      const deadline = typeof opts.deadline === 'number' ? opts.deadline : undefined;
      return new Promise((resolve, reject) => {
        if (!up) {
          counters.refused += 1;
          reject(s7Error('E_PLC_DOWN', `the PLC at ${o.host}:${o.port} is not connected`));
          return;
        }
        if (writes.length >= o.maxWrites) {
          counters.refused += 1;
          reject(s7Error('E_BUSY', `${writes.length} writes already waiting`));
          return;
        }
        if (items.length <= o.maxBatchItems) {
          writes.push({ items, resolve, reject, independent, deadline });
        } else {
          // Only probes (many slots in one frame) get here; a command has at most the table's
          // inputs. Each part is written in order; the whole resolves when all parts did.
          const parts = [];
          for (let i = 0; i < items.length; i += o.maxBatchItems) {
            parts.push(new Promise((res, rej) => writes.push({ items: items.slice(i, i + o.maxBatchItems), resolve: res, reject: rej, independent, deadline })));
          }
          Promise.all(parts).then(() => resolve(), reject);
        }
        if (!busy && !tickTimer) tick();
        else if (!busy) { clearTimeout(tickTimer); tick(); }
      });
    },
    /** Read `addr` (nodes7 syntax) with every cycle until unwatch(). */
    watch(addr) {
      if (watched.has(addr)) return;
      watched.add(addr);
      itemsDirty = true;
    },
    unwatch(addr) {
      if (!watched.delete(addr)) return;
      itemsDirty = true;
    },
    /** Ask for a read as soon as the current request is done. */
    readSoon() {
      readNow = true;
      if (up && !busy) { clearTimeout(tickTimer); tick(); }
    },
    /** Stop: tear the connection down, refuse waiting writes. */
    close() {
      closed = true;
      clearTimeout(retryTimer); retryTimer = null;
      clearTimeout(tickTimer); tickTimer = null;
      clearTimeout(guardTimer);
      if (inst) {
        const me = inst;
        inst = null;
        if (busy && busy.op) busy.op.reject(s7Error('E_PLC_DOWN', 'connection closed'));
        busy = null;
        refuseQueued(new Error('connection closed'));
        teardown(me);
      }
      up = false;
      setState('disconnected', 'closed');
      return Promise.resolve();
    },
  }));
}

/**
 * The nodes7 address of a tag from the dictionary (BOOL → X, INT, DINT, UDINT → DWORD).
 * @param {{addr: {db:number, type:string, byte:number, bit:number}}} tag
 */
function nodes7Address(tag) {
  const { db, type, byte, bit } = tag.addr;
  switch (type) {
    case 'BOOL': return `DB${db},X${byte}.${bit}`;
    case 'INT': return `DB${db},INT${byte}`;
    case 'DINT': return `DB${db},DINT${byte}`;
    case 'UDINT': return `DB${db},DWORD${byte}`;
    default: throw s7Error('E_TYPE', `no nodes7 address for type ${type}`);
  }
}

module.exports = { DEFAULTS, createS7Connection, nodes7Address, teardown };
