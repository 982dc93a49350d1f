'use strict';
/**
 * A bare S7 server on node-snap7 with the plant's data blocks: the PLC for the bridge nodes'
 * tests (test/nodes) and the bridge's latency bench (bench/bridge-latency.js), where the virtual
 * PLC's plant program would be in the way. DB1 (I/O), DB2 (probe requests) and DB3 (probe
 * responses) are registered, plus a "scan" timer that copies DB2 to DB3 like the PLC program does.
 * It runs no plant program: its user sets DB1 directly.
 */
const snap7 = require('node-snap7');
// The demo plant's data blocks: the bridge nodes' tests and the latency bench run its table.
const tags = require('../nodes/lib/core/io-table').demoTable();
const { freePort } = require('../plc/net');

const PROBE_BYTES = tags.TABLE.plc.probeSlots * 4;

/**
 * node-snap7 keeps its server's uv_async handles in process-global variables: every S7Server
 * constructor re-initialises them and every destructor closes them, so a second S7Server in one
 * process crashes it (libuv "uv_close: Assertion !uv__is_closing(handle)") once the first is
 * garbage-collected. One server object per process, reused by every test, avoids that.
 */
let shared = null;

/**
 * Start (or restart, zeroed) the bare snap7 S7 server on 127.0.0.1.
 * @param {{scanMs?: number}} [opts]
 */
async function startBareS7(opts = {}) {
  if (!shared) {
    const srv = new snap7.S7Server();
    const port = await freePort();
    srv.SetParam(srv.LocalPort, port);
    srv.RegisterArea(srv.srvAreaDB, 1, Buffer.alloc(tags.ioDbSize));
    srv.RegisterArea(srv.srvAreaDB, 2, Buffer.alloc(PROBE_BYTES));
    srv.RegisterArea(srv.srvAreaDB, 3, Buffer.alloc(PROBE_BYTES));
    shared = { srv, port, running: false, scan: null };
  }
  const { srv, port } = shared;
  if (shared.running) { clearInterval(shared.scan); srv.Stop(); shared.running = false; }
  srv.SetArea(srv.srvAreaDB, 1, Buffer.alloc(tags.ioDbSize));
  srv.SetArea(srv.srvAreaDB, 2, Buffer.alloc(PROBE_BYTES));
  srv.SetArea(srv.srvAreaDB, 3, Buffer.alloc(PROBE_BYTES));
  const start = () => {
    if (!srv.StartTo('127.0.0.1')) throw new Error(`snap7 server could not start on port ${port}`);
    shared.running = true;
    shared.scan = setInterval(() => srv.SetArea(srv.srvAreaDB, 3, srv.GetArea(srv.srvAreaDB, 2)), opts.scanMs || 10);
  };
  start();
  return {
    port,
    get running() { return shared.running; },
    /** DB1 as a Buffer (a copy). */
    io: () => srv.GetArea(srv.srvAreaDB, 1),
    /** Values of every tag in DB1, keyed by short name. */
    values: () => tags.decodeBlock(srv.GetArea(srv.srvAreaDB, 1)),
    /** Set several tags at once (one SetArea: they change in the same "scan"). */
    set(values) {
      const buf = srv.GetArea(srv.srvAreaDB, 1);
      for (const [k, v] of Object.entries(values)) tags.writeTag(buf, tags.get(k), tags.normalise(tags.get(k), v));
      srv.SetArea(srv.srvAreaDB, 1, buf);
    },
    probeRequest: (slot) => srv.GetArea(srv.srvAreaDB, 2).readUInt32BE(4 * slot),
    probeResponse: (slot) => srv.GetArea(srv.srvAreaDB, 3).readUInt32BE(4 * slot),
    /** Stop serving (clients are disconnected); the data blocks stay. */
    stop() {
      clearInterval(shared.scan);
      if (shared.running) srv.Stop();
      shared.running = false;
    },
    /** Serve again on the same port. */
    restart() { if (!shared.running) start(); },
  };
}

module.exports = { startBareS7, PROBE_BYTES };
