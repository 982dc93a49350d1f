'use strict';
/**
 * A plant's Modbus register map as a server serves it (the table's map: lib/core/table/modbus.js):
 * which registers hold a tag, which a twin may write, the words of a read from the plant's values
 * and the values of a write. The virtual PLC's Modbus server answers from it; the cloud's Modbus
 * server opens the registers twins may write from it. Pure functions, no sockets.
 */
const { codedError } = require('../core/errors');
const { demoTable } = require('../core/io-table');

/** Error with a stable `code` (E_MODBUS_MAP); `exception`: the Modbus exception to answer with. */
const ModbusMapError = codedError('ModbusMapError');
const EX_ADDRESS = 0x02;
const EX_VALUE = 0x03;

/** Sorted, merged register ranges {from, to} of a list of registers. */
function rangesOf(regs) {
  const out = [];
  for (const r of [...new Set(regs)].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && last.to + 1 === r) last.to = r; else out.push({ from: r, to: r });
  }
  return out;
}

/** The registers a tag's place covers. */
const regsOf = (t) => Array.from({ length: Math.max(1, t.modbus.words) }, (_, k) => t.modbus.reg + k);

/**
 * The registers of the commands: those of the cloud-writable tags (the demo plant's HR0).
 * @param {object} [table] default: the demo plant's
 * @returns {Array<{from: number, to: number}>}
 */
function commandRangesOf(table = demoTable()) {
  return rangesOf(table.writable.filter((t) => t.modbus).flatMap(regsOf));
}

/**
 * The registers any client may write on the cloud's server: the cloud-writable tags' and the
 * probe requests of every PLC slot.
 * @param {object} [table] default: the demo plant's
 * @returns {Array<{from: number, to: number}>}
 */
function twinWritableOf(table = demoTable()) {
  const m = table.modbusMap;
  return [
    ...commandRangesOf(table),
    { from: m.probeRequestBase, to: m.probeRequestBase + 2 * table.PROBE_SLOTS - 1 },
  ];
}

/**
 * The map of one table for a server that holds the plant's values (the virtual PLC).
 * @param {object} [table] default: the demo plant's
 * @returns {{has(a: number): boolean, read(address: number, qty: number, values: object): number[],
 *   write(address: number, words: number[], values: object): object}}
 */
function createRegisterMap(table = demoTable()) {
  const mapped = table.tags.filter((t) => t.modbus);
  const owner = new Map(); // register -> tags in it
  for (const t of mapped) for (const r of regsOf(t)) owner.set(r, [...(owner.get(r) || []), t]);
  const lo = Math.min(...owner.keys());
  const hi = Math.max(...owner.keys());
  /** Bits of a packed register that input BOOLs define (a write may set only these). */
  const inputBits = (r) => (owner.get(r) || []).filter((t) => t.type === 'BOOL' && t.dir === 'in').reduce((m, t) => m | (1 << t.modbus.bit), 0);
  const refuse = (exception, message) => new ModbusMapError('E_MODBUS_MAP', message, { exception });

  return {
    /** Whether register `a` holds (part of) a tag. */
    has: (a) => owner.has(a),
    /**
     * The words of registers address..address+qty-1 from the plant's values.
     * @throws {ModbusMapError} exception 02 for a register that holds no tag
     */
    read(address, qty, values) {
      for (let a = address; a < address + qty; a++) if (!owner.has(a)) throw refuse(EX_ADDRESS, `register ${a} is not mapped`);
      const all = table.encodeRegisters(lo, hi - lo + 1, values);
      return all.slice(address - lo, address - lo + qty);
    },
    /**
     * The input values a write of `words` from `address` sets: every register must hold an
     * input, a packed register only its input bits; a value written in part keeps the rest of
     * its registers from `values`.
     * @returns {Object<string, number|string>} by short name (not yet checked for range)
     * @throws {ModbusMapError} exception 02 for an output's or unmapped register, 03 for bits no input defines
     */
    write(address, words, values) {
      const end = address + words.length;
      const touched = new Set();
      for (let a = address; a < end; a++) {
        const ts = owner.get(a);
        if (!ts) throw refuse(EX_ADDRESS, `register ${a} is not mapped`);
        if (ts.some((t) => t.dir !== 'in' && t.type !== 'BOOL') || ts.every((t) => t.dir !== 'in')) throw refuse(EX_ADDRESS, `register ${a} is read-only`);
        const w = words[a - address];
        if (ts[0].type === 'BOOL' && (w & ~inputBits(a))) throw refuse(EX_VALUE, `word 0x${w.toString(16)} for register ${a} sets bits no input defines`);
        for (const t of ts) if (t.dir === 'in') touched.add(t);
      }
      const span = [...touched].flatMap(regsOf);
      const from = Math.min(...span);
      const to = Math.max(...span);
      const block = table.encodeRegisters(from, to - from + 1, values);
      words.forEach((w, k) => { if (address + k >= from && address + k <= to) block[address + k - from] = w; });
      const decoded = table.decodeRegisters(from, block);
      const out = {};
      for (const t of touched) out[t.short] = decoded[t.short];
      return out;
    },
  };
}

module.exports = { createRegisterMap, twinWritableOf, commandRangesOf, rangesOf, ModbusMapError };
