'use strict';
/**
 * Modbus TCP interface of the virtual PLC: holding registers over the process image, laid out by
 * the `modbus` section of the I/O table.
 *
 *   HR 0            commands: the input BOOLs packed into one word (read/write)
 *   HR 1            states: the output BOOLs packed into one word (read-only)
 *   HR 2, 3, 4      GoodCount, RejectCount, BoxesIn (low 16 bits) (read-only)
 *   HR 1000+2i, +1  probe request slot i, UDInt, high word first (read/write)
 *   HR 4000+2i, +1  probe response slot i (read-only)
 *
 * Function codes 3 (read holding registers), 6 (write single) and 16 (write multiple). Any other
 * function → exception 01; an address outside the map, or a write to a read-only register →
 * exception 02 (illegal data address); a bad quantity or a command word with undefined bits →
 * exception 03. Nothing is written unless the whole request is valid.
 *
 * A small server of our own rather than modbus-serial's ServerTCP: that one defers every request
 * with setTimeout(0) (≥ 1 ms added to each round trip, which the protocol comparison would
 * measure) and does not expose its sockets for setNoDelay. The framing, the requests and their
 * limits are nodes/lib/modbus/tcp.js, shared with the cloud's Modbus server.
 */
const net = require('node:net');
const tags = require('../nodes/lib/core/tags');
const mbtcp = require('../nodes/lib/modbus/tcp');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 5020, // 502 needs root
  maxClients: 32, // further connections are closed at once
};
const MB = tags.TABLE.modbus;
const CMD = MB.commandRegister;
const STATE = MB.stateRegister;
const COUNTERS = Object.values(MB.counterRegisters); // [2, 3, 4]
const COUNTER_TAG = new Map(tags.tags.filter((t) => t.modbus && t.type !== 'BOOL').map((t) => [t.modbus.reg, t]));
const CMD_BITS = tags.packRegister(CMD, Object.fromEntries(tags.tags.map((t) => [t.short, 1])));
const EX = mbtcp.EXCEPTIONS;

/** A register the map refuses: code E_MODBUS, `exception` the Modbus exception code to answer with. */
const refuse = (exception, message) => new mbtcp.ModbusTcpError('E_MODBUS', message, { exception });

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
  const reqBase = MB.probeRequestBase;
  const resBase = MB.probeResponseBase;
  const inProbe = (a, base) => a >= base && a < base + 2 * slots;

  /** Value of one holding register. @throws {ModbusTcpError} */
  function readRegister(a, values) {
    if (a === CMD) return tags.packRegister(CMD, values);
    if (a === STATE) return tags.packRegister(STATE, values);
    if (COUNTERS.includes(a)) return values[COUNTER_TAG.get(a).short] & 0xffff;
    if (inProbe(a, reqBase)) return image.db2.readUInt16BE(2 * (a - reqBase));
    if (inProbe(a, resBase)) return image.db3.readUInt16BE(2 * (a - resBase));
    throw refuse(EX.ADDRESS, `register ${a} is not mapped`);
  }

  /**
   * Validate then apply a write of consecutive registers. All or nothing.
   * @throws {ModbusTcpError}
   */
  function writeRegisters(start, words) {
    const end = start + words.length;
    const probes = new Map(); // slot → [hi, lo]
    let command = null;
    for (let a = start; a < end; a++) {
      const w = words[a - start];
      if (a === CMD) {
        if (w & ~CMD_BITS) throw refuse(EX.VALUE, `command word 0x${w.toString(16)} sets undefined bits`);
        command = w;
      } else if (inProbe(a, reqBase)) {
        const slot = (a - reqBase) >> 1;
        if (!probes.has(slot)) probes.set(slot, [null, null]);
        probes.get(slot)[(a - reqBase) & 1] = w;
      } else {
        throw refuse(EX.ADDRESS, `register ${a} is ${readable(a) ? 'read-only' : 'not mapped'}`);
      }
    }
    if (command !== null) cfg.setInputs(tags.unpackRegister(CMD, command));
    for (const [slot, [hi, lo]] of probes) {
      // Half a UDInt written: keep the other half of the current request (queued value first).
      const cur = image.probeRequest(slot);
      const v = (((hi ?? (cur >>> 16)) << 16) | (lo ?? (cur & 0xffff))) >>> 0;
      cfg.setProbe(slot, v);
    }
  }

  function readable(a) {
    return a === CMD || a === STATE || COUNTERS.includes(a) || inProbe(a, reqBase) || inProbe(a, resBase);
  }

  /** Answer one PDU. @returns {Buffer} the response PDU */
  function handle(pdu) {
    try {
      const req = mbtcp.parseRequest(pdu);
      if (req.fc === 3) {
        const values = image.values();
        const words = [];
        for (let k = 0; k < req.qty; k++) words.push(readRegister(req.address + k, values));
        return mbtcp.answer(req, words);
      }
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
