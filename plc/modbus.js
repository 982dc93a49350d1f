'use strict';
/**
 * Modbus TCP interface of the virtual PLC: holding registers over the process image, laid out by
 * the I/O table's Modbus map (nodes/lib/core/table/modbus.js; `node scripts/modbus-map.js` prints
 * it). The demo plant's:
 *
 *   HR 0            commands: the input BOOLs packed into one word (read/write)
 *   HR 1            states: the output BOOLs packed into one word (read-only)
 *   HR 2, 3, 4      GoodCount, RejectCount, BoxesIn (low 16 bits) (read-only)
 *   HR 1000+2i, +1  probe request slot i, UDInt, high word first (read/write)
 *   HR 4000+2i, +1  probe response slot i (read-only)
 *
 * Registers of inputs are read/write, of outputs read-only. Function codes 3 (read holding
 * registers), 6 (write single) and 16 (write multiple). Any other function → exception 01; an
 * address outside the map, or a write to a read-only register → exception 02 (illegal data
 * address); a bad quantity, a packed word with bits no input defines, or a value the table
 * refuses → exception 03. Nothing is written unless the whole request is valid.
 *
 * A small server of our own rather than modbus-serial's ServerTCP: that one defers every request
 * with setTimeout(0) (≥ 1 ms added to each round trip, which the protocol comparison would
 * measure) and does not expose its sockets for setNoDelay. The framing, the requests and their
 * limits are nodes/lib/modbus/tcp.js, shared with the cloud's Modbus server.
 */
const net = require('node:net');
const mbtcp = require('../nodes/lib/modbus/tcp');
const { createRegisterMap } = require('../nodes/lib/modbus/map');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 5020, // 502 needs root
  maxClients: 32, // further connections are closed at once
};
const EX = mbtcp.EXCEPTIONS;

/** A register the map refuses: code E_MODBUS, `exception` the Modbus exception code to answer with. */
const refuse = (exception, message) => new mbtcp.ModbusTcpError('E_MODBUS', message, { exception });

/** Registers of a probe block: each UDInt slot as two words, high word first. */
function probeWords(buf, offset, qty) {
  const out = [];
  for (let k = 0; k < qty; k++) out.push(buf.readUInt16BE(2 * (offset + k)));
  return out;
}

/**
 * Start the Modbus TCP server.
 * @param {object} image the process image
 * @param {{host?:string, port?:number, counters:object, setInputs:Function, setProbe:Function}} opts
 * @returns {Promise<{port:number, stop():Promise<void>}>}
 */
async function startModbus(image, opts) {
  const cfg = { ...DEFAULTS, ...opts };
  const c = cfg.counters;
  Object.assign(c, { modbusClients: 0, modbusConnects: 0, modbusRequests: 0, modbusExceptions: 0, modbusBadFrames: 0 });
  const slots = image.probeSlots;
  const { modbusMap } = image.table;
  const map = createRegisterMap(image.table);
  const reqBase = modbusMap.probeRequestBase;
  const resBase = modbusMap.probeResponseBase;
  const inProbe = (a, base) => a >= base && a < base + 2 * slots;

  /** Values of holding registers. @throws {ModbusTcpError|ModbusMapError} */
  function readRegisters(address, qty) {
    if (inProbe(address, reqBase) && inProbe(address + qty - 1, reqBase)) return probeWords(image.db2, address - reqBase, qty);
    if (inProbe(address, resBase) && inProbe(address + qty - 1, resBase)) return probeWords(image.db3, address - resBase, qty);
    if (inProbe(address, reqBase) || inProbe(address, resBase) || inProbe(address + qty - 1, reqBase) || inProbe(address + qty - 1, resBase)) {
      throw refuse(EX.ADDRESS, `registers ${address}..${address + qty - 1} run out of the probe slots`);
    }
    return map.read(address, qty, image.values());
  }

  /**
   * Validate then apply a write of consecutive registers. All or nothing.
   * @throws {ModbusTcpError|ModbusMapError|TagError}
   */
  function writeRegisters(start, words) {
    const end = start + words.length;
    if (!inProbe(start, reqBase) || !inProbe(end - 1, reqBase)) {
      if (inProbe(start, reqBase) || inProbe(end - 1, reqBase) || inProbe(start, resBase) || inProbe(end - 1, resBase)) {
        throw refuse(EX.ADDRESS, `registers ${start}..${end - 1} are ${inProbe(start, resBase) ? 'read-only' : 'not all probe requests'}`);
      }
      cfg.setInputs(map.write(start, words, image.values()));
      return;
    }
    const probes = new Map(); // slot → [hi, lo]
    for (let a = start; a < end; a++) {
      const slot = (a - reqBase) >> 1;
      if (!probes.has(slot)) probes.set(slot, [null, null]);
      probes.get(slot)[(a - reqBase) & 1] = words[a - start];
    }
    for (const [slot, [hi, lo]] of probes) {
      // Half a UDInt written: keep the other half of the current request (queued value first).
      const cur = image.probeRequest(slot);
      const v = (((hi ?? (cur >>> 16)) << 16) | (lo ?? (cur & 0xffff))) >>> 0;
      cfg.setProbe(slot, v);
    }
  }

  /** Answer one PDU. @returns {Buffer} the response PDU */
  function handle(pdu) {
    try {
      const req = mbtcp.parseRequest(pdu);
      if (req.fc === 3) return mbtcp.answer(req, readRegisters(req.address, req.qty));
      writeRegisters(req.address, req.words);
      return mbtcp.answer(req);
    } catch (err) {
      c.modbusExceptions += 1;
      // A malformed request or an unmapped register carries its exception; a write rejected by
      // the tag dictionary is a bad value; anything else an unexpected failure.
      const code = err.exception || (err.code && err.code.startsWith('E_') ? EX.VALUE : EX.FAILURE);
      return mbtcp.exceptionPdu(pdu[0], code);
    }
  }

  const sockets = new Set();
  const server = net.createServer((sock) => {
    sock.setNoDelay(true);
    if (sockets.size >= cfg.maxClients) { sock.destroy(); return; }
    sockets.add(sock);
    c.modbusClients += 1; c.modbusConnects += 1;
    let buf = Buffer.alloc(0);
    sock.on('data', (data) => {
      buf = buf.length ? Buffer.concat([buf, data]) : data;
      for (let f = mbtcp.takeFrame(buf); f; f = mbtcp.takeFrame(buf)) {
        if (f.bad) { c.modbusBadFrames += 1; sock.destroy(); return; } // not Modbus TCP
        buf = f.rest;
        c.modbusRequests += 1;
        sock.write(mbtcp.frame(f.head, handle(f.pdu)));
      }
    });
    sock.on('error', () => {}); // a reset by the client is normal; 'close' follows
    sock.on('close', () => { sockets.delete(sock); c.modbusClients -= 1; });
  });

  await new Promise((resolve, reject) => {
    server.once('error', (err) => {
      const e = new Error(`Modbus server cannot listen on ${cfg.host}:${cfg.port}: ${err.message}`);
      e.code = 'E_MODBUS_START';
      reject(e);
    });
    server.listen({ host: cfg.host, port: cfg.port }, resolve);
  });
  server.on('error', () => { c.modbusServerErrors = (c.modbusServerErrors || 0) + 1; });

  return {
    port: server.address().port,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

module.exports = { startModbus, DEFAULTS, EXCEPTIONS: EX };
