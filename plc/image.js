'use strict';
/**
 * The process image of the virtual S7-1500, laid out like non-optimized data blocks and the M
 * area, by the plant's I/O table (nodes/lib/core/io-table.js; the demo plant's by default):
 * - the table's areas: each data block its tags use (the demo plant's DB1; the tank's DB10 and
 *   DB11) and the M area (the table's M tags and the program's markers, MX0.0 Running …),
 *   every value big-endian at its table address;
 * - the probe blocks (DB2 requests, DB3 responses by default): one UDInt per slot at byte 4*i.
 *
 * Writes from the interfaces (OPC UA, Modbus, MQTT, `plc.setInputs`) are validated here and
 * queued; the scan applies them at its start, so inputs change only at scan boundaries, as on a
 * CPU whose process image of inputs is refreshed once per cycle. Pure data, no I/O.
 */
const { demoTable } = require('../nodes/lib/core/io-table');
const { PlcError } = require('./errors');

const DEFAULTS = {
  mkBytes: 16, // bytes of marker memory served at least (MB0..MB15); the demo program uses MX0.0..MX0.3
};

/**
 * The program's marker addresses from the table ("MX0.3" → byte 0, bit 3).
 * @param {object} table
 * @returns {Array<{name: string, byte: number, bit: number}>}
 */
function markersOf(table) {
  return table.TABLE.markers.map((m) => {
    const r = /^MX?(\d+)\.(\d)$/.exec(m.s7);
    if (!r) throw new PlcError('E_ADDRESS', `unsupported marker address "${m.s7}"`);
    return { name: m.name, byte: Number(r[1]), bit: Number(r[2]) };
  });
}

/**
 * Set the bits of `tag` in its area's byte mask: a BOOL's own bit, every byte of the others.
 * @param {Buffer} mask
 * @param {{type: string, size: number, addr: {byte:number, bit:number}}} tag
 */
function markTag(mask, tag) {
  const { byte, bit } = tag.addr;
  if (tag.type === 'BOOL') mask[byte] |= 1 << bit;
  else mask.fill(0xff, byte, byte + tag.size);
}

/**
 * A mask of the bits the PLC owns in one area (every output; in the M area the program's
 * markers too). The PLC writes only these into the areas clients share (plc/s7-push.js), so a
 * client's input write is never undone.
 * @param {object} [table] default: the demo plant's
 * @param {string} [key] the area (default: the table's first data block)
 * @param {number} [size] the area's size (default: as the table says)
 * @returns {Buffer}
 */
function outputMask(table = demoTable(), key = table.areas[0].key, size = (table.areas.find((a) => a.key === key) || { size: 0 }).size) {
  const mask = Buffer.alloc(size);
  for (const t of table.outputs) if (t.addr.key === key) markTag(mask, t);
  if (key === 'M') for (const m of markersOf(table)) mask[m.byte] |= 1 << m.bit;
  return mask;
}

/**
 * Check a probe slot and value.
 * @returns {{slot:number, value:number}}
 * @throws {PlcError} E_PROBE_SLOT, E_PROBE_VALUE
 */
function checkProbe(slot, value, slots, table = demoTable()) {
  const n = slots ?? table.PROBE_SLOTS;
  if (!table.isProbeSlot(slot, n)) {
    throw new PlcError('E_PROBE_SLOT', `probe slot ${JSON.stringify(slot)} outside 0..${n - 1}`);
  }
  if (!table.isProbeValue(value)) {
    throw new PlcError('E_PROBE_VALUE', `probe value ${JSON.stringify(value)} is not a UDInt (0..${table.UDINT_MAX})`);
  }
  return { slot, value };
}

/**
 * Check input writes without applying them: every key must be an input tag, every value valid.
 * All or nothing: one bad entry rejects the whole batch.
 * @param {Object<string, *>} values keyed by short (or long) tag name
 * @param {object} [table] default: the demo plant's
 * @returns {Array<[object, number|string]>} [tag, normalised value] pairs
 * @throws {PlcError|TagError} E_BAD_WRITE, E_UNKNOWN_TAG, E_NOT_INPUT, E_TYPE, E_RANGE
 */
function checkInputs(values, table = demoTable()) {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) {
    throw new PlcError('E_BAD_WRITE', 'input writes must be an object {short: value}');
  }
  const out = [];
  for (const [k, v] of Object.entries(values)) {
    const tag = table.get(k);
    if (!tag) throw new PlcError('E_UNKNOWN_TAG', `unknown tag "${k}"`);
    if (tag.dir !== 'in') throw new PlcError('E_NOT_INPUT', `tag "${k}" (${tag.name}) is a PLC output, not writable`);
    out.push([tag, table.normalise(tag, v)]);
  }
  return out;
}

/**
 * The areas of a table's image: each data block and the M area (always served: the markers),
 * with its bytes and the PLC's mask.
 * @returns {Map<string, {key: string, area: 'DB'|'M', db: number, buf: Buffer, mask: Buffer}>}
 */
function areasOf(table, mkBytes) {
  const areas = new Map();
  const markerEnd = markersOf(table).reduce((n, m) => Math.max(n, m.byte + 1), 0);
  const list = table.areas.some((a) => a.key === 'M') ? table.areas : [...table.areas, { key: 'M', area: 'M', db: 0, size: 0 }];
  for (const a of list) {
    const size = a.key === 'M' ? Math.max(a.size, markerEnd, mkBytes) : a.size;
    areas.set(a.key, { key: a.key, area: a.area, db: a.db, buf: Buffer.alloc(size), mask: outputMask(table, a.key, size) });
  }
  return areas;
}

/**
 * Create a process image.
 * @param {{table?: object, probeSlots?: number, mkBytes?: number}} [opts] table: the plant's
 *   (default: the demo plant's); probeSlots: default the table's
 */
function createImage(opts = {}) {
  const table = opts.table || demoTable();
  const cfg = { probeSlots: opts.probeSlots ?? table.PROBE_SLOTS, mkBytes: opts.mkBytes ?? DEFAULTS.mkBytes };
  const areas = areasOf(table, cfg.mkBytes);
  const bufs = Object.fromEntries([...areas].map(([k, a]) => [k, a.buf]));
  const db2 = Buffer.alloc(4 * cfg.probeSlots);
  const db3 = Buffer.alloc(4 * cfg.probeSlots);
  const markers = markersOf(table);
  const mk = bufs.M;
  const first = areas.get(table.areas[0].key);
  // Pending writes since the last scan: last write per tag / slot wins, as on a real CPU where
  // a pulse shorter than one cycle may never be seen.
  let pendingInputs = new Map();
  let pendingProbes = new Map();

  return {
    table,
    /** The I/O areas by key (`DB1`, `DB10`, `M`): {key, area, db, buf, mask}. */
    areas,
    /** The I/O areas' bytes by key, as the table decodes them. */
    bufs,
    /** The first data block's bytes and mask (the demo plant's DB1). */
    db1: first.buf,
    mask: first.mask,
    db2, db3, mk, probeSlots: cfg.probeSlots,
    reqDb: table.TABLE.plc.probeRequestDb,
    resDb: table.TABLE.plc.probeResponseDb,

    /** Validate and queue input writes for the next scan. @throws on any bad entry */
    queueInputs(values) {
      for (const [tag, v] of checkInputs(values, table)) pendingInputs.set(tag, v);
    },

    /** Validate and queue a probe request for the next scan. @throws E_PROBE_SLOT, E_PROBE_VALUE */
    queueProbe(slot, value) {
      checkProbe(slot, value, cfg.probeSlots, table);
      pendingProbes.set(slot, value);
    },

    /**
     * Take the queued writes and apply them to the areas and the probe requests.
     * @returns {{inputs: Map<object, number|string>, probes: Map<number, number>}} what was applied
     */
    applyPending() {
      const taken = { inputs: pendingInputs, probes: pendingProbes };
      pendingInputs = new Map();
      pendingProbes = new Map();
      for (const [tag, v] of taken.inputs) table.writeTag(bufs[tag.addr.key], tag, v);
      for (const [slot, v] of taken.probes) db2.writeUInt32BE(v, 4 * slot);
      return taken;
    },

    /** @returns {Object<string, number|string>} every input tag */
    readInputs() {
      const out = {};
      for (const t of table.inputs) out[t.short] = table.readTag(bufs[t.addr.key], t);
      return out;
    },

    /** Write the program's outputs (keyed by short name) into their areas. */
    writeOutputs(outputs) {
      for (const [k, v] of Object.entries(outputs)) {
        const t = table.get(k);
        table.writeTag(bufs[t.addr.key], t, v);
      }
    },

    /** Write the markers ({Running: 0|1, ...}) into MK. */
    writeMarkers(values) {
      for (const m of markers) {
        mk[m.byte] = values[m.name] ? mk[m.byte] | (1 << m.bit) : mk[m.byte] & ~(1 << m.bit);
      }
    },

    /** @returns {Object<string, number>} marker values by name */
    readMarkers() {
      const out = {};
      for (const m of markers) out[m.name] = (mk[m.byte] >> m.bit) & 1;
      return out;
    },

    /**
     * The probe logic: copy every request slot to its response slot.
     * @returns {number[]} the slots whose response changed
     */
    copyProbes() {
      if (db3.equals(db2)) return [];
      const changed = [];
      for (let off = 0; off < db2.length; off += 4) {
        if (db2.readUInt32BE(off) !== db3.readUInt32BE(off)) changed.push(off / 4);
      }
      db2.copy(db3);
      return changed;
    },

    probeRequest(slot) { return db2.readUInt32BE(4 * slot); },
    probeResponse(slot) { return db3.readUInt32BE(4 * slot); },

    /** @returns {Object<string, number|string>} every tag of the I/O table by short name */
    values() { return table.decodeBlock(bufs); },
  };
}

module.exports = { createImage, checkInputs, checkProbe, outputMask, markTag, markersOf, DEFAULTS };
