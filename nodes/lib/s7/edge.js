'use strict';
/**
 * What the edge's `s7twin-s7` node decides, without Node-RED or a PLC: which nodes7 items a command
 * or a probe writes (all or nothing), and which streamed tags changed between two reads of the
 * plant's areas, by the plant's I/O table (the demo plant's where none is given). S7 only (the
 * WebSocket–S7 path); the other paths' edges are their own nodes.
 */
const { demoTable, TagError, UDINT_MAX } = require('../core/io-table');
const { writeItem } = require('./address');

const tagError = (code, message) => new TagError(code, message);

/**
 * Check every value of a `cmd` frame's d; nothing is returned unless ALL are valid.
 * @param {object} d values keyed by short name
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {Array<{short: string, addr: string, value: boolean|number|number[]}>} nodes7 write items
 * @throws {TagError} E_EMPTY, E_UNKNOWN_TAG, E_NOT_WRITABLE, E_TYPE, E_RANGE (the first found)
 */
function commandItems(d, table = demoTable()) {
  const keys = Object.keys(d || {});
  if (!keys.length) throw tagError('E_EMPTY', 'a command must carry at least one value');
  return keys.map((short) => {
    const { tag, value } = table.checkWrite(short, d[short]);
    return { short, ...writeItem(tag, value) };
  });
}

/**
 * Check a `probe` frame's d ({slot: value}); all or nothing.
 * @param {object} d
 * @param {object} [table] the plant's I/O table: its probe blocks and slots (default: the demo plant's)
 * @returns {Array<{slot: number, value: number, addr: string}>} addr: the request slot's nodes7
 *   address (lib/s7/probes.js reads the response slots)
 * @throws {TagError} E_EMPTY, E_SLOT, E_TYPE, E_RANGE
 */
function probeItems(d, table = demoTable()) {
  const keys = Object.keys(d || {});
  if (!keys.length) throw tagError('E_EMPTY', 'a probe must carry at least one slot');
  const { probeRequestDb } = table.TABLE.plc;
  const slots = table.PROBE_SLOTS;
  return keys.map((k) => {
    const slot = Number(k);
    if (!/^\d+$/.test(k) || !table.isProbeSlot(slot)) throw tagError('E_SLOT', `probe slot "${k}" is not 0..${slots - 1}`);
    const value = d[k];
    if (typeof value !== 'number' || !Number.isInteger(value)) throw tagError('E_TYPE', `probe value of slot ${k} must be an integer`);
    if (!table.isProbeValue(value)) throw tagError('E_RANGE', `probe value ${value} outside 0..${UDINT_MAX}`);
    return { slot, value, addr: `DB${probeRequestDb},DWORD${4 * slot}` };
  });
}

const streamed = (t) => !t.noStream;

/**
 * Streamed values of the plant's areas and what changed since the previous read.
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {{update(areas: object|Buffer): {values: object, changed: object, first: boolean}, reset(): void, last(): object|null}}
 *   update takes each area's bytes by key (lib/s7/connection.js 'data'), or one buffer for a table of one area
 */
function createStateDiffer(table = demoTable()) {
  let prev = null;
  return {
    update(areas) {
      const values = table.decodeBlock(areas, streamed);
      const first = prev === null;
      const changed = first ? values : table.diff(prev, values);
      prev = values;
      return { values, changed, first };
    },
    reset() { prev = null; },
    last() { return prev; },
  };
}

module.exports = { commandItems, probeItems, createStateDiffer, UDINT_MAX };
