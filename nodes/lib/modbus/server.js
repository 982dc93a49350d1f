'use strict';
/**
 * A small Modbus TCP server over one bank of holding registers, for the cloud side of the Modbus
 * path (the `s7twin-modbus-server` node). Function codes 3 (read holding registers), 6 (write
 * single register) and 16 (write multiple registers); any other function → exception 01, an
 * address range outside the bank → exception 02, a bad quantity or byte count → exception 03.
 * A request is applied whole or not at all. Emits 'write' {address, words} after each client write.
 *
 * Modbus has no authentication, so the server decides by source address (issue 18): the registers
 * twins write (HR0 commands, the probe requests HR1000+) are open to every client; every other
 * register (PLC states HR1, counters HR2..4, probe responses HR4000+) only to connections from
 * `edgeHosts` (addresses, blocks, host names; nodes/lib/access/source-filter.js). Anyone else's write
 * there is refused whole with exception 02 and counted (writeRefused). Connections not from
 * `edgeHosts` also have a request rate and an error budget (nodes/lib/access/peer-limits.js): past either
 * the request is answered with exception 06 (server busy, all the protocol can say), the
 * connection is closed and counted (rateLimited, errorBudget). The edge is exempt: its relay
 * polls back to back under load. What this cannot protect: see docs/modbus.md ("Security").
 *
 * Why not node-red-contrib-modbus's `modbus-server` node (jsmodbus): on close it calls
 * net.Server#close() without ending the client sockets, so a redeploy with a client connected
 * waits for Node-RED's 15 s close timeout, and the old connections keep being served from the
 * old node's memory while the new node has its own: edge and twin silently talk to a ghost
 * (reproduced in test/flows/modbus-server.test.js). It also offers no TCP_NODELAY and no
 * counters. Why not modbus-serial's ServerTCP: it defers every request with setTimeout(0) and
 * keeps its sockets private (no setNoDelay), the same reasons plc/modbus.js gives.
 */
const { codedError } = require('../core/errors');
const net = require('node:net');
const { EventEmitter } = require('node:events');
const codec = require('./codec');
const mbtcp = require('./tcp');
const tags = require('../core/tags');
const { createSourceFilter } = require('../access/source-filter');
const peerLimits = require('../access/peer-limits');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 5021, // the cloud Modbus server (the PLC's own is 5020)
  // HR 0..6047: I/O block, probe requests 1000+2i and responses 4000+2i for the PLC's 1,024 slots
  registers: tags.MODBUS_REGISTERS,
  // Connections served at once; further ones are closed at once (counters.refused, 'refused'
  // event). A cloud server serves the edge (two connections: I/O loops and probe relay), its own
  // flow-timer client and every twin: the benchmark's load levels run one twin per user.
  maxClients: 256,
  maxBuffered: 4096, // bytes of unparsed input per connection before it is dropped (no frame is > 260)
  // Sources that may write every register (the edge); the rest may write only `twinWritable`.
  // Loopback by default: on one machine the edge dials 127.0.0.1 (so does every twin).
  edgeHosts: ['127.0.0.1', '::1'],
  // Registers any client may write: HR0 (commands) and the probe requests of every PLC slot.
  twinWritable: [
    { from: codec.COMMAND_REGISTER, to: codec.COMMAND_REGISTER },
    { from: codec.PROBE_REQUEST_BASE, to: codec.PROBE_REQUEST_BASE + 2 * codec.PROBE_SLOTS - 1 },
  ],
  ratePerS: peerLimits.DEFAULTS.ratePerS, // requests a second per connection not from edgeHosts (0 = off)
  burst: peerLimits.DEFAULTS.burst, // requests above that rate absorbed at once
  errors: peerLimits.DEFAULTS.errors, // exceptions a connection may cause per errorWindowMs (0 = off)
  errorWindowMs: peerLimits.DEFAULTS.errorWindowMs,
};
const EX = mbtcp.EXCEPTIONS; // framing, requests and their limits: modbus-tcp.js (shared with plc/modbus.js)
const CLOSE_AFTER_MS = 1000; // a limited connection gets this long to read its exception

/** Error with a stable `code`; `exception` is the Modbus exception code sent back. */
const ModbusServerError = codedError('ModbusServerError');

/**
 * Create (not yet listening) a Modbus TCP server.
 * @param {object} [opts] see DEFAULTS
 * @returns {EventEmitter & {start(): Promise<number>, close(): Promise<void>, read(a, n): number[],
 *   write(a, words): void, counters: object, port: number|null, clients: number}}
 */
function createModbusServer(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  if (!Number.isInteger(o.registers) || o.registers < 1 || o.registers > 65536) {
    throw new ModbusServerError('E_CONFIG', `registers must be 1..65536, got ${o.registers}`);
  }
  for (const k of ['ratePerS', 'burst', 'errors', 'errorWindowMs']) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw new ModbusServerError('E_CONFIG', `${k} must be a number >= 0, got ${o[k]}`);
  }
  if (!Number.isInteger(o.maxClients) || o.maxClients < 1) {
    throw new ModbusServerError('E_CONFIG', `maxClients must be a whole number >= 1, got ${o.maxClients}`);
  }
  let sources;
  try {
    sources = createSourceFilter(o.edgeHosts);
  } catch (err) {
    throw new ModbusServerError('E_CONFIG', `edgeHosts: ${err.message}`);
  }
  const bank = new Uint16Array(o.registers);
  const counters = {
    connects: 0, requests: 0, reads: 0, writes: 0, exceptions: 0, badFrames: 0, refused: 0, bytesIn: 0, bytesOut: 0,
    writeRefused: 0, // writes to edge-only registers from elsewhere (exception 02)
    rateLimited: 0, // connections closed for their request rate
    errorBudget: 0, // connections closed for too many exceptions
  };
  const open = (address, qty) => o.twinWritable.some((r) => address >= r.from && address + qty - 1 <= r.to);
  const ee = new EventEmitter();
  const sockets = new Set();
  let server = null;
  let port = null;

  function range(address, qty) {
    if (address + qty > bank.length) {
      throw new ModbusServerError('E_MODBUS_ADDRESS', `registers ${address}..${address + qty - 1} outside 0..${bank.length - 1}`, { exception: EX.ADDRESS });
    }
  }

  /** Only the edge writes outside twinWritable. */
  function checkWriter(peer, address, qty) {
    if (peer.edge || open(address, qty)) return;
    counters.writeRefused += 1;
    ee.emit('write-refused', { address, qty, from: peer.from });
    throw new ModbusServerError('E_MODBUS_NOT_EDGE', `registers ${address}..${address + qty - 1} are written by the edge only`, { exception: EX.ADDRESS });
  }

  /** Answer one PDU. @returns {{res: Buffer, write?: {address, words}, exception?: boolean}} */
  function handle(pdu, peer) {
    try {
      const req = mbtcp.parseRequest(pdu);
      range(req.address, req.qty);
      if (req.fc === 3) {
        counters.reads += 1;
        return { res: mbtcp.answer(req, bank.subarray(req.address, req.address + req.qty)) };
      }
      checkWriter(peer, req.address, req.qty);
      bank.set(req.words, req.address);
      counters.writes += 1;
      return { res: mbtcp.answer(req), write: { address: req.address, words: req.words } };
    } catch (err) {
      if (!err.exception) throw err;
      counters.exceptions += 1;
      return { res: mbtcp.exceptionPdu(pdu[0], err.exception), exception: true };
    }
  }

  function onConnection(sock) {
    sock.setNoDelay(true);
    if (sockets.size >= o.maxClients) {
      counters.refused += 1;
      sock.destroy();
      ee.emit('refused', counters.refused);
      return;
    }
    sockets.add(sock);
    counters.connects += 1;
    ee.emit('clients', sockets.size);
    const from = sock.remoteAddress;
    const peer = { from, edge: sources.matchesNow(from), limits: null, closing: false };
    const limitPeer = () => {
      peer.limits = peer.edge ? null : peerLimits.createPeerLimits({ ratePerS: o.ratePerS, burst: o.burst, errors: o.errors, errorWindowMs: o.errorWindowMs });
    };
    limitPeer();
    // A host name in edgeHosts may have a new address (a recreated container): look it up before
    // the first request is read.
    if (!peer.edge && sources.hasNames) {
      sock.pause();
      sources.matches(from).then((edge) => { peer.edge = edge; limitPeer(); }, () => {}).finally(() => { if (!sock.destroyed) sock.resume(); });
    }
    /** Past a limit: answer this request with `res`, then close the connection. */
    const cut = (head, res, counter, why) => {
      counters[counter] += 1;
      peer.closing = true;
      sock.end(mbtcp.frame(head, res));
      setTimeout(() => sock.destroy(), CLOSE_AFTER_MS).unref();
      ee.emit('limited', { code: why.code, message: why.message, from });
    };
    let buf = Buffer.alloc(0);
    sock.on('data', (data) => {
      if (peer.closing) return;
      counters.bytesIn += data.length;
      buf = buf.length ? Buffer.concat([buf, data]) : data;
      if (buf.length > o.maxBuffered) { counters.badFrames += 1; sock.destroy(); return; }
      for (let f = mbtcp.takeFrame(buf); f; f = mbtcp.takeFrame(buf)) {
        if (f.bad) { counters.badFrames += 1; sock.destroy(); return; } // not Modbus TCP
        const { head, pdu } = f;
        buf = f.rest;
        counters.requests += 1;
        const over = peer.limits && peer.limits.frame();
        if (over) { counters.exceptions += 1; cut(head, mbtcp.exceptionPdu(pdu[0], EX.BUSY), 'rateLimited', over); return; }
        const { res, write, exception: failed } = handle(pdu, peer);
        const spent = failed && peer.limits && peer.limits.error();
        if (spent) { cut(head, res, 'errorBudget', spent); return; }
        const out = mbtcp.frame(head, res);
        counters.bytesOut += out.length;
        sock.write(out);
        if (write) ee.emit('write', write);
      }
    });
    sock.on('error', () => {}); // a reset by the client is normal; 'close' follows
    sock.on('close', () => {
      sockets.delete(sock);
      if (server) ee.emit('clients', sockets.size);
    });
  }

  // Live getters: Object.assign would copy their values once (port null, clients 0 for ever).
  Object.defineProperties(ee, {
    port: { get: () => port, enumerable: true },
    clients: { get: () => sockets.size, enumerable: true },
  });
  return Object.assign(ee, {
    counters,
    /**
     * Listen. @returns {Promise<number>} the port
     * @throws {ModbusServerError} E_MODBUS_LISTEN
     */
    start() {
      return new Promise((resolve, reject) => {
        server = net.createServer(onConnection);
        server.once('error', (err) => {
          server = null;
          reject(new ModbusServerError('E_MODBUS_LISTEN', `Modbus server cannot listen on ${o.host}:${o.port}: ${err.message}`));
        });
        server.listen({ host: o.host, port: o.port }, () => {
          port = server.address().port;
          server.on('error', (err) => ee.emit('error', err));
          resolve(port);
        });
      });
    },
    /** Stop listening and end every client connection (they reconnect to whoever listens next). */
    close() {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      sockets.clear();
      if (!s) return Promise.resolve();
      return new Promise((resolve) => s.close(() => resolve()));
    },
    /**
     * Read registers from the bank (local access, no event).
     * @throws {ModbusServerError} E_MODBUS_ADDRESS
     */
    read(address, qty = 1) {
      if (!Number.isInteger(address) || address < 0 || !Number.isInteger(qty) || qty < 1) {
        throw new ModbusServerError('E_MODBUS_ADDRESS', `bad register range ${address}+${qty}`);
      }
      range(address, qty);
      return Array.from(bank.subarray(address, address + qty));
    },
    /**
     * Write registers into the bank (local access, no event).
     * @throws {ModbusServerError} E_MODBUS_ADDRESS, E_MODBUS_WORDS
     */
    write(address, words) {
      if (!Number.isInteger(address) || address < 0 || !Array.isArray(words) || words.length === 0) {
        throw new ModbusServerError('E_MODBUS_ADDRESS', 'write needs an address >= 0 and an array of words');
      }
      if (!words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff)) {
        throw new ModbusServerError('E_MODBUS_WORDS', 'register values must be 16-bit words (0..65535)');
      }
      range(address, words.length);
      bank.set(words, address);
    },
  });
}

module.exports = { createModbusServer, ModbusServerError, DEFAULTS, EXCEPTIONS: EX };
