'use strict';
/**
 * Modbus register codec for the Modbus path: holding registers <-> tag values, by the plant's I/O
 * table's Modbus map (nodes/lib/core/table/modbus.js; the demo plant's where no table is given),
 * never a copy of it. The demo plant's map:
 *
 *   HR 0      commands: the input BOOLs packed into one word
 *   HR 1      states: the output BOOLs packed into one word
 *   HR 2..4   GoodCount (INT), RejectCount (INT), BoxesIn (DINT, low 16 bits on Modbus)
 *
 * and a relay that passes a block of registers on only when it changed (masked to the bits the
 * table defines, so a word with undefined bits never reaches the PLC). Towards a cloud server the
 * relay sends the whole block again after `reset()` (the destination reconnected); towards a PLC
 * it is a `baseline` relay: the first read after start and after `rebase()` (the source
 * reconnected) only records what the source holds, and nothing is ever sent again, so the PLC
 * gets fresh changes and nothing else: a value left in a register from before a restart or a
 * reconnect is not a command anyone sent now, and writing it late could move the plant. Pure functions, no I/O, no RED.
 */
const { codedError } = require('../core/errors');
const { demoTable, TagError } = require('../core/io-table');

const WORD_MAX = 0xffff;
// Registers per FC3 read (125) and per FC16 write (123: a block relayed as one write holds no more).
const { MAX_READ: MAX_BLOCK, MAX_WRITE } = require('./tcp');
// Probe slots per relayed block: 61 UDInt slots = 122 registers, the most whole slots one FC16
// write can carry (a slot never straddles two blocks).
const PROBE_SLOTS_PER_BLOCK = Math.floor(MAX_WRITE / 2);
const MAX_RELAY_BLOCKS = 64; // distinct blocks one createBlockRelays keeps (1,024 probe slots = 17)

/** Error with a stable `code`. */
const ModbusCodecError = codedError('ModbusCodecError');

/**
 * Check that a register block is an array of 16-bit words.
 * @param {*} words
 * @returns {number[]}
 * @throws {ModbusCodecError} E_MODBUS_WORDS
 */
function checkWords(words) {
  if (Buffer.isBuffer(words)) {
    if (words.length % 2) throw new ModbusCodecError('E_MODBUS_WORDS', `a register buffer needs an even length, got ${words.length} bytes`);
    const out = [];
    for (let i = 0; i < words.length; i += 2) out.push(words.readUInt16BE(i));
    return out;
  }
  if (!Array.isArray(words) || words.length === 0 || words.length > MAX_BLOCK) {
    throw new ModbusCodecError('E_MODBUS_WORDS', `expected an array of 1..${MAX_BLOCK} register values`);
  }
  for (const w of words) {
    if (!Number.isInteger(w) || w < 0 || w > WORD_MAX) {
      throw new ModbusCodecError('E_MODBUS_WORDS', `register value ${JSON.stringify(w)} is not a 16-bit word (0..65535)`);
    }
  }
  return words;
}

/**
 * Check a start register.
 * @throws {ModbusCodecError} E_MODBUS_ADDRESS
 */
function checkAddress(address) {
  if (!Number.isInteger(address) || address < 0 || address > WORD_MAX) {
    throw new ModbusCodecError('E_MODBUS_ADDRESS', `register address ${JSON.stringify(address)} is not 0..65535`);
  }
  return address;
}

/** The registers that hold packed BOOLs, with the bits the table defines in each. */
function masksOf(table) {
  const masks = new Map();
  for (const e of table.modbusMap.entries) if (e.bit !== undefined) masks.set(e.reg, (masks.get(e.reg) || 0) | (1 << e.bit));
  return masks;
}

const codecs = new WeakMap(); // table -> its codec, made once

/**
 * The codec of one plant's table: decode, encode and mask by its Modbus map, and its blocks.
 * @param {object} [table] default: the demo plant's
 * @returns {{table: object, decode: Function, encode: Function, mask: Function, MASKS: Map<number, number>,
 *   COMMAND_BLOCK: {address, count}|null, STATE_BLOCK: {address, count}|null, COMMAND_REGISTER: number,
 *   STATE_REGISTER: number, PROBE_REQUEST_BASE: number, PROBE_RESPONSE_BASE: number, PROBE_SLOTS: number}}
 */
function codecOf(table = demoTable()) {
  let c = codecs.get(table);
  if (c) return c;
  const map = table.modbusMap;
  const MASKS = masksOf(table);
  c = {
    table,
    /**
     * Decode a block of holding registers into tag values.
     * @param {number} address first register of the block
     * @param {number[]|Buffer} words
     * @returns {Object<string, number|string>} every tag that lives wholly in the block, keyed by short name
     */
    decode(address, words) {
      checkAddress(address);
      return table.decodeRegisters(address, checkWords(words));
    },
    /**
     * Encode tag values into a block of holding registers. Tags missing from `values` count as
     * 0 ('' for a STRING); values are checked by the table (type and range).
     * @param {number} address first register
     * @param {number} count registers in the block
     * @param {Object<string, number|boolean|string>} values keyed by short name
     * @returns {number[]}
     * @throws {ModbusCodecError|TagError} E_UNKNOWN_TAG, E_TYPE, E_RANGE, E_MODBUS_NOT_MAPPED
     */
    encode(address, count, values) {
      checkAddress(address);
      const norm = {};
      for (const [k, v] of Object.entries(values || {})) {
        const tag = table.get(k);
        if (!tag) throw new TagError('E_UNKNOWN_TAG', `unknown tag "${k}"`);
        if (!tag.modbus) throw new ModbusCodecError('E_MODBUS_NOT_MAPPED', `tag "${k}" has no Modbus register`);
        const last = tag.modbus.reg + Math.max(1, tag.modbus.words) - 1;
        if (tag.modbus.reg < address || last >= address + count) {
          const where = `registers ${tag.modbus.reg}..${last}, outside ${address}..${address + count - 1}`;
          throw new ModbusCodecError('E_MODBUS_NOT_MAPPED', `tag "${k}" lives in ${where}`);
        }
        norm[tag.short] = table.normalise(tag, v);
      }
      return table.encodeRegisters(address, count, norm);
    },
    /** Clear the bits of a packed register that the table does not define (other registers pass). */
    mask: (reg, word) => (MASKS.has(reg) ? word & MASKS.get(reg) : word),
    MASKS,
    /** The registers of the inputs (a twin writes them, the edge relays them to the PLC). */
    COMMAND_BLOCK: map.commands,
    /** The registers of the outputs (the edge relays them from the PLC). */
    STATE_BLOCK: map.states,
    COMMAND_REGISTER: map.commands ? map.commands.address : null,
    STATE_REGISTER: map.states ? map.states.address : null,
    PROBE_REQUEST_BASE: map.probeRequestBase,
    PROBE_RESPONSE_BASE: map.probeResponseBase,
    /** The PLC's probe slots (the table's plc.probeSlots): the relay never covers more. */
    PROBE_SLOTS: table.PROBE_SLOTS,
  };
  codecs.set(table, c);
  return c;
}

/** Decode a block with the demo plant's map (codecOf(table).decode for another). */
const decode = (address, words, table) => codecOf(table).decode(address, words);
/** Encode a block with the demo plant's map (codecOf(table).encode for another). */
const encode = (address, count, values, table) => codecOf(table).encode(address, count, values);
/** Mask a register with the demo plant's map (codecOf(table).mask for another). */
const mask = (reg, word, table) => codecOf(table).mask(reg, word);

/**
 * A relay for one block of registers: `update(words)` answers what to pass on.
 * - `changed`: the tags whose values differ from the last update (all of them the first time,
 *   and after `reset()`), keyed by short name;
 * - `words`: the masked block, or null when nothing changed since the last time it was passed on
 *   and it was passed on less than `refreshMs` ago. The refresh brings the other side up to
 *   date after a write that failed while its client stayed connected (a Modbus Write refused
 *   with "Queue full", an exception reply): nothing tells the relay, and a change-only relay
 *   would never send that block again until the value changed once more.
 *
 * With `baseline` (a relay towards a PLC) only fresh changes pass:
 * - the first update, and the first after `rebase()`, is the baseline: it records the block and
 *   passes nothing (`words` null, `changed` empty, `baseline` true). What a source holds when the
 *   relay starts or the source reconnects (a stale image, or zeros after a restart) is not a
 *   command: written into the PLC it would undo what other paths set meanwhile;
 * - `reset()` and `refreshMs` are refused: a block sent again is a late write.
 * @param {{address: number, count?: number, refreshMs?: number, baseline?: boolean, table?: object}} opts refreshMs 0 = never;
 *   table: the plant's I/O table (default: the demo plant's)
 * @throws {ModbusCodecError} E_MODBUS_ADDRESS, E_CONFIG (baseline with refreshMs)
 */
function createRelay(opts) {
  const address = checkAddress(opts.address);
  const codec = codecOf(opts.table);
  const count = opts.count;
  const refreshMs = Number(opts.refreshMs) > 0 ? Number(opts.refreshMs) : 0;
  const baseline = Boolean(opts.baseline);
  if (baseline && refreshMs) throw new ModbusCodecError('E_CONFIG', 'a baseline relay (towards a PLC) never resends: refreshMs must be 0');
  let lastWords = null; // as last passed on (with baseline: as last read)
  let lastValues = null; // as last decoded
  let lastPassedAt = 0;
  let rebasing = baseline; // the next update is a baseline
  const counters = { updates: 0, passed: 0, unchanged: 0, rejected: 0, resets: 0, refreshed: 0, baselines: 0 };
  return {
    address,
    counters,
    baseline,
    /**
     * @param {number[]|Buffer} words the block as read, starting at `address`
     * @param {number} [now] ms clock (Date.now() by default)
     * @returns {{changed: Object<string, number>, words: number[]|null, values: Object<string, number>}}
     * @throws {ModbusCodecError} E_MODBUS_WORDS (counted in counters.rejected)
     */
    update(words, now = Date.now()) {
      let w;
      try {
        w = checkWords(words);
        if (count !== undefined && w.length !== count) {
          throw new ModbusCodecError('E_MODBUS_WORDS', `expected ${count} registers from ${address}, got ${w.length}`);
        }
      } catch (err) {
        counters.rejected += 1;
        throw err;
      }
      counters.updates += 1;
      const masked = w.map((x, i) => codec.mask(address + i, x));
      const values = codec.decode(address, masked);
      if (rebasing) {
        rebasing = false;
        lastWords = masked;
        lastValues = values;
        counters.baselines += 1;
        return { changed: {}, words: null, values, baseline: true };
      }
      const changed = lastValues ? codec.table.diff(lastValues, values) : { ...values };
      lastValues = values;
      const same = lastWords && lastWords.length === masked.length && lastWords.every((x, i) => x === masked[i]);
      if (same && !(refreshMs && now - lastPassedAt >= refreshMs)) { counters.unchanged += 1; return { changed, words: null, values }; }
      if (same) counters.refreshed += 1;
      lastWords = masked;
      lastPassedAt = now;
      counters.passed += 1;
      return { changed, words: masked, values };
    },
    /**
     * Forget what was passed on: the next update passes the whole block again.
     * @throws {ModbusCodecError} E_BASELINE on a baseline relay (a block sent again is a late write)
     */
    reset() {
      if (baseline) throw new ModbusCodecError('E_BASELINE', 'a baseline relay never sends a block again');
      lastWords = null;
      lastValues = null;
      counters.resets += 1;
    },
    /** Baseline relays: the next update records the source's block without passing it on (the source reconnected). */
    rebase() {
      if (baseline) rebasing = true;
    },
  };
}

/**
 * Relays for blocks whose address comes with each read (a Modbus Flex Getter's
 * msg.modbusRequest), one createRelay per start register, created on first use. The probe relay
 * of the edge reads the probe ranges in several blocks through one Getter: each block keeps its
 * own "last passed on" so a block is written on only when it changed (or is due a refresh).
 * @param {{refreshMs?: number, maxBlocks?: number, maxWords?: number, baseline?: boolean, table?: object}} [opts]
 *   maxWords: longest block accepted (default 123, so a block fits in one FC16 write); baseline:
 *   every block as in createRelay (its first read, and its first after rebase(), passes nothing)
 * @throws {ModbusCodecError} E_CONFIG (baseline with refreshMs)
 */
function createBlockRelays(opts = {}) {
  const refreshMs = opts.refreshMs;
  const baseline = Boolean(opts.baseline);
  if (baseline && Number(refreshMs) > 0) throw new ModbusCodecError('E_CONFIG', 'a baseline relay (towards a PLC) never resends: refreshMs must be 0');
  const maxBlocks = opts.maxBlocks || MAX_RELAY_BLOCKS;
  const maxWords = opts.maxWords || MAX_WRITE;
  const relays = new Map(); // address -> relay
  const counters = { updates: 0, rejected: 0, resets: 0 }; // updates: blocks read (all blocks)
  return {
    counters,
    baseline,
    /** Number of blocks seen. */
    get size() { return relays.size; },
    /**
     * @param {number} address first register of the block as read
     * @param {number[]|Buffer} words
     * @param {number} [now]
     * @returns {{address: number, changed: Object<string, number>, words: number[]|null, values: Object<string, number>}}
     * @throws {ModbusCodecError} E_MODBUS_ADDRESS, E_MODBUS_WORDS, E_MODBUS_BLOCKS (counted in counters.rejected)
     */
    update(address, words, now = Date.now()) {
      let relay = relays.get(address);
      try {
        checkAddress(address);
        const w = checkWords(words);
        if (w.length > maxWords) {
          throw new ModbusCodecError('E_MODBUS_WORDS', `a relayed block holds at most ${maxWords} registers (one FC16 write), got ${w.length}`);
        }
        if (address + w.length - 1 > WORD_MAX) throw new ModbusCodecError('E_MODBUS_ADDRESS', `registers ${address}..${address + w.length - 1} run past 65535`);
        if (!relay) {
          if (relays.size >= maxBlocks) throw new ModbusCodecError('E_MODBUS_BLOCKS', `more than ${maxBlocks} distinct blocks (register ${address})`);
          relay = createRelay({ address, refreshMs, baseline, table: opts.table });
          relays.set(address, relay);
        }
      } catch (err) {
        counters.rejected += 1;
        throw err;
      }
      counters.updates += 1;
      return { address, ...relay.update(words, now) };
    },
    /**
     * Forget what was passed on: every block is passed whole on its next read.
     * @throws {ModbusCodecError} E_BASELINE on baseline relays
     */
    reset() {
      if (baseline) throw new ModbusCodecError('E_BASELINE', 'a baseline relay never sends a block again');
      for (const r of relays.values()) r.reset();
      counters.resets += 1;
    },
    /** Baseline relays: every block's next read is a baseline again (the source reconnected). */
    rebase() {
      for (const r of relays.values()) r.rebase();
    },
    /** Baselines recorded over all blocks. */
    get baselines() {
      let n = 0;
      for (const r of relays.values()) n += r.counters.baselines;
      return n;
    },
  };
}

/**
 * The blocks that cover probe slots 0..slots-1 from `base` (UDInt slots, 2 registers each), at
 * most PROBE_SLOTS_PER_BLOCK slots each, so every block is one FC3 read and one FC16 write.
 * @param {number} slots
 * @param {number} base PROBE_REQUEST_BASE or PROBE_RESPONSE_BASE
 * @returns {{address: number, quantity: number}[]}
 */
function probeBlocks(slots, base) {
  const out = [];
  for (let first = 0; first < slots; first += PROBE_SLOTS_PER_BLOCK) {
    const n = Math.min(PROBE_SLOTS_PER_BLOCK, slots - first);
    out.push({ address: base + 2 * first, quantity: 2 * n });
  }
  return out;
}

// The demo plant's map and blocks, for callers with no table (codecOf(table) for any other).
const { MASKS, COMMAND_BLOCK, STATE_BLOCK, COMMAND_REGISTER, STATE_REGISTER, PROBE_REQUEST_BASE, PROBE_RESPONSE_BASE, PROBE_SLOTS } = codecOf(demoTable());

module.exports = {
  MASKS, COMMAND_BLOCK, STATE_BLOCK, COMMAND_REGISTER, STATE_REGISTER, PROBE_REQUEST_BASE, PROBE_RESPONSE_BASE, PROBE_SLOTS,
  ModbusCodecError, codecOf, decode, encode, mask, createRelay, createBlockRelays, probeBlocks, checkWords, MAX_BLOCK, MAX_WRITE,
  PROBE_SLOTS_PER_BLOCK,
  /**
   * The s7twin-modbus-codec node's default refresh: none. A resend rewrites what the other side
   * holds; towards the PLC that would re-assert this path's inputs over another path's (all
   * four share the PLC's inputs), so only cloud-facing relays turn it on.
   */
  DEFAULT_REFRESH_MS: 0,
};
