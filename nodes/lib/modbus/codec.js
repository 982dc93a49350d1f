'use strict';
/**
 * Modbus register codec for the Modbus path: holding registers <-> tag values, by the I/O
 * table's `modbus` layout (nodes/lib/core/io-table.json), never a copy of it.
 *
 *   HR 0      commands: the input BOOLs packed into one word (tags.packRegister)
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
const tags = require('../core/tags');

const MB = tags.TABLE.modbus;
const WORD_MAX = 0xffff;
// Registers per FC3 read (125) and per FC16 write (123: a block relayed as one write holds no more).
const { MAX_READ: MAX_BLOCK, MAX_WRITE } = require('./tcp');
// Probe slots per relayed block: 61 UDInt slots = 122 registers, the most whole slots one FC16
// write can carry (a slot never straddles two blocks).
const PROBE_SLOTS_PER_BLOCK = Math.floor(MAX_WRITE / 2);
const MAX_RELAY_BLOCKS = 64; // distinct blocks one createBlockRelays keeps (1,024 probe slots = 17)

/** Error with a stable `code`. */
const ModbusCodecError = codedError('ModbusCodecError');

/** Registers that hold packed BOOLs (commandRegister, stateRegister). */
const PACKED = new Set(tags.tags.filter((t) => t.type === 'BOOL' && t.modbus).map((t) => t.modbus.reg));
/** Non-BOOL tags by register (counters). */
const WORD_TAGS = new Map(tags.tags.filter((t) => t.type !== 'BOOL' && t.modbus).map((t) => [t.modbus.reg, t]));
/** Bits of each packed register that the table defines. */
const MASKS = new Map([...PACKED].map((r) => [r, tags.packRegister(r, Object.fromEntries(tags.tags.map((t) => [t.short, 1])))]));

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

/** A counter word as the tag's value: INT is signed, BoxesIn (DINT) is its low 16 bits. */
function wordToValue(tag, w) {
  if (tag.type === 'INT') return w > 0x7fff ? w - 0x10000 : w;
  return w; // DINT on one register: 0..65535, wraps (documented in the table)
}

/**
 * Decode a block of holding registers into tag values.
 * @param {number} address first register of the block
 * @param {number[]|Buffer} words
 * @returns {Object<string, number>} every tag that lives in the block, keyed by short name
 */
function decode(address, words) {
  checkAddress(address);
  const w = checkWords(words);
  const out = {};
  for (let i = 0; i < w.length; i++) {
    const reg = address + i;
    if (PACKED.has(reg)) Object.assign(out, tags.unpackRegister(reg, w[i]));
    else if (WORD_TAGS.has(reg)) out[WORD_TAGS.get(reg).short] = wordToValue(WORD_TAGS.get(reg), w[i]);
  }
  return out;
}

/**
 * Encode tag values into a block of holding registers. Tags missing from `values` count as 0;
 * values are checked by the tag dictionary (type and range).
 * @param {number} address first register
 * @param {number} count registers in the block
 * @param {Object<string, number|boolean>} values keyed by short name
 * @returns {number[]}
 * @throws {ModbusCodecError|TagError} E_UNKNOWN_TAG, E_TYPE, E_RANGE, E_MODBUS_NOT_MAPPED
 */
function encode(address, count, values) {
  checkAddress(address);
  const norm = {};
  for (const [k, v] of Object.entries(values || {})) {
    const tag = tags.get(k);
    if (!tag) throw new tags.TagError('E_UNKNOWN_TAG', `unknown tag "${k}"`);
    if (!tag.modbus) throw new ModbusCodecError('E_MODBUS_NOT_MAPPED', `tag "${k}" has no Modbus register`);
    if (tag.modbus.reg < address || tag.modbus.reg >= address + count) {
      throw new ModbusCodecError('E_MODBUS_NOT_MAPPED', `tag "${k}" lives in register ${tag.modbus.reg}, outside ${address}..${address + count - 1}`);
    }
    norm[tag.short] = tags.normalise(tag, v);
  }
  const out = [];
  for (let reg = address; reg < address + count; reg++) {
    if (PACKED.has(reg)) out.push(tags.packRegister(reg, norm));
    else if (WORD_TAGS.has(reg)) out.push((norm[WORD_TAGS.get(reg).short] || 0) & WORD_MAX);
    else out.push(0);
  }
  return out;
}

/**
 * Clear the bits of a packed register that the table does not define (other registers pass).
 * @param {number} reg
 * @param {number} word
 */
function mask(reg, word) {
  return PACKED.has(reg) ? word & MASKS.get(reg) : word;
}

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
 * @param {{address: number, count?: number, refreshMs?: number, baseline?: boolean}} opts refreshMs 0 = never
 * @throws {ModbusCodecError} E_MODBUS_ADDRESS, E_CONFIG (baseline with refreshMs)
 */
function createRelay(opts) {
  const address = checkAddress(opts.address);
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
      const masked = w.map((x, i) => mask(address + i, x));
      const values = decode(address, masked);
      if (rebasing) {
        rebasing = false;
        lastWords = masked;
        lastValues = values;
        counters.baselines += 1;
        return { changed: {}, words: null, values, baseline: true };
      }
      const changed = lastValues ? tags.diff(lastValues, values) : { ...values };
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
 * @param {{refreshMs?: number, maxBlocks?: number, maxWords?: number, baseline?: boolean}} [opts]
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
          relay = createRelay({ address, refreshMs, baseline });
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

module.exports = {
  ModbusCodecError, decode, encode, mask, createRelay, createBlockRelays, probeBlocks, checkWords, MASKS, PACKED, WORD_TAGS, MAX_BLOCK, MAX_WRITE,
  PROBE_SLOTS_PER_BLOCK,
  /** The PLC's probe slots (io-table plc.probeSlots): the relay never covers more. */
  PROBE_SLOTS: tags.TABLE.plc.probeSlots,
  /**
   * The s7twin-modbus-codec node's default refresh: none. A resend rewrites what the other side
   * holds; towards the PLC that would re-assert this path's inputs over another path's (all
   * four share the PLC's inputs), so only cloud-facing relays turn it on.
   */
  DEFAULT_REFRESH_MS: 0,
  COMMAND_REGISTER: MB.commandRegister,
  STATE_REGISTER: MB.stateRegister,
  /** HR1..4: the states word and the three counters, as one block. */
  STATE_BLOCK: { address: MB.stateRegister, count: 1 + Object.keys(MB.counterRegisters).length },
  PROBE_REQUEST_BASE: MB.probeRequestBase,
  PROBE_RESPONSE_BASE: MB.probeResponseBase,
};
