'use strict';
/**
 * A small Modbus TCP server over one bank of holding registers, for the cloud side of the Modbus
 * path (the `s7twin-modbus-server` node). Function codes 3 (read holding registers), 6 (write
 * single register) and 16 (write multiple registers); any other function → exception 01, an
 * address range outside the bank → exception 02, a bad quantity or byte count → exception 03.
 * A request is applied whole or not at all. Emits 'write' {address, words} after each client write.
 *
 * Modbus has no authentication, so the server decides by source address: the registers twins
 * write are open to every client, every other register only to connections from `edgeHosts`
 * (addresses, blocks, host names; nodes/lib/access/source-filter.js), and connections from
 * elsewhere have a request rate and an error budget. The rules: lib/modbus/registers.js (who
 * writes what) and lib/modbus/peer.js (one connection, its limits). What this cannot protect:
 * see docs/modbus.md ("Security").
 *
 * Why not node-red-contrib-modbus's `modbus-server` node (jsmodbus): on close it calls
 * net.Server#close() without ending the client sockets, so a redeploy with a client connected
 * waits for Node-RED's 15 s close timeout, and the old connections keep being served from the
 * old node's memory while the new node has its own: edge and twin silently talk to a ghost
 * (reproduced in test/flows/modbus-server.test.js). It also offers no TCP_NODELAY and no
 * counters. Why not modbus-serial's ServerTCP: it defers every request with setTimeout(0) and
 * keeps its sockets private (no setNoDelay), the same reasons plc/modbus.js gives.
 */
const net = require('node:net');
const { EventEmitter } = require('node:events');
const mbtcp = require('./tcp');
const { demoTable, tableOf } = require('../core/io-table');
const { twinWritableOf } = require('./map');
const { createSourceFilter } = require('../access/source-filter');
const peerLimits = require('../access/peer-limits');
const { createRegisterBank, ModbusServerError } = require('./registers');
const { servePeer } = require('./peer');
const { createCommandLog } = require('./command-log');
const { DEFAULT_PLANT } = require('../core/plants');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 5021, // the cloud Modbus server (the PLC's own is 5020)
  // The demo plant's HR 0..6047: I/O block, probe requests 1000+2i and responses 4000+2i for the
  // PLC's 1,024 slots (another table's: its MODBUS_REGISTERS)
  registers: demoTable().MODBUS_REGISTERS,
  // Connections served at once; further ones are closed at once (counters.refused, 'refused'
  // event). A cloud server serves the edge (two connections: I/O loops and probe relay), its own
  // flow-timer client and every twin: the benchmark's load levels run one twin per user.
  maxClients: 256,
  maxBuffered: 4096, // bytes of unparsed input per connection before it is dropped (no frame is > 260)
  // Sources that may write every register (the edge); the rest may write only `twinWritable`.
  // Loopback by default: on one machine the edge dials 127.0.0.1 (so does every twin).
  edgeHosts: ['127.0.0.1', '::1'],
  // Registers any client may write: the cloud-writable tags' (the demo plant's HR0, its commands)
  // and the probe requests of every PLC slot (another table's: lib/modbus/map.js twinWritableOf).
  twinWritable: twinWritableOf(demoTable()),
  ratePerS: peerLimits.DEFAULTS.ratePerS, // requests a second per connection not from edgeHosts (0 = off)
  burst: peerLimits.DEFAULTS.burst, // requests above that rate absorbed at once
  errors: peerLimits.DEFAULTS.errors, // exceptions a connection may cause per errorWindowMs (0 = off)
  errorWindowMs: peerLimits.DEFAULTS.errorWindowMs,
  plant: DEFAULT_PLANT, // the plant the commands are for, in the command log
  // The command log's recorder (lib/history/command-audit.js, handed in by the server node): every
  // write of the commands' registers, relayed, unchanged or refused (lib/modbus/command-log.js)
  audit: null,
};
const EX = mbtcp.EXCEPTIONS; // framing, requests and their limits: lib/modbus/tcp.js (shared with plc/modbus.js)

/**
 * Check the options (merged with DEFAULTS) and make the edge's source filter.
 * @returns {object} lib/access/source-filter.js over edgeHosts
 * @throws {ModbusServerError} E_CONFIG
 */
function checkOptions(o) {
  if (!Number.isInteger(o.registers) || o.registers < 1 || o.registers > 65536) {
    throw new ModbusServerError('E_CONFIG', `registers must be 1..65536, got ${o.registers}`);
  }
  for (const k of ['ratePerS', 'burst', 'errors', 'errorWindowMs']) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw new ModbusServerError('E_CONFIG', `${k} must be a number >= 0, got ${o[k]}`);
  }
  if (!Number.isInteger(o.maxClients) || o.maxClients < 1) {
    throw new ModbusServerError('E_CONFIG', `maxClients must be a whole number >= 1, got ${o.maxClients}`);
  }
  try {
    return createSourceFilter(o.edgeHosts);
  } catch (err) {
    throw new ModbusServerError('E_CONFIG', `edgeHosts: ${err.message}`);
  }
}

/**
 * Create (not yet listening) a Modbus TCP server.
 * @param {object} [opts] see DEFAULTS; `table`: the plant's I/O table, whose register count and
 *   cloud-writable registers the server takes unless `registers` or `twinWritable` are given
 * @returns {EventEmitter & {start(): Promise<number>, close(): Promise<void>, read(a, n): number[],
 *   write(a, words): void, counters: object, port: number|null, clients: number}}
 */
function createModbusServer(opts = {}) {
  const table = tableOf(opts.table);
  const fromTable = opts.table ? { registers: table.MODBUS_REGISTERS, twinWritable: twinWritableOf(table) } : {};
  const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  const o = { ...DEFAULTS, ...fromTable, ...given };
  const sources = checkOptions(o);
  const counters = {
    connects: 0, requests: 0, reads: 0, writes: 0, exceptions: 0, badFrames: 0, refused: 0, bytesIn: 0, bytesOut: 0,
    writeRefused: 0, // writes to edge-only registers from elsewhere (exception 02)
    rateLimited: 0, // connections closed for their request rate
    errorBudget: 0, // connections closed for too many exceptions
  };
  const ee = new EventEmitter();
  const bank = createRegisterBank({ registers: o.registers, twinWritable: o.twinWritable, counters, onRefused: (r) => ee.emit('write-refused', r) });
  const commands = o.audit ? createCommandLog({ audit: o.audit, table, plant: o.plant }) : null;
  const sockets = new Set();
  let server = null;
  let port = null;

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
    servePeer(sock, {
      o, sources, bank, counters, commands, emit: (ev, arg) => ee.emit(ev, arg),
      onClose: () => { sockets.delete(sock); if (server) ee.emit('clients', sockets.size); },
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
    /** Read registers from the bank (local access, no event). @throws {ModbusServerError} E_MODBUS_ADDRESS */
    read: bank.read,
    /**
     * Write registers into the bank (local access, no event); with `by` (the flow's node that
     * wrote them) a write of the commands' registers is in the command log.
     * @throws {ModbusServerError} E_MODBUS_ADDRESS, E_MODBUS_WORDS
     */
    write(address, words, by) {
      const changed = bank.write(address, words);
      if (commands && by) commands.local(by, address, words, changed);
    },
  });
}

module.exports = { createModbusServer, ModbusServerError, DEFAULTS, EXCEPTIONS: EX };
