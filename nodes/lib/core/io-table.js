'use strict';
/**
 * The I/O table of a plant as a value: its tags (name, short id, S7 address, type, direction,
 * writable from the cloud, range, unit, optional timing, OPC UA node id and Modbus registers),
 * checked once and frozen. Every part of the bridge (the edge's reads and writes, the envelope
 * checks, the cloud's OPC UA, Modbus and MQTT sides, the virtual PLC, the twins, the benchmark)
 * is handed the table of the plant it serves; the demo box-sorting plant's table
 * (`io-table.json`) is the default wherever none is given.
 *
 *   const { createTable, demoTable, loadTable, validateTable } = require('./io-table');
 *   const tank = createTable(JSON.parse(text));   // throws E_TABLE, naming the tags at fault
 *   tank.checkWrite('sp', 42.5)                    // {tag, value: 42.5} or E_NOT_WRITABLE/E_TYPE/E_RANGE
 *   tank.decodeBlock({ DB10: buf10, DB11: buf11, M: mk })   // {lvl: 12.5, rcp: 'Milk', …}
 *
 * A definition: `{ name?, program?, plc?, mqtt?, modbus?, probe?, markers?, tags: [...] }`; a tag:
 *   name      the PLC symbol (letters, digits, _), also its OPC UA browse name
 *   short     the key in every envelope (letters, digits, _)
 *   type      BOOL BYTE WORD DWORD SINT INT DINT USINT UINT UDINT REAL LREAL STRING[n]
 *   s7        DB5,REAL4 · DB1,X0.6 · DB2,S10.16 · MW10 · M2.0 (nodes7's notation) or DB5.DBD4 (TIA's)
 *   dir       "in" (written into the PLC: a sensor, a button, a setpoint) or "out" (the program's)
 *   cloudWritable  the edge writes it on a cloud command (ranges checked first)
 *   min, max, unit, desc, noStream, opcua, modbus, timed {trigger, value, with}, echo (virtual PLC)
 * docs/io-table.md says it all for users.
 *
 * The table module, its checks, CSV and TIA parts run in a browser too (the config node's
 * editor bundles them): plain CommonJS, literal requires, no Node built-in outside loadTable().
 */
const { codedError } = require('./errors');
const types = require('./table/types');
const { parseAddress, formatAddress, tiaAddress } = require('./table/address');
const { checkTable, validateTable } = require('./table/check');
const mb = require('./table/modbus');
const { parseCsv, toCsv } = require('./table/csv');
const tia = require('./table/tia');
const { createTableRegistry } = require('./table/registry');

const { TYPES, TagError, normalise } = types;
/** A refused table: code E_TABLE (or E_TABLE_FILE, E_TABLE_JSON), `errors` and `warnings` as validateTable gives them. */
const TableError = codedError('TableError');
const IS_TABLE = Symbol('s7twin.ioTable');
/** The largest UDInt: a probe value is a whole number 0..UDINT_MAX. */
const UDINT_MAX = TYPES.UDINT.max;
/** How many findings a refusal's message spells out (all are in its `errors`). */
const SHOWN_ERRORS = 5;
/** Bytes between two tags of one area below which the edge reads them as one range (an item costs 16). */
const READ_GAP = 16;

/** Freeze an object and everything in it. */
function deepFreeze(o) {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

const clone = (o) => (o === undefined ? undefined : JSON.parse(JSON.stringify(o)));

/**
 * A short, stable hash of a text (53 bits as 14 hex digits; cyrb53): enough to tell two tables
 * apart, not a secret. No node:crypto, so a browser computes the same.
 */
function hash(text) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** The error a refused definition throws: the first findings in its message, all in `errors`. */
function refusal(errors, warnings) {
  const shown = errors.slice(0, SHOWN_ERRORS).map((e) => e.message).join('; ');
  const more = errors.length > SHOWN_ERRORS ? ` (and ${errors.length - SHOWN_ERRORS} more)` : '';
  return new TableError('E_TABLE', `I/O table refused: ${shown}${more}`, { errors, warnings });
}

/** One tag of the table, frozen: the definition's fields with defaults, its parsed type and address. */
function buildTag(t, parsed, modbus) {
  const { type, length } = parsed.type;
  const addr = { ...parsed.addr, type };
  const tag = {
    name: t.name,
    short: t.short,
    type,
    typeName: types.typeName(type, length),
    s7: t.s7,
    address: formatAddress(addr, type, length),
    tia: tiaAddress(addr, addr.size, type === 'BOOL'),
    addr,
    size: addr.size,
    dir: t.dir ?? 'out',
    cloudWritable: t.cloudWritable === true,
    noStream: t.noStream === true,
    modbus: modbus || null,
    opcua: t.opcua ?? (addr.area === 'DB' ? `ns=3;s="${addr.key}"."${t.name}"` : `ns=3;s="${t.name}"`),
  };
  if (type === 'STRING') tag.length = length;
  for (const k of ['min', 'max']) if (typeof t[k] === 'number') tag[k] = t[k];
  for (const k of ['unit', 'desc']) if (typeof t[k] === 'string' && t[k]) tag[k] = t[k];
  if (t.timed) tag.timed = clone(t.timed);
  if (t.echo) tag.echo = t.echo;
  return deepFreeze(tag);
}

/** The areas the tags use: `[{key, area, db, size}]`, data blocks by number, then M. */
function areasOf(tags) {
  const m = new Map();
  for (const t of tags) {
    const a = m.get(t.addr.key) || { key: t.addr.key, area: t.addr.area, db: t.addr.db, size: 0 };
    a.size = Math.max(a.size, t.addr.byte + t.size);
    m.set(a.key, a);
  }
  return [...m.values()].sort((a, b) => (a.area === b.area ? a.db - b.db : a.area === 'DB' ? -1 : 1)).map((a) => Object.freeze(a));
}

/**
 * The byte ranges that hold the chosen tags, per area: tags closer than `maxGap` bytes share a
 * range, so a read asks for few items (each costs 16 bytes of request and answer headers).
 * @returns {Array<{key, area, db, start, length}>}
 */
function rangesOf(tags, maxGap) {
  const byArea = new Map();
  for (const t of tags) {
    if (!byArea.has(t.addr.key)) byArea.set(t.addr.key, []);
    byArea.get(t.addr.key).push(t);
  }
  const out = [];
  for (const a of areasOf(tags)) {
    const list = byArea.get(a.key).sort((x, y) => x.addr.byte - y.addr.byte);
    let cur = null;
    for (const t of list) {
      const end = t.addr.byte + t.size;
      if (cur && t.addr.byte - (cur.start + cur.length) <= maxGap) cur.length = Math.max(cur.length, end - cur.start);
      else { cur = { key: a.key, area: a.area, db: a.db, start: t.addr.byte, length: end - t.addr.byte }; out.push(cur); }
    }
  }
  return out.map((r) => Object.freeze(r));
}

/** The buffer of a tag's area out of what decodeBlock was given. */
function bufferFor(bufs, tag, single) {
  if (ArrayBuffer.isView(bufs)) {
    if (!single) throw new TagError('E_AREA', `this table spans several areas: pass {${tag.addr.key}: bytes, …}, not one buffer`);
    return bufs;
  }
  const b = typeof bufs.get === 'function' ? bufs.get(tag.addr.key) : bufs[tag.addr.key];
  if (!b) throw new TagError('E_AREA', `no bytes of ${tag.addr.key} for tag "${tag.short}"`);
  return b;
}

/** The Modbus side of a table: the map, bit packing, register blocks. */
function modbusPart(tags, sections) {
  const mapped = tags.filter((t) => t.modbus);
  const bools = mapped.filter((t) => t.type === 'BOOL');
  const words = mapped.filter((t) => t.type !== 'BOOL');
  const registers = sections.modbus.probeResponseBase + 2 * sections.plc.probeSlots;
  const map = deepFreeze({
    commands: mb.span(mapped.filter((t) => t.cloudWritable).map((t) => t.modbus)),
    states: mb.span(mapped.filter((t) => t.dir === 'out').map((t) => t.modbus)),
    probeRequestBase: sections.modbus.probeRequestBase,
    probeResponseBase: sections.modbus.probeResponseBase,
    registers,
    entries: mapped.map((t) => ({ short: t.short, name: t.name, type: t.typeName, dir: t.dir, cloudWritable: t.cloudWritable, ...t.modbus })),
  });
  /** Pack the BOOL tags of register `reg` into a word; tags missing from `values` are 0. */
  const packRegister = (reg, values) => {
    let word = 0;
    for (const t of bools) if (t.modbus.reg === reg && values[t.short]) word |= 1 << t.modbus.bit;
    return word;
  };
  /** The BOOL tags that live in register `reg`, from its word. */
  const unpackRegister = (reg, word) => {
    const out = {};
    for (const t of bools) if (t.modbus.reg === reg) out[t.short] = (word >> t.modbus.bit) & 1;
    return out;
  };
  /** Every tag wholly inside a block of registers, decoded. */
  const decodeRegisters = (address, block) => {
    const out = {};
    const end = address + block.length;
    for (const t of bools) if (t.modbus.reg >= address && t.modbus.reg < end) out[t.short] = (block[t.modbus.reg - address] >> t.modbus.bit) & 1;
    for (const t of words) {
      const at = t.modbus.reg - address;
      if (at >= 0 && t.modbus.reg + t.modbus.words <= end) out[t.short] = mb.valueOf(t, block.slice(at, at + t.modbus.words));
    }
    return out;
  };
  /** A block of registers from normalised values; tags missing from `values` are 0 (''). */
  const encodeRegisters = (address, count, values) => {
    const out = new Array(count).fill(0);
    for (let r = address; r < address + count; r++) out[r - address] = packRegister(r, values);
    for (const t of words) {
      const at = t.modbus.reg - address;
      if (at < 0 || t.modbus.reg + t.modbus.words > address + count) continue;
      const v = values[t.short] ?? (t.type === 'STRING' ? '' : 0);
      mb.wordsOf(t, v).forEach((w, k) => { out[at + k] = w; });
    }
    return out;
  };
  return {
    modbusMap: map, MODBUS_REGISTERS: registers, packRegister, unpackRegister, decodeRegisters, encodeRegisters,
    /** The tag whose registers include `reg` (a BOOL register gives its first BOOL), or undefined. */
    modbusTagAt: (reg) => mapped.find((t) => reg >= t.modbus.reg && reg < t.modbus.reg + Math.max(1, t.modbus.words)),
  };
}

/** Fill `{plant}`, `{slot}`, `{i}` and `{4*i}` placeholders of topic and node-id templates. */
function template(str, vars) {
  return str.replace(/\{(\w+)\}|\{4\*i\}/g, (m, k) => (m === '{4*i}' ? String(4 * vars.i) : String(vars[k])));
}

/** What the fingerprint covers: everything that changes a frame, an address or a register. */
function fingerprintOf(tags, sections) {
  const t = tags.map((x) => [x.short, x.name, x.typeName, x.address, x.dir, x.cloudWritable, x.min, x.max, x.noStream, x.modbus]);
  return hash(JSON.stringify([t, sections.plc.probeSlots, sections.plc.probeRequestDb, sections.plc.probeResponseDb,
    sections.modbus.probeRequestBase, sections.modbus.probeResponseBase]));
}

/**
 * A table from a definition (or the table itself, when given one).
 * @param {object} def see the top of this file; a table passes through unchanged
 * @returns {Readonly<object>} the table (see the properties below)
 * @throws {TableError} E_TABLE with `errors` and `warnings` (validateTable's) when the definition has errors
 */
function createTable(def) {
  if (isTable(def)) return def;
  const { errors, warnings, parsed, sections, modbus } = checkTable(def);
  if (errors.length) throw refusal(errors, warnings);
  const tags = Object.freeze(def.tags.map((t, i) => buildTag(t, parsed[i], modbus.get(t))));
  const byShort = new Map(tags.map((t) => [t.short, t]));
  const byName = new Map(tags.map((t) => [t.name, t]));
  const areas = Object.freeze(areasOf(tags));
  const streamed = Object.freeze(tags.filter((t) => !t.noStream));
  const definition = deepFreeze(clone(def));
  const full = deepFreeze({ version: 1, ...clone(def), ...clone(sections), tags: definition.tags });
  const probeSlots = sections.plc.probeSlots;

  const get = (key) => byShort.get(key) || byName.get(key);
  const isProbeSlot = (slot, slots = probeSlots) => Number.isInteger(slot) && slot >= 0 && slot < slots;
  const isProbeValue = (value) => Number.isInteger(value) && value >= 0 && value <= UDINT_MAX;

  function checkWrite(short, value) {
    const tag = byShort.get(short);
    if (!tag) throw new TagError('E_UNKNOWN_TAG', `unknown tag "${short}"`);
    if (!tag.cloudWritable) throw new TagError('E_NOT_WRITABLE', `tag "${short}" (${tag.name}) is not writable from the cloud`);
    return { tag, value: normalise(tag, value) };
  }
  function checkState(d) {
    for (const [short, value] of Object.entries(d || {})) {
      const tag = byShort.get(short);
      if (!tag || tag.noStream) throw new TagError('E_UNKNOWN_TAG', `unknown tag "${short}" in a plant state`);
      normalise(tag, value);
    }
  }
  function decodeBlock(bufs, filter = () => true) {
    const out = {};
    for (const t of tags) if (filter(t)) out[t.short] = types.readValue(bufferFor(bufs, t, areas.length === 1), t);
    return out;
  }
  function diff(prev, next) {
    const out = {};
    for (const k of Object.keys(next)) if (prev[k] !== next[k]) out[k] = next[k];
    return out;
  }
  function timedPairs() {
    return tags.filter((t) => t.timed).map((t) => ({
      output: t.short, name: t.name, trigger: t.timed.trigger, value: t.timed.value, with: t.timed.with || {},
    }));
  }

  return Object.freeze({
    [IS_TABLE]: true,
    /** The table's name (the definition's `name`, else "demo" for the demo plant's, else "table"). */
    name: def.name || (def.program === 'box-sorting' ? 'demo' : 'table'),
    /** The definition as given (frozen): what toJSON, the CSV and an edge's hello carry. */
    definition,
    /** The definition with every section's defaults filled in (plc, mqtt, modbus, probe, markers). */
    TABLE: full,
    /** A hash of what changes frames, addresses and registers: equal tables have equal ones. */
    fingerprint: fingerprintOf(tags, sections),
    /** The virtual PLC's program for this plant, or null: an I/O image (with echo rules). */
    program: def.program || null,
    TYPES, TagError, UDINT_MAX,
    tags, streamed, areas,
    inputs: Object.freeze(tags.filter((t) => t.dir === 'in')),
    outputs: Object.freeze(tags.filter((t) => t.dir === 'out')),
    writable: Object.freeze(tags.filter((t) => t.cloudWritable)),
    /** Probe slots per probe block (plc.probeSlots). */
    PROBE_SLOTS: probeSlots,
    /** Size in bytes of the first data block the tags use (the demo's DB1: 16). */
    ioDbSize: (areas.find((a) => a.area === 'DB') || areas[0]).size,
    get, checkWrite, checkState, normalise, isProbeSlot, isProbeValue, decodeBlock, diff, timedPairs, template,
    /** One tag's value from the bytes of its area (byte 0 = the area's byte 0). */
    readTag: types.readValue,
    /** Write one normalised value into the bytes of its area. */
    writeTag: types.writeValue,
    /** A normalised value as the bytes the PLC holds (a BOOL: one byte 0/1). */
    encodeTag: types.encode,
    /**
     * What the edge reads: the ranges of each area holding the chosen tags (default: the streamed ones).
     * @param {{maxGap?: number, filter?: (tag: object) => boolean}} [o]
     */
    readRanges: (o = {}) => rangesOf(tags.filter(o.filter || ((t) => !t.noStream)), o.maxGap ?? READ_GAP),
    ...modbusPart(tags, sections),
    toJSON: () => definition,
  });
}

/** Whether `x` is a table made by createTable. */
const isTable = (x) => Boolean(x && x[IS_TABLE]);

let demo = null;
/** The demo box-sorting plant's table (io-table.json), made once. */
function demoTable() {
  if (!demo) demo = createTable(require('./io-table.json'));
  return demo;
}

/**
 * The table to use for something configured with `x`: a table as it is, a definition made into
 * one (refused with E_TABLE), nothing → the demo plant's.
 * @param {object|undefined|null} x
 */
function tableOf(x) {
  if (x === undefined || x === null) return demoTable();
  return createTable(x);
}

/**
 * A definition from a file's text, by its name: `.csv` (parseCsv), `.db` / `.scl` / `.awl` (a TIA
 * Portal external source, fromTiaSource), anything else JSON.
 * @throws {TableError} E_TABLE_JSON, E_CSV, E_TIA
 */
function definitionFromText(text, file) {
  if (/\.csv$/i.test(file)) return parseCsv(text);
  if (/\.(db|scl|awl)$/i.test(file)) return fromTiaSource(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TableError('E_TABLE_JSON', `I/O table ${file} is not JSON: ${err.message}`);
  }
}

/**
 * The table a process runs with: the file `file` names, else the one `S7T_IO_TABLE` names in
 * `env`, else the demo plant's. JSON, CSV or a TIA external source (by the file's extension).
 * Node only (reads the file).
 * @param {{file?: string, env?: object}} [o]
 * @returns {Readonly<object>}
 * @throws {TableError} E_TABLE_FILE (unreadable), E_TABLE_JSON, E_CSV, E_TIA, E_TABLE (refused)
 */
function loadTable(o = {}) {
  const env = o.env || (typeof process !== 'undefined' ? process.env : {});
  const file = o.file || env.S7T_IO_TABLE;
  if (!file) return demoTable();
  const fs = require('node:fs');
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TableError('E_TABLE_FILE', `cannot read the I/O table ${file}: ${err.message}`);
  }
  try {
    return createTable(definitionFromText(text, file));
  } catch (err) {
    if (err.code === 'E_TABLE') err.message = `${file}: ${err.message}`;
    throw err;
  }
}

let processCache = null; // {file, table}
/**
 * The table of this process: the file `S7T_IO_TABLE` names, else the demo plant's; read once
 * per value of the variable. What a node with no table configured uses, so one variable points
 * every part `scripts/start.sh` starts at one table.
 * @returns {Readonly<object>}
 * @throws {TableError} as loadTable
 */
function processTable() {
  const file = (typeof process !== 'undefined' && process.env.S7T_IO_TABLE) || '';
  if (!processCache || processCache.file !== file) processCache = { file, table: loadTable() };
  return processCache.table;
}

/**
 * The plants' tables in this process (lib/core/table/registry.js): what the config nodes
 * configure and the edges teach; a plant with neither has processTable().
 */
const plantTables = createTableRegistry({ fallback: processTable, createTable });

/**
 * A TIA Portal external source from a table (or a definition): table/tia.js.
 * @param {object} x a table or a definition
 * @returns {string}
 */
const toTiaSource = (x) => tia.toTiaSource(tableOf(x));
const { fromTiaSource } = tia;

module.exports = {
  createTable, validateTable, demoTable, tableOf, loadTable, processTable, plantTables, createTableRegistry, isTable, definitionFromText,
  parseCsv, toCsv, fromTiaSource, toTiaSource,
  parseAddress, formatAddress, tiaAddress, parseType: types.parseType, template, hash,
  TYPES, TagError, TableError, UDINT_MAX,
};
