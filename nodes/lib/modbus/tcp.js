'use strict';
/**
 * Modbus TCP framing and the holding-register requests, in one place for both servers of the
 * project: the virtual PLC's (plc/modbus.js) and the cloud's (nodes/lib/modbus/server.js, the
 * `s7twin-modbus-server` node). What each does with a register is its own; what a frame is, which
 * requests exist, their limits and the exception answers are here.
 *
 *   MBAP header: transaction id (2), protocol id 0 (2), length = unit id + PDU (2), unit id (1)
 *   FC3  read holding registers      address, quantity 1..125         → 3, byte count, words
 *   FC6  write single register       address, value                   → echo
 *   FC16 write multiple registers    address, quantity 1..123, bytes  → 16, address, quantity
 *   any other function → exception 01; a malformed request → exception 03
 *
 * (Modbus application protocol v1.1b3, 6.3, 6.6, 6.12; Modbus messaging on TCP/IP v1.0b.)
 */
const { codedError } = require('../core/errors');

const MAX_READ = 125; // registers per FC3 (6.3)
const MAX_WRITE = 123; // registers per FC16 (6.12)
const MAX_PDU = 253; // bytes: an MBAP length (unit id + PDU) above 254 is not Modbus TCP
/** Exception codes (7): illegal function, illegal data address, illegal data value, device failure, busy. */
const EX = { FUNCTION: 1, ADDRESS: 2, VALUE: 3, FAILURE: 4, BUSY: 6 };

/** Error with a stable `code`; `exception` is the Modbus exception code to answer with. */
const ModbusTcpError = codedError('ModbusTcpError');
const refuse = (code, message, exception) => new ModbusTcpError(code, message, { exception });

/**
 * Take the first whole frame off the front of `buf`.
 * @param {Buffer} buf bytes received and not yet parsed
 * @returns {null|{bad: true}|{head: Buffer, pdu: Buffer, rest: Buffer}} null: wait for more bytes;
 *   bad: not Modbus TCP (protocol id not 0, or a length no frame has): drop the connection rather
 *   than guess where the next frame starts; else the frame's MBAP header (a copy, 7 bytes), its
 *   PDU and what follows it
 */
function takeFrame(buf) {
  if (buf.length < 7) return null;
  const len = buf.readUInt16BE(4); // unit id + PDU
  if (buf.readUInt16BE(2) !== 0 || len < 2 || len > MAX_PDU + 1) return { bad: true };
  if (buf.length < 6 + len) return null;
  return { head: Buffer.from(buf.subarray(0, 7)), pdu: buf.subarray(7, 6 + len), rest: buf.subarray(6 + len) };
}

/**
 * The answer frame to a request: its MBAP header with the length of `pdu`, then `pdu`.
 * @param {Buffer} head the request's header (takeFrame), reused
 * @param {Buffer} pdu
 * @returns {Buffer}
 */
function frame(head, pdu) {
  head.writeUInt16BE(pdu.length + 1, 4);
  return Buffer.concat([head, pdu]);
}

/**
 * Parse a request PDU into what it asks.
 * @param {Buffer} pdu
 * @returns {{fc: 3, address: number, qty: number}|{fc: 6|16, address: number, qty: number, words: number[]}}
 * @throws {ModbusTcpError} E_MODBUS_FUNCTION (exception 01), E_MODBUS_FRAME or E_MODBUS_QUANTITY (03)
 */
function parseRequest(pdu) {
  const fc = pdu[0];
  switch (fc) {
    case 3: {
      if (pdu.length !== 5) throw refuse('E_MODBUS_FRAME', 'bad FC3 length', EX.VALUE);
      const address = pdu.readUInt16BE(1);
      const qty = pdu.readUInt16BE(3);
      if (qty < 1 || qty > MAX_READ) throw refuse('E_MODBUS_QUANTITY', `quantity ${qty} outside 1..${MAX_READ}`, EX.VALUE);
      return { fc, address, qty };
    }
    case 6:
      if (pdu.length !== 5) throw refuse('E_MODBUS_FRAME', 'bad FC6 length', EX.VALUE);
      return { fc, address: pdu.readUInt16BE(1), qty: 1, words: [pdu.readUInt16BE(3)] };
    case 16: {
      const qty = pdu.length >= 6 ? pdu.readUInt16BE(3) : 0;
      if (qty < 1 || qty > MAX_WRITE || pdu[5] !== 2 * qty || pdu.length !== 6 + 2 * qty) {
        throw refuse('E_MODBUS_QUANTITY', 'bad FC16 quantity or byte count', EX.VALUE);
      }
      const words = [];
      for (let k = 0; k < qty; k++) words.push(pdu.readUInt16BE(6 + 2 * k));
      return { fc, address: pdu.readUInt16BE(1), qty, words };
    }
    default:
      throw refuse('E_MODBUS_FUNCTION', `function ${fc} not supported`, EX.FUNCTION);
  }
}

/**
 * The answer PDU to a request that was served.
 * @param {{fc: number, address: number, qty: number, words?: number[]}} req from parseRequest
 * @param {ArrayLike<number>} [words] FC3: the registers read (req.qty of them)
 * @returns {Buffer}
 */
function answer(req, words) {
  if (req.fc === 3) {
    const out = Buffer.alloc(2 + 2 * req.qty);
    out[0] = 3; out[1] = 2 * req.qty;
    for (let k = 0; k < req.qty; k++) out.writeUInt16BE(words[k], 2 + 2 * k);
    return out;
  }
  const out = Buffer.alloc(5);
  out[0] = req.fc;
  out.writeUInt16BE(req.address, 1);
  out.writeUInt16BE(req.fc === 6 ? req.words[0] : req.qty, 3); // FC6: echo; FC16: the quantity
  return out;
}

/** The exception PDU: the function code with its high bit set, then the exception code. */
const exceptionPdu = (fc, code) => Buffer.from([(fc | 0x80) & 0xff, code]);

module.exports = { takeFrame, frame, parseRequest, answer, exceptionPdu, ModbusTcpError, MAX_READ, MAX_WRITE, EXCEPTIONS: EX };
