'use strict';
/**
 * The OPC UA transport's Writes, in order: one Write request per twin tick with every input that
 * changed, inputs that are conditions of a timed pair (dmg for sd) first, so the server applies
 * them first; and every Write (probe requests included) waits for the one before it, so two
 * Writes never overtake each other on their way to the PLC.
 */
const ot = require('../../../nodes/lib/opcua/tags');
const { demoTable } = require('../../../nodes/lib/core/io-table');

/** Inputs that some timed pair of a table uses as a `with` condition: written before the triggers. */
const conditionsOf = (table) => new Set(table.timedPairs().flatMap((p) => Object.keys(p.with)));
/** The demo plant's conditions (dmg). */
const CONDITIONS = conditionsOf(demoTable());

/**
 * The Write items for some input values: conditions first; a value that is not an input, or
 * not valid for its tag, is reported and left out.
 * @param {Object<string, number>} values
 * @param {string} plant
 * @param {(code: string, msg?: string) => void} countError
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {{nodeId: string, dataType: string, value: *}[]}
 */
function inputItems(values, plant, countError, table = demoTable()) {
  const conditions = table === demoTable() ? CONDITIONS : conditionsOf(table);
  const keys = Object.keys(values).sort((a, b) => Number(conditions.has(b)) - Number(conditions.has(a)));
  const items = [];
  for (const k of keys) {
    const tag = table.get(k);
    if (!tag || tag.dir !== 'in') { countError('E_UNKNOWN_TAG', `not an input: ${k}`); continue; }
    let v;
    try { v = ot.toVariant(tag, values[k]); } catch (err) { countError(err.code, err.message); continue; }
    items.push({ nodeId: ot.cloudNodeId(tag, { plant }), dataType: v.dataType, value: v.value });
  }
  return items;
}

/**
 * @param {object} o
 * @param {{write(items: object[]): Promise<{good: boolean, status: string, nodeId: string}[]>}} o.side
 * @param {string} o.plant
 * @param {object} o.stats sent (Write requests of inputs) is counted there
 * @param {(code: string, msg?: string) => void} o.countError
 * @param {object} [o.table] the plant's I/O table (default: the demo plant's)
 */
function createWrites(o) {
  let writing = null; // the Write in flight; the next one waits for it (keeps their order)

  /** Run `step` (resolving to a Write's results) after every Write before it; failures counted. */
  function after(step) {
    const prev = writing || Promise.resolve();
    const p = prev.then(step).then((results) => {
      for (const r of results) if (!r.good) o.countError(r.status, r.nodeId);
    }, (err) => o.countError(err.code || 'E_WRITE', err.message));
    writing = p;
    p.finally(() => { if (writing === p) writing = null; });
  }

  return {
    /** Write every input of `values` in one request (nothing when none is valid). */
    inputs(values) {
      const items = inputItems(values, o.plant, o.countError, o.table);
      if (!items.length) return;
      o.stats.sent += 1;
      after(() => o.side.write(items));
    },
    after,
    /** Resolves when the Writes so far are done (whatever their outcome). */
    settled() { return writing ? writing.catch(() => {}) : Promise.resolve(); },
  };
}

module.exports = { createWrites, inputItems, CONDITIONS };
