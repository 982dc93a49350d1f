'use strict';
/**
 * The cloud Modbus server's bank of holding registers and who may write which: a request PDU in,
 * its answer PDU out, applied whole or not at all. No sockets: lib/modbus/peer.js hands each
 * request of a connection here, and tests call it directly.
 *
 * Modbus has no authentication, so the server decides by source address: the registers twins
 * write (HR0 commands, the probe requests HR1000+) are open to every client; every other register
 * (PLC states HR1, counters HR2..4, probe responses HR4000+) only to connections from the edge.
 * Anyone else's write there is refused whole with exception 02 and counted (writeRefused).
 */
const { codedError } = require('../core/errors');
const mbtcp = require('./tcp');

const EX = mbtcp.EXCEPTIONS;

/** Error with a stable `code`; `exception` is the Modbus exception code sent back. */
const ModbusServerError = codedError('ModbusServerError');

/**
 * @param {object} b
 * @param {number} b.registers how many (addresses 0..registers-1)
 * @param {Array<{from: number, to: number}>} b.twinWritable ranges any client may write
 * @param {{reads: number, writes: number, exceptions: number, writeRefused: number}} b.counters
 * @param {(r: {address: number, qty: number, from: string}) => void} b.onRefused a write refused
 *   for its source
 * @returns {{handle(pdu: Buffer, peer: {edge: boolean, from: string}): {res: Buffer, req?: object,
 *   write?: {address: number, words: number[]}, changed?: boolean, exception?: boolean, code?: string,
 *   message?: string}, read(address: number, qty?: number): number[],
 *   write(address: number, words: number[]): boolean}}
 *   handle: `req` the request as parsed (when it parsed), `changed` whether a write changed a word,
 *   `code`/`message` why a request got its exception; write: whether it changed a word
 */
function createRegisterBank(b) {
  const bank = new Uint16Array(b.registers);
  const { counters } = b;
  const open = (address, qty) => b.twinWritable.some((r) => address >= r.from && address + qty - 1 <= r.to);

  function range(address, qty) {
    if (address + qty > bank.length) {
      throw new ModbusServerError('E_MODBUS_ADDRESS', `registers ${address}..${address + qty - 1} outside 0..${bank.length - 1}`, { exception: EX.ADDRESS });
    }
  }

  /** Would writing `words` at `address` change a register? */
  const differs = (address, words) => words.some((w, k) => bank[address + k] !== w);

  /** Only the edge writes outside twinWritable. */
  function checkWriter(peer, address, qty) {
    if (peer.edge || open(address, qty)) return;
    counters.writeRefused += 1;
    b.onRefused({ address, qty, from: peer.from });
    throw new ModbusServerError('E_MODBUS_NOT_EDGE', `registers ${address}..${address + qty - 1} are written by the edge only`, { exception: EX.ADDRESS });
  }

  return {
    /** Answer one request PDU from `peer`. A request that cannot be served gets its exception. */
    handle(pdu, peer) {
      let req;
      try {
        req = mbtcp.parseRequest(pdu);
        range(req.address, req.qty);
        if (req.fc === 3) {
          counters.reads += 1;
          return { res: mbtcp.answer(req, bank.subarray(req.address, req.address + req.qty)), req };
        }
        checkWriter(peer, req.address, req.qty);
        const changed = differs(req.address, req.words);
        bank.set(req.words, req.address);
        counters.writes += 1;
        return { res: mbtcp.answer(req), req, write: { address: req.address, words: req.words }, changed };
      } catch (err) {
        if (!err.exception) throw err;
        counters.exceptions += 1;
        return { res: mbtcp.exceptionPdu(pdu[0], err.exception), req, exception: true, code: err.code, message: err.message };
      }
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
     * @returns {boolean} whether a register changed
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
      const changed = differs(address, words);
      bank.set(words, address);
      return changed;
    },
  };
}

module.exports = { createRegisterBank, ModbusServerError };
