'use strict';
/**
 * A small Modbus TCP server over one bank of holding registers, for the cloud side of the Modbus
 * path (the `s7twin-modbus-server` node). Function codes 3 (read holding registers), 6 (write
 * single register) and 16 (write multiple registers); any other function → exception 01, an
 * address range outside the bank → exception 02, a bad quantity or byte count → exception 03.
 * A request is applied whole or not at all. Emits 'write' {address, words} after each client write.
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

const DEFAULTS = {
  host: '127.0.0.1',
  port: 5021, // the cloud Modbus server (the PLC's own is 5020)
  registers: 6048, // HR 0..6047: I/O block, probe requests 1000+2i and responses 4000+2i, 1,024 slots
  // Connections served at once; further ones are closed at once (counters.refused, 'refused'
  // event). A cloud server serves the edge (two connections: I/O loops and probe relay), its own
  // flow-timer client and every twin: the benchmark's load levels run one twin per user.
  maxClients: 256,
  maxBuffered: 4096, // bytes of unparsed input per connection before it is dropped (no frame is > 260)
};
const MAX_READ = 125; // registers per FC3 (Modbus application protocol v1.1b3, 6.3)
const MAX_WRITE = 123; // registers per FC16 (6.12)
const EX = { FUNCTION: 1, ADDRESS: 2, VALUE: 3 };

/** Error with a stable `code`; `exception` is the Modbus exception code sent back. */
class ModbusServerError extends Error {
  constructor(code, message, exception) {
    super(message);
    this.name = 'ModbusServerError';
    this.code = code;
    if (exception) this.exception = exception;
  }
}

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
  if (!Number.isInteger(o.maxClients) || o.maxClients < 1) {
    throw new ModbusServerError('E_CONFIG', `maxClients must be a whole number >= 1, got ${o.maxClients}`);
  }
  const bank = new Uint16Array(o.registers);
  const counters = {
    connects: 0, requests: 0, reads: 0, writes: 0, exceptions: 0, badFrames: 0, refused: 0, bytesIn: 0, bytesOut: 0,
  };
  const ee = new EventEmitter();
  const sockets = new Set();
  let server = null;
  let port = null;

  function range(address, qty) {
    if (address + qty > bank.length) {
      throw new ModbusServerError('E_MODBUS_ADDRESS', `registers ${address}..${address + qty - 1} outside 0..${bank.length - 1}`, EX.ADDRESS);
    }
  }

  /** Answer one PDU. @returns {{res: Buffer, write?: {address, words}}} */
  function handle(pdu) {
    const fc = pdu[0];
    try {
      switch (fc) {
        case 3: {
          if (pdu.length !== 5) throw new ModbusServerError('E_MODBUS_FRAME', 'bad FC3 length', EX.VALUE);
          const address = pdu.readUInt16BE(1);
          const qty = pdu.readUInt16BE(3);
          if (qty < 1 || qty > MAX_READ) throw new ModbusServerError('E_MODBUS_QUANTITY', `quantity ${qty} outside 1..${MAX_READ}`, EX.VALUE);
          range(address, qty);
          const res = Buffer.alloc(2 + 2 * qty);
          res[0] = 3; res[1] = 2 * qty;
          for (let k = 0; k < qty; k++) res.writeUInt16BE(bank[address + k], 2 + 2 * k);
          counters.reads += 1;
          return { res };
        }
        case 6: {
          if (pdu.length !== 5) throw new ModbusServerError('E_MODBUS_FRAME', 'bad FC6 length', EX.VALUE);
          const address = pdu.readUInt16BE(1);
          range(address, 1);
          const words = [pdu.readUInt16BE(3)];
          bank[address] = words[0];
          counters.writes += 1;
          return { res: Buffer.from(pdu), write: { address, words } };
        }
        case 16: {
          const address = pdu.readUInt16BE(1);
          const qty = pdu.readUInt16BE(3);
          if (pdu.length < 6 || qty < 1 || qty > MAX_WRITE || pdu[5] !== 2 * qty || pdu.length !== 6 + 2 * qty) {
            throw new ModbusServerError('E_MODBUS_QUANTITY', 'bad FC16 quantity or byte count', EX.VALUE);
          }
          range(address, qty);
          const words = [];
          for (let k = 0; k < qty; k++) words.push(pdu.readUInt16BE(6 + 2 * k));
          bank.set(words, address);
          counters.writes += 1;
          return { res: Buffer.from([16, pdu[1], pdu[2], pdu[3], pdu[4]]), write: { address, words } };
        }
        default:
          throw new ModbusServerError('E_MODBUS_FUNCTION', `function ${fc} not supported`, EX.FUNCTION);
      }
    } catch (err) {
      if (!err.exception) throw err;
      counters.exceptions += 1;
      return { res: Buffer.from([(fc | 0x80) & 0xff, err.exception]) };
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
    let buf = Buffer.alloc(0);
    sock.on('data', (data) => {
      counters.bytesIn += data.length;
      buf = buf.length ? Buffer.concat([buf, data]) : data;
      if (buf.length > o.maxBuffered) { counters.badFrames += 1; sock.destroy(); return; }
      while (buf.length >= 7) {
        const len = buf.readUInt16BE(4); // unit id + PDU
        if (buf.readUInt16BE(2) !== 0 || len < 2 || len > 254) {
          // Not Modbus TCP (protocol id or length impossible): drop the connection rather than
          // guess where the next frame starts.
          counters.badFrames += 1;
          sock.destroy();
          return;
        }
        if (buf.length < 6 + len) break;
        const head = Buffer.from(buf.subarray(0, 7));
        const pdu = buf.subarray(7, 6 + len);
        buf = buf.subarray(6 + len);
        counters.requests += 1;
        const { res, write } = handle(pdu);
        head.writeUInt16BE(res.length + 1, 4);
        const out = Buffer.concat([head, res]);
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
