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
 * So each scan: pull = GetArea (one locked copy) of DB1 and DB2; push = GetArea of DB1 again, put
 * only the PLC-owned output bits (image.mask) and the inputs written this scan through other
 * interfaces into that fresh copy, and SetArea it only if something differs. A client write can
 * be lost only if it lands between that GetArea and SetArea: everything that allocates (and so
 * could pause for a GC) is done before GetArea, so the window is a 16-byte merge; pushes
 * happen only when an output changes (ScanCount is refreshed every `scanCountEvery` scans to keep
 * them rare). DB2 is written by clients only (plus queued probe writes); DB3 and MK by the PLC only.
 *
 * node-snap7 keeps its async handles in static globals: two S7Server instances in one process
 * corrupt each other. One server object is therefore shared by the whole process and owned by at
 * most one running PLC at a time (E_S7_IN_USE otherwise).
 */
const snap7 = require('node-snap7');
const tags = require('../nodes/lib/tags');
const { PlcError } = require('./errors');
const { markTag } = require('./image');

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

/**
 * Start the S7 server over a process image.
 * @param {object} image from createImage()
 * @param {{host?: string, port: number, counters: object, scanCountEvery?: number}} opts port must be
 *   a real port (the caller picks a free one for 0: snap7 cannot report the port it bound)
 * @returns {{port:number, pull():void, push(applied):void, stop():Promise<void>}}
 * @throws {PlcError} E_S7_IN_USE, E_S7_START
 */
function startS7(image, opts) {
  const cfg = { ...DEFAULTS, ...opts };
  const c = cfg.counters;
  if (owner) throw new PlcError('E_S7_IN_USE', 'this process already runs a virtual PLC with S7 on (node-snap7 allows one server per process)');
  const srv = sharedServer();
  Object.assign(c, { s7Clients: 0, s7Connects: 0, s7Writes: 0, s7WriteErrors: 0, s7ClientErrors: 0 });
  owner = (ev) => {
    switch (ev.EvtCode) {
      case K.evcClientAdded: c.s7Clients += 1; c.s7Connects += 1; break;
      case K.evcClientDisconnected:
      case K.evcClientTerminated: c.s7Clients = Math.max(0, c.s7Clients - 1); break;
      case K.evcDataWrite: if (ev.EvtRetCode) c.s7WriteErrors += 1; else c.s7Writes += 1; break;
      default: c.s7ClientErrors += 1;
    }
  };
  const fail = (what) => {
    const text = srv.ErrorText(srv.LastError());
    cleanup();
    return new PlcError('E_S7_START', `S7 server: ${what} failed on ${cfg.host}:${cfg.port}: ${text}`);
  };
  const areas = [[AREA_DB, IO_DB, image.db1], [AREA_DB, REQ_DB, image.db2], [AREA_DB, RES_DB, image.db3], [AREA_MK, 0, image.mk]];
  const registered = [];
  function cleanup() {
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

  let lastDb3 = Buffer.from(image.db3);
  let lastMk = Buffer.from(image.mk);
  let stopped = false;
  const { mask } = image;
  const db1Val = Buffer.alloc(image.db1.length); // the PLC's bytes for DB1 this scan
  const db1Own = Buffer.alloc(image.db1.length); // which bits of them it writes

  return {
    port: cfg.port,

    /** Scan start: client writes to DB1 input bits and to DB2 become the PLC's view. */
    pull() {
      const cur = srv.GetArea(AREA_DB, IO_DB);
      for (let b = 0; b < cur.length; b++) image.db1[b] = (image.db1[b] & mask[b]) | (cur[b] & ~mask[b]);
      srv.GetArea(AREA_DB, REQ_DB).copy(image.db2);
    },

    /**
     * Scan end: outputs, markers and probe responses out; writes queued by other interfaces in.
     * @param {{inputs: Map<object, number>, probes: Map<number, number>}} applied this scan's queued writes
     */
    push(applied) {
      // What the PLC writes into DB1 this scan, as bytes and a byte mask, prepared BEFORE the
      // native read: between GetArea and SetArea a client's write is lost (SetArea overwrites the
      // whole area), so that window holds no allocation (a GC pause there lost 3 of 3,000 S7
      // writes under load: bench/plc-write-race.js) and nothing but a 16-byte merge.
      mask.copy(db1Own);
      image.db1.copy(db1Val);
      for (const [tag, v] of applied.inputs) {
        tags.writeTag(db1Val, tag, v);
        markTag(db1Own, tag);
      }
      const cur = srv.GetArea(AREA_DB, IO_DB);
      let changed = false;
      for (let b = 0; b < cur.length; b++) {
        const v = (cur[b] & ~db1Own[b]) | (db1Val[b] & db1Own[b]);
        if (v !== cur[b]) { cur[b] = v; changed = true; }
      }
      if (changed) srv.SetArea(AREA_DB, IO_DB, cur);
      if (applied.probes.size) {
        const slots = [...applied.probes];
        const req = srv.GetArea(AREA_DB, REQ_DB);
        for (let k = 0; k < slots.length; k++) req.writeUInt32BE(slots[k][1], 4 * slots[k][0]);
        srv.SetArea(AREA_DB, REQ_DB, req);
      }
      if (!image.db3.equals(lastDb3)) { srv.SetArea(AREA_DB, RES_DB, image.db3); image.db3.copy(lastDb3); }
      if (!image.mk.equals(lastMk)) { srv.SetArea(AREA_MK, image.mk); image.mk.copy(lastMk); }
    },

    /** Stop serving: disconnects every client and frees the shared server for the next PLC. */
    async stop() {
      if (stopped) return;
      stopped = true;
      cleanup();
      lastDb3 = null; lastMk = null;
    },
  };
}

module.exports = { startS7, DEFAULTS };
