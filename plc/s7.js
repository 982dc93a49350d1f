'use strict';
/**
 * S7comm interface of the virtual PLC: node-snap7's S7Server (rack 0, slot 1) serving the process
 * image: the table's data blocks (the demo plant's DB1), the M area, and the probe blocks (DB2
 * requests, DB3 responses).
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
 * So a scan reads the table's areas and the probe requests with GetArea (pull), but writes into
 * them (push) only through its own S7 client connected to this server: its output bytes and
 * markers, the inputs and probe requests that other interfaces wrote, each as an S7 write item
 * (plc/s7-push.js), which snap7 applies under the area's lock as it does any client's. A GetArea-merge-SetArea write-back undid a client
 * write that landed between the two calls (the OS can preempt the thread there): it stalled a CI
 * run's production with a lost Piston1Front. The client writes asynchronously (snap7's client
 * polls for the answer in 1 ms sleeps, so a blocking call would stall the scan for a millisecond),
 * one job at a time; until a write has landed the pull lays its value over what it read. Only
 * while that connection is down does the scan fall back to the merge (counter s7PushFallbacks).
 * The probe responses and the signal's ring buffer (plc/signal.js) are written by the PLC only, with SetArea. The own client's loop is
 * plc/s7-own-client.js; which server events are clients' and which its own, plc/s7-events.js.
 *
 * node-snap7 keeps its async handles in static globals: two S7Server instances in one process
 * corrupt each other. One server object is therefore shared by the whole process and owned by at
 * most one running PLC at a time (E_S7_IN_USE otherwise).
 */
const snap7 = require('node-snap7');
const { PlcError } = require('./errors');
const { createPushQueue } = require('./s7-push');
const { createServerEvents } = require('./s7-events');
const { createOwnClient } = require('./s7-own-client');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 10102, // ISO-on-TCP; 102 needs root
};

const { S7Server } = snap7;
const K = S7Server.prototype; // node-snap7 puts its constants on the prototype, not the class
const AREA_DB = K.srvAreaDB;
const AREA_MK = K.srvAreaMK;
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

/** node-snap7's area code and index of an image area ({area: 'DB'|'M', db}). */
const codeOf = (a) => (a.area === 'M' ? [AREA_MK, 0] : [AREA_DB, a.db]);
/** An area's bytes from the server (a copy). */
const getArea = (srv, a) => (a.area === 'M' ? srv.GetArea(AREA_MK) : srv.GetArea(AREA_DB, a.db));
/** Replace an area's bytes on the server. */
function setArea(srv, a, buf) {
  if (a.area === 'M') srv.SetArea(AREA_MK, buf); else srv.SetArea(AREA_DB, a.db, buf);
}

/**
 * Register the image's areas with the server, start it and connect the PLC's own client to it.
 * @returns {() => void} cleanup: the own client disconnected, the server stopped, the areas
 *   unregistered, the server free for the next PLC
 * @throws {PlcError} E_S7_START (after cleaning up)
 */
function serve(srv, client, events, image, cfg) {
  const areas = [...[...image.areas.values()].map((a) => [...codeOf(a), a.buf]), [AREA_DB, image.reqDb, image.db2], [AREA_DB, image.resDb, image.db3],
    ...(image.ring ? [[AREA_DB, image.ring.layout.db, image.ring.buf]] : [])];
  const registered = [];
  function cleanup() {
    try { if (client.Connected()) { events.disconnecting(); client.Disconnect(); } } catch { /* gone */ }
    try { srv.Stop(); } catch { /* already stopped */ }
    for (const [area, index] of registered.splice(0)) {
      if (area === AREA_DB) srv.UnregisterArea(area, index); else srv.UnregisterArea(area);
    }
    owner = null;
  }
  const fail = (what, text = srv.ErrorText(srv.LastError())) => {
    cleanup();
    return new PlcError('E_S7_START', `S7 server: ${what} failed on ${cfg.host}:${cfg.port}: ${text}`);
  };

  srv.SetEventMask(EVENT_MASK);
  if (!srv.SetParam(K.LocalPort, cfg.port)) throw fail('SetParam(LocalPort)');
  for (const [area, index, buf] of areas) {
    const ok = area === AREA_DB ? srv.RegisterArea(area, index, buf) : srv.RegisterArea(area, buf);
    if (!ok) throw fail(`RegisterArea(${area},${index})`);
    registered.push([area, index]);
  }
  if (!srv.StartTo(cfg.host)) throw fail('StartTo');
  client.SetParam(client.RemotePort, cfg.port);
  events.connecting();
  if (!client.ConnectTo(selfHost(cfg.host), 0, 1)) {
    events.connectFailed();
    throw fail(`the PLC's own S7 connection to ${selfHost(cfg.host)}`, client.ErrorText(client.LastError()));
  }
  return cleanup;
}

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
  const events = createServerEvents(K, c);
  owner = events.handle;
  const client = cfg.createClient ? cfg.createClient() : new snap7.S7Client();
  const cleanup = serve(srv, client, events, image, cfg);

  let lastDb3 = Buffer.from(image.db3);
  let stopped = false;
  const io = [...image.areas.values()];
  const queue = createPushQueue({ areas: io, reqDb: image.reqDb, pdu: client.PDULength() || undefined });
  const own = createOwnClient({
    client, queue, events, counters: c, host: selfHost(cfg.host),
    getArea: (a) => getArea(srv, a), setArea: (a, buf) => setArea(srv, a, buf),
  });
  const natives = new Map(io.map((a) => [a.key, Buffer.from(a.buf)])); // each area as the last pull read it

  return {
    port: cfg.port,

    /**
     * Scan start: client writes to input bits and bytes and to the probe requests become the
     * PLC's view, with the PLC's own writes that have not landed yet laid over them.
     */
    pull() {
      for (const a of io) {
        const native = getArea(srv, a);
        natives.set(a.key, native);
        const { buf, mask } = a;
        for (let b = 0; b < native.length; b++) buf[b] = (buf[b] & mask[b]) | (native[b] & ~mask[b]);
      }
      srv.GetArea(AREA_DB, image.reqDb).copy(image.db2);
      queue.overlay(image.bufs, image.db2);
    },

    /**
     * Scan end: probe responses out first (the PLC's alone), then the outputs, markers and what
     * other interfaces wrote this scan through the own client.
     * @param {{inputs: Map<object, number>, probes: Map<number, number>}} applied this scan's queued writes
     */
    push(applied) {
      if (!image.db3.equals(lastDb3)) { srv.SetArea(AREA_DB, image.resDb, image.db3); image.db3.copy(lastDb3); }
      // The signal's ring is the PLC's alone, like the probe responses: the whole area at once, so
      // a client's read of one item sees it as of one scan (nodes/lib/stream/ring.js).
      if (image.ring && image.ring.dirty) { srv.SetArea(AREA_DB, image.ring.layout.db, image.ring.buf); image.ring.dirty = false; }
      for (const a of io) queue.outputs(a.buf, natives.get(a.key), a.key);
      for (const [tag, v] of applied.inputs) queue.input(tag, v);
      for (const [slot, v] of applied.probes) queue.probe(slot, v);
      own.flush();
    },

    /**
     * Stop serving: the own client's call in flight ends (snap7 must not be disconnected under
     * it), then every client is disconnected and the shared server freed.
     */
    async stop() {
      if (stopped) return;
      stopped = true;
      await own.stop();
      cleanup();
      lastDb3 = null;
    },
  };
}

module.exports = { startS7, DEFAULTS };
