'use strict';
/**
 * The virtual PLC's own S7 client, through which a scan writes into the areas that S7 clients
 * write too (plc/s7.js says why). One job at a time (plc/s7-push.js decides what it holds),
 * asynchronously: snap7's client polls for the answer in 1 ms sleeps, so a blocking call would
 * stall the scan. When the connection fails, the job's entries go back to the queue and the scan
 * writes back without the client (read, merge, replace: counter s7PushFallbacks) until it has
 * reconnected, with back-off.
 */
const { createBackoff } = require('../nodes/lib/core/backoff');
const { apply } = require('./s7-push');
const { sig } = require('./s7-events');

/**
 * A push queue job's items as node-snap7 WriteMultiVars variables (bits as single bits, bytes
 * as byte ranges of a data block or the M area).
 * @param {{S7AreaDB: number, S7AreaMK: number, S7WLBit: number, S7WLByte: number}} client node-snap7's constants
 * @param {Array<{area?: 'DB'|'M', db: number, start: number, bit: number, data: Buffer}>} items
 */
function toVars(client, items) {
  return items.map((it) => ({
    Area: it.area === 'M' ? client.S7AreaMK : client.S7AreaDB, DBNumber: it.area === 'M' ? 0 : it.db, Amount: it.bit >= 0 ? 1 : it.data.length,
    WordLen: it.bit >= 0 ? client.S7WLBit : client.S7WLByte, Start: it.bit >= 0 ? it.start * 8 + it.bit : it.start, Data: it.data,
  }));
}

/** The server's write-event keys (plc/s7-events.js sig) of a job's items. */
const keysOf = (items) => items.map((it) => sig(it.db, it.start, it.bit >= 0 ? 1 : it.data.length));

/** Something native in flight, and a promise that settles when it is done (stop waits for it). */
function settling(what) {
  let settle;
  const done = new Promise((r) => { settle = r; });
  return { what, done, settle };
}

/**
 * @param {object} l
 * @param {object} l.client a connected node-snap7 S7Client (or a stand-in)
 * @param {(e: {area: string, db: number}) => Buffer} l.getArea an area's bytes from the server
 * @param {(e: {area: string, db: number}, buf: Buffer) => void} l.setArea replace an area's bytes
 * @param {object} l.queue plc/s7-push.js createPushQueue
 * @param {object} l.events plc/s7-events.js: the own client's events announced there
 * @param {{s7PushJobs: number, s7PushErrors: number, s7PushFallbacks: number}} l.counters
 * @param {string} l.host where the client reaches the server
 * @param {{initialMs: number, maxMs: number}} [l.backoff]
 * @returns {{flush(): void, stop(): Promise<void>, readonly up: boolean}}
 */
function createOwnClient(l) {
  const { client, queue, events, counters: c } = l;
  const backoff = createBackoff(l.backoff || { initialMs: 50, maxMs: 2000 });
  let stopped = false;
  let up = true; // the client is connected
  let job = null; // the client's call in flight (a write job or a reconnect)
  let retryTimer = null;

  /** Send the next queued job through the client, if none is in flight. */
  function kick() {
    if (stopped || !up || job || queue.busy) return;
    const next = queue.take();
    if (!next) return;
    const vars = toVars(client, next.items);
    const keys = keysOf(next.items);
    events.writing(keys);
    c.s7PushJobs += 1;
    const mine = settling(vars); // vars keeps the buffers alive until the native side is done
    job = mine;
    const failed = () => {
      // The connection is gone (snap7 reports no per-job detail worth keeping): the entries go
      // back to the queue, the scan writes them back without the client until it is back.
      c.s7PushErrors += 1;
      events.writeFailed(keys);
      queue.done(false);
      lost();
    };
    try {
      client.WriteMultiVars(vars, (err, res) => {
        mine.settle();
        job = null;
        if (stopped) return;
        if (err) { failed(); return; }
        // An item the server refused (cannot happen for the PLC's own areas) is counted, not retried.
        if (Array.isArray(res)) for (const r of res) if (r && r.Result) c.s7PushErrors += 1;
        queue.done(true);
        kick();
      });
    } catch {
      mine.settle();
      job = null;
      failed();
    }
  }

  /** The connection failed: write back without it, reconnect with back-off. */
  function lost() {
    if (!up) return;
    up = false;
    events.disconnecting();
    try { client.Disconnect(); } catch { /* already down */ }
    fallback();
    reconnect();
  }

  function reconnect() {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (stopped) return;
      events.connecting();
      const mine = settling('connect'); // nothing is written while down, so the slot is free
      job = mine;
      client.ConnectTo(l.host, 0, 1, (err) => {
        mine.settle();
        job = null;
        if (stopped) return;
        if (err) { events.connectFailed(); reconnect(); return; }
        up = true;
        backoff.connected();
        kick();
      });
    }, backoff.next());
  }

  /**
   * Write back without the client: each area read, merged and replaced whole. A client write
   * landing between GetArea and SetArea is undone, so this runs only while the client is down.
   */
  function fallback() {
    const entries = queue.drain();
    if (!entries.length) return;
    c.s7PushFallbacks += 1;
    const byArea = new Map(); // "DB1", "M" -> entries
    for (const e of entries) {
      const k = e.area === 'M' ? 'M' : `DB${e.db}`;
      if (!byArea.has(k)) byArea.set(k, []);
      byArea.get(k).push(e);
    }
    for (const list of byArea.values()) {
      const cur = l.getArea(list[0]);
      for (const e of list) apply(cur, e);
      l.setArea(list[0], cur);
    }
  }

  return {
    get up() { return up; },
    /** What the scan queued goes out: through the client when it is up, else written back. */
    flush() { if (up) kick(); else fallback(); },
    /** No more jobs or reconnects; resolves when the call in flight is done (2 s at most). */
    async stop() {
      stopped = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      if (job) await Promise.race([job.done, new Promise((r) => setTimeout(r, 2000).unref())]);
    },
  };
}

module.exports = { createOwnClient, toVars, keysOf };
