'use strict';
/**
 * The process image of the virtual S7-1500, laid out like non-optimized data blocks:
 * - DB1: the plant's I/O at the addresses of `nodes/lib/core/io-table.json` (bits, INT, DINT, big-endian),
 * - DB2: probe requests, one UDInt per slot at byte 4*i,
 * - DB3: probe responses, same layout,
 * - MK: the program's markers (MX0.0 Running ...).
 *
 * Writes from the interfaces (OPC UA, Modbus, MQTT, `plc.setInputs`) are validated here and
 * queued; the scan applies them at its start, so inputs change only at scan boundaries, as on a
 * CPU whose process image of inputs is refreshed once per cycle. Pure data, no I/O.
 */
const tags = require('../nodes/lib/core/tags');
const { PlcError } = require('./errors');

const DEFAULTS = {
  probeSlots: tags.PROBE_SLOTS, // UDInt slots per probe DB (io-table plc.probeSlots)
  mkBytes: 16, // bytes of marker memory served (MB0..MB15); the table uses MX0.0..MX0.3
};
const { UDINT_MAX } = tags;

/** Marker addresses from the table ("MX0.3" → byte 0, bit 3). */
const MARKERS = tags.TABLE.markers.map((m) => {
  const r = /^MX(\d+)\.(\d)$/.exec(m.s7);
  if (!r) throw new PlcError('E_ADDRESS', `unsupported marker address "${m.s7}"`);
  return { name: m.name, byte: Number(r[1]), bit: Number(r[2]) };
});

/**
 * A mask of the DB1 bits the PLC program owns (every output bit, whole bytes for INT/DINT).
 * The PLC writes only these into the shared DB1 (plc/s7-push.js), so a client's input write is
 * never undone.
 * @returns {Buffer} ioDbSize bytes
 */
function outputMask() {
  const mask = Buffer.alloc(tags.ioDbSize);
  for (const t of tags.outputs) markTag(mask, t);
  return mask;
}

/**
 * Set the bits of `tag` in a DB1 byte mask: a BOOL's own bit, every byte of an INT/DINT.
 * @param {Buffer} mask
 * @param {{addr: {byte:number, bit:number, type:string}}} tag
 */
function markTag(mask, tag) {
  const { byte, bit, type } = tag.addr;
  if (type === 'BOOL') mask[byte] |= 1 << bit;
  else for (let k = 0; k < tags.TYPES[type].bytes; k++) mask[byte + k] = 0xff;
}

/**
 * Check a probe slot and value.
 * @returns {{slot:number, value:number}}
 * @throws {PlcError} E_PROBE_SLOT, E_PROBE_VALUE
 */
function checkProbe(slot, value, slots = DEFAULTS.probeSlots) {
  if (!tags.isProbeSlot(slot, slots)) {
    throw new PlcError('E_PROBE_SLOT', `probe slot ${JSON.stringify(slot)} outside 0..${slots - 1}`);
  }
  if (!tags.isProbeValue(value)) {
    throw new PlcError('E_PROBE_VALUE', `probe value ${JSON.stringify(value)} is not a UDInt (0..${UDINT_MAX})`);
  }
  return { slot, value };
}

/**
 * Check input writes without applying them: every key must be an input tag, every value valid.
 * All or nothing: one bad entry rejects the whole batch.
 * @param {Object<string, *>} values keyed by short (or long) tag name
 * @returns {Array<[object, number]>} [tag, normalised value] pairs
 * @throws {PlcError|TagError} E_BAD_WRITE, E_UNKNOWN_TAG, E_NOT_INPUT, E_TYPE, E_RANGE
 */
function checkInputs(values) {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) {
    throw new PlcError('E_BAD_WRITE', 'input writes must be an object {short: value}');
  }
  const out = [];
  for (const [k, v] of Object.entries(values)) {
    const tag = tags.get(k);
    if (!tag) throw new PlcError('E_UNKNOWN_TAG', `unknown tag "${k}"`);
    if (tag.dir !== 'in') throw new PlcError('E_NOT_INPUT', `tag "${k}" (${tag.name}) is a PLC output, not writable`);
    out.push([tag, tags.normalise(tag, v)]);
  }
  return out;
}

/**
 * Create a process image.
 * @param {{probeSlots?: number, mkBytes?: number}} [opts]
 */
function createImage(opts = {}) {
  const cfg = { probeSlots: opts.probeSlots ?? DEFAULTS.probeSlots, mkBytes: opts.mkBytes ?? DEFAULTS.mkBytes };
  const db1 = Buffer.alloc(tags.ioDbSize);
  const db2 = Buffer.alloc(4 * cfg.probeSlots);
  const db3 = Buffer.alloc(4 * cfg.probeSlots);
  const mk = Buffer.alloc(cfg.mkBytes);
  const mask = outputMask();
  // Pending writes since the last scan: last write per tag / slot wins, as on a real CPU where
  // a pulse shorter than one cycle may never be seen.
  let pendingInputs = new Map();
  let pendingProbes = new Map();

  return {
    db1, db2, db3, mk, mask, probeSlots: cfg.probeSlots,

    /** Validate and queue input writes for the next scan. @throws on any bad entry */
    queueInputs(values) {
      for (const [tag, v] of checkInputs(values)) pendingInputs.set(tag, v);
    },

    /** Validate and queue a probe request for the next scan. @throws E_PROBE_SLOT, E_PROBE_VALUE */
    queueProbe(slot, value) {
      checkProbe(slot, value, cfg.probeSlots);
      pendingProbes.set(slot, value);
    },

    /**
     * Take the queued writes and apply them to DB1 / DB2.
     * @returns {{inputs: Map<object, number>, probes: Map<number, number>}} what was applied
     */
    applyPending() {
      const taken = { inputs: pendingInputs, probes: pendingProbes };
      pendingInputs = new Map();
      pendingProbes = new Map();
      for (const [tag, v] of taken.inputs) tags.writeTag(db1, tag, v);
      for (const [slot, v] of taken.probes) db2.writeUInt32BE(v, 4 * slot);
      return taken;
    },

    /** @returns {Object<string, number>} every input tag from DB1 */
    readInputs() {
      const out = {};
      for (const t of tags.inputs) out[t.short] = tags.readTag(db1, t);
      return out;
    },

    /** Write the program's outputs (keyed by short name) into DB1. */
    writeOutputs(outputs) {
      for (const [k, v] of Object.entries(outputs)) tags.writeTag(db1, tags.get(k), v);
    },

    /** Write the markers ({Running: 0|1, ...}) into MK. */
    writeMarkers(markers) {
      for (const m of MARKERS) {
        mk[m.byte] = markers[m.name] ? mk[m.byte] | (1 << m.bit) : mk[m.byte] & ~(1 << m.bit);
      }
    },

    /** @returns {Object<string, number>} marker values by name */
    readMarkers() {
      const out = {};
      for (const m of MARKERS) out[m.name] = (mk[m.byte] >> m.bit) & 1;
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

    /** @returns {Object<string, number>} every tag of the I/O table by short name */
    values() { return tags.decodeBlock(db1); },
  };
}

module.exports = { createImage, checkInputs, checkProbe, outputMask, markTag, MARKERS, DEFAULTS };
