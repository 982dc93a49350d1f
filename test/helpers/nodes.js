'use strict';
/**
 * Test helpers for the bridge nodes (test/nodes): a bare S7 server on node-snap7 with
 * the plant's data blocks, a raw WebSocket client, and small waiting utilities.
 *
 * The bare server is a real snap7 S7 server (the same native library the virtual PLC uses) with
 * DB1 (I/O), DB2 (probe requests) and DB3 (probe responses) registered, plus a "scan" timer that
 * copies DB2 to DB3 like the PLC program does. It runs no plant program: tests set DB1 directly.
 */
const snap7 = require('node-snap7');
const WebSocket = require('ws');
const tags = require('../../nodes/lib/core/tags');
const { freePort, waitFor } = require('./nodered');

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

/**
 * Open a raw WebSocket client and collect parsed frames.
 * @returns {Promise<{ws, frames: object[], closed: Promise<{code:number, reason:string}>, send(obj|string): void, next(pred, ms?): Promise<object>, close(): Promise<void>}>}
 */
function openClient(url, { token, headers = {}, ...wsOpts } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    const ws = new WebSocket(url, { headers: h, perMessageDeflate: false, ...wsOpts });
    const frames = [];
    let resolveClosed;
    const closed = new Promise((r) => { resolveClosed = r; });
    ws.on('message', (data) => {
      try { frames.push(JSON.parse(data.toString())); } catch { frames.push({ raw: data.toString() }); }
    });
    ws.on('close', (code, reason) => resolveClosed({ code, reason: reason.toString() }));
    ws.once('unexpected-response', (req, res) => {
      const err = new Error(`HTTP ${res.statusCode}`);
      err.statusCode = res.statusCode;
      res.resume();
      reject(err);
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.removeListener('error', reject);
      ws.on('error', () => {});
      resolve({
        ws,
        frames,
        closed,
        send: (obj) => ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)),
        next: (pred, ms = 20000) => waitFor(() => frames.find(pred), ms, 'a matching frame'),
        close: () => new Promise((r) => {
          if (ws.readyState === WebSocket.CLOSED) { r(); return; }
          ws.once('close', () => r());
          ws.close();
          setTimeout(() => ws.terminate(), 2000).unref();
        }),
      });
    });
  });
}

/** Collect every message a Node-RED helper node receives. */
function collect(node) {
  const msgs = [];
  node.on('input', (msg) => msgs.push(msg));
  return msgs;
}

module.exports = { startBareS7, openClient, collect, freePort, waitFor, PROBE_BYTES };
