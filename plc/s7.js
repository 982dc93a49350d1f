'use strict';
/**
 * S7comm interface of the virtual PLC: node-snap7's S7Server (rack 0, slot 1) serving DB1, DB2,
 * DB3 and MK of the process image.
 *
 * How node-snap7 shares memory with JS (read in node_modules/node-snap7/src/node_snap7_server.cpp):
 * - RegisterArea() COPIES the JS buffer into native memory; the JS buffer is not shared afterwards.
 * - GetArea() returns a fresh copy of the native area, SetArea() overwrites the WHOLE area; both
 *   take the area's lock (the same mutex the server's worker threads take for word/byte access).
 * - LockArea()/UnlockArea() take that mutex too, but it is a non-recursive pthread mutex, so
 *   calling GetArea/SetArea while holding it would deadlock: the lock cannot span a
 *   read-modify-write from JS.
 * - Resourceless mode (a JS callback per access) would serve every read through the event loop
 *   and its callback cannot return an error, so a read of an unknown DB would succeed with zeros.
 *
 * So a scan reads DB1 and DB2 with GetArea (pull), but writes into them (push) only through its
 * own S7 client connected to this server: its output bytes, the inputs and probe requests that
 * other interfaces wrote, each as an S7 write item (plc/s7-push.js), which snap7 applies under
 * the area's lock as it does any client's. A GetArea-merge-SetArea write-back undid a client
 * write that landed between the two calls (the OS can preempt the thread there): it stalled a CI
 * run's production with a lost Piston1Front. The client writes asynchronously (snap7's client
 * polls for the answer in 1 ms sleeps, so a blocking call would stall the scan for a millisecond),
 * one job at a time; until a write has landed the pull lays its value over what it read. Only
 * while that connection is down does the scan fall back to the merge (counter s7PushFallbacks).
 * DB3 and MK are written by the PLC only, with SetArea.
 *
 * node-snap7 keeps its async handles in static globals: two S7Server instances in one process
 * corrupt each other. One server object is therefore shared by the whole process and owned by at
 * most one running PLC at a time (E_S7_IN_USE otherwise).
 */
const snap7 = require('node-snap7');
const tags = require('../nodes/lib/core/tags');
const { PlcError } = require('./errors');
const { createBackoff } = require('../nodes/lib/core/backoff');
const { createPushQueue, apply } = require('./s7-push');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 10102, // ISO-on-TCP; 102 needs root
};

const { S7Server } = snap7;
const K = S7Server.prototype; // node-snap7 puts its constants on the prototype, not the class
const AREA_DB = K.srvAreaDB;
const AREA_MK = K.srvAreaMK;
const IO_DB = tags.TABLE.plc.ioDb;
const REQ_DB = tags.TABLE.plc.probeRequestDb;
const RES_DB = tags.TABLE.plc.probeResponseDb;
// Events worth a JS callback. Data reads never reach JS (snap7 routes them to a read-event
// callback node-snap7 does not install); data writes do, with a return code we count.
const EVENT_MASK = (K.evcClientAdded | K.evcClientRejected | K.evcClientNoRoom | K.evcClientException
  | K.evcClientDisconnected | K.evcClientTerminated | K.evcListenerCannotStart | K.evcDataWrite) >>> 0;

let shared = null; // the one S7Server of this process
let owner = null; // the handler of the PLC that currently owns it

function sharedServer() {
  if (!shared) {
    shared = new S7Server();
    shared.on('event', (ev) => { if (owner) owner(ev); });
  }
  return shared;
}

/** Where the PLC's own client reaches a server listening on `host`. */
const selfHost = (host) => (!host || host === '0.0.0.0' ? '127.0.0.1' : host);

/**
 * Start the S7 server over a process image.
 * @param {object} image from createImage()
 * @param {{host?: string, port: number, counters: object, createClient?: () => object}} opts port
 *   must be a real port (the caller picks a free one for 0: snap7 cannot report the port it
 *   bound); createClient makes the PLC's own S7 client (default a node-snap7 S7Client; tests wrap
 *   one to make its writes fail)
 * @returns {{port:number, pull():void, push(applied):void, stop():Promise<void>}}
 * @throws {PlcError} E_S7_IN_USE, E_S7_START
 */
function startS7(image, opts) {
  const cfg = { ...DEFAULTS, ...opts };
  const c = cfg.counters;
  if (owner) throw new PlcError('E_S7_IN_USE', 'this process already runs a virtual PLC with S7 on (node-snap7 allows one server per process)');
  const srv = sharedServer();
  Object.assign(c, {
    s7Clients: 0, s7Connects: 0, s7Writes: 0, s7WriteErrors: 0, s7ClientErrors: 0,
    s7PushJobs: 0, s7PushErrors: 0, s7PushFallbacks: 0,
  });
  // The PLC's own client shows up in the server's events like any other: its connects and
  // writes are expected here and not counted as clients'.
  const own = { adds: 0, drops: 0, writes: new Map() }; // writes: "db:start:size" -> count
  const sig = (db, start, size) => `${db}:${start}:${size}`;
  /** Count expected events of the own client's writes up (+1) or down (-1); false: none expected. */
  const ownWrite = (k, d) => {
    const n = (own.writes.get(k) || 0) + d;
    if (n < 0) return false;
    if (n === 0) own.writes.delete(k); else own.writes.set(k, n);
    return true;
  };
  owner = (ev) => {
    switch (ev.EvtCode) {
      case K.evcClientAdded:
        if (own.adds > 0) { own.adds -= 1; break; }
        c.s7Clients += 1; c.s7Connects += 1; break;
      case K.evcClientDisconnected:
      case K.evcClientTerminated:
        if (own.drops > 0) { own.drops -= 1; break; }
        c.s7Clients = Math.max(0, c.s7Clients - 1); break;
      case K.evcDataWrite: {
        if (ownWrite(sig(ev.EvtParam2, ev.EvtParam3, ev.EvtParam4), -1)) break;
        if (ev.EvtRetCode) c.s7WriteErrors += 1; else c.s7Writes += 1;
        break;
      }
      default: c.s7ClientErrors += 1;
    }
  };
  const client = cfg.createClient ? cfg.createClient() : new snap7.S7Client();
  const fail = (what, text = srv.ErrorText(srv.LastError())) => {
    cleanup();
    return new PlcError('E_S7_START', `S7 server: ${what} failed on ${cfg.host}:${cfg.port}: ${text}`);
  };
  const areas = [[AREA_DB, IO_DB, image.db1], [AREA_DB, REQ_DB, image.db2], [AREA_DB, RES_DB, image.db3], [AREA_MK, 0, image.mk]];
  const registered = [];
  function cleanup() {
    try { if (client.Connected()) { own.drops += 1; client.Disconnect(); } } catch { /* gone */ }
    try { srv.Stop(); } catch { /* already stopped */ }
    for (const [area, index] of registered.splice(0)) {
      if (area === AREA_DB) srv.UnregisterArea(area, index); else srv.UnregisterArea(area);
    }
    owner = null;
  }

  srv.SetEventMask(EVENT_MASK);
  if (!srv.SetParam(K.LocalPort, cfg.port)) throw fail('SetParam(LocalPort)');
  for (const [area, index, buf] of areas) {
    const ok = area === AREA_DB ? srv.RegisterArea(area, index, buf) : srv.RegisterArea(area, buf);
    if (!ok) throw fail(`RegisterArea(${area},${index})`);
    registered.push([area, index]);
  }
  if (!srv.StartTo(cfg.host)) throw fail('StartTo');
  client.SetParam(client.RemotePort, cfg.port);
  own.adds += 1;
  if (!client.ConnectTo(selfHost(cfg.host), 0, 1)) {
    own.adds -= 1;
    throw fail(`the PLC's own S7 connection to ${selfHost(cfg.host)}`, client.ErrorText(client.LastError()));
  }

  let lastDb3 = Buffer.from(image.db3);
  let lastMk = Buffer.from(image.mk);
  let stopped = false;
  let up = true; // the own client is connected
  let job = null; // the own client's call in flight (a write job or a reconnect): {what, done, settle}
  let retryTimer = null;
  const backoff = createBackoff({ initialMs: 50, maxMs: 2000 });
  const queue = createPushQueue({ mask: image.mask, ioDb: IO_DB, reqDb: REQ_DB, pdu: client.PDULength() || undefined });
  let native1 = Buffer.from(image.db1); // DB1 as the last pull read it

  /** Send the next queued job through the own client, if none is in flight. */
  function kick() {
    if (stopped || !up || job || queue.busy) return;
    const next = queue.take();
    if (!next) return;
    const vars = next.items.map((it) => ({
      Area: client.S7AreaDB, DBNumber: it.db, Amount: it.bit >= 0 ? 1 : it.data.length,
      WordLen: it.bit >= 0 ? client.S7WLBit : client.S7WLByte, Start: it.bit >= 0 ? it.start * 8 + it.bit : it.start, Data: it.data,
    }));
    const keys = next.items.map((it) => sig(it.db, it.start, it.bit >= 0 ? 1 : it.data.length));
    for (const k of keys) ownWrite(k, 1);
    c.s7PushJobs += 1;
    const mine = settling(vars); // vars keeps the buffers alive until the native side is done
    job = mine;
    const failed = () => {
      // The connection is gone (snap7 reports no per-job detail worth keeping): the entries go
      // back to the queue, the scan writes them back without the client until it is back.
      c.s7PushErrors += 1;
      for (const k of keys) ownWrite(k, -1);
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

  /** Something native in flight, and a promise that settles when it is done (stop waits for it). */
  function settling(what) {
    let settle;
    const done = new Promise((r) => { settle = r; });
    return { what, done, settle };
  }

  /** The own connection failed: write back without it, reconnect with back-off. */
  function lost() {
    if (!up) return;
    up = false;
    own.drops += 1;
    try { client.Disconnect(); } catch { /* already down */ }
    fallback();
    reconnect();
  }

  function reconnect() {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (stopped) return;
      own.adds += 1;
      const mine = settling('connect'); // nothing is written while down, so the slot is free
      job = mine;
      client.ConnectTo(selfHost(cfg.host), 0, 1, (err) => {
        mine.settle();
        job = null;
        if (stopped) return;
        if (err) { own.adds -= 1; reconnect(); return; }
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
    for (const [db, entriesOf] of [[IO_DB, entries.filter((e) => e.db === IO_DB)], [REQ_DB, entries.filter((e) => e.db === REQ_DB)]]) {
      if (!entriesOf.length) continue;
      const cur = srv.GetArea(AREA_DB, db);
      for (const e of entriesOf) apply(cur, e);
      srv.SetArea(AREA_DB, db, cur);
    }
  }

  return {
    port: cfg.port,

    /**
     * Scan start: client writes to DB1 input bits and to DB2 become the PLC's view, with the
     * PLC's own writes that have not landed yet laid over them.
     */
    pull() {
      native1 = srv.GetArea(AREA_DB, IO_DB);
      const { mask } = image;
      const db1 = image.db1;
      for (let b = 0; b < native1.length; b++) db1[b] = (db1[b] & mask[b]) | (native1[b] & ~mask[b]);
      srv.GetArea(AREA_DB, REQ_DB).copy(image.db2);
      queue.overlay(db1, image.db2);
    },

    /**
     * Scan end: probe responses and markers out first (the PLC's alone), then the outputs and
     * what other interfaces wrote this scan through the own client.
     * @param {{inputs: Map<object, number>, probes: Map<number, number>}} applied this scan's queued writes
     */
    push(applied) {
      if (!image.db3.equals(lastDb3)) { srv.SetArea(AREA_DB, RES_DB, image.db3); image.db3.copy(lastDb3); }
      if (!image.mk.equals(lastMk)) { srv.SetArea(AREA_MK, image.mk); image.mk.copy(lastMk); }
      queue.outputs(image.db1, native1);
      for (const [tag, v] of applied.inputs) queue.input(tag, v);
      for (const [slot, v] of applied.probes) queue.probe(slot, v);
      if (up) kick(); else fallback();
    },

    /**
     * Stop serving: the own client's call in flight ends (snap7 must not be disconnected under
     * it), then every client is disconnected and the shared server freed.
     */
    async stop() {
      if (stopped) return;
      stopped = true;
      if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
      if (job) await Promise.race([job.done, new Promise((r) => setTimeout(r, 2000).unref())]);
      cleanup();
      lastDb3 = null; lastMk = null;
    },
  };
}

module.exports = { startS7, DEFAULTS };
