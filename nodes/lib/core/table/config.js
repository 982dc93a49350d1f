'use strict';
/**
 * What the `s7twin-io-table` config node makes of its properties, and which table a node that
 * may reference one works with: no Node-RED here (the node passes its lookup in).
 */
const { checkPlant } = require('../plants');

/**
 * The plants a table node is for: ids separated by commas or spaces (`tank1, tank2`).
 * @param {string} text
 * @returns {string[]}
 * @throws {PlantError} E_PLANT for an id that is none
 */
function plantsOf(text) {
  return String(text ?? '').split(/[\s,]+/).filter(Boolean).map(checkPlant);
}

/**
 * The table node's table and plants.
 * @param {{table?: string|object, plants?: string}} config the node's properties: `table` the
 *   definition as an object (what the editor writes: a flow file shows each tag on lines of its
 *   own, so a diff names the tag that changed) or as JSON text
 * @param {(def: object) => object} createTable ../io-table.js createTable
 * @returns {{table: object|null, plants: string[], error: Error|null}} error: why there is no
 *   table (E_TABLE_JSON, E_TABLE with the findings, E_PLANT)
 */
function readTableConfig(config, createTable) {
  try {
    const plants = plantsOf(config.plants);
    let def = config.table;
    try {
      if (typeof def !== 'object' || def === null) def = JSON.parse(def || '');
    } catch (err) {
      const e = new Error(`the table is not JSON: ${err.message}`);
      e.code = 'E_TABLE_JSON';
      throw e;
    }
    return { table: createTable(def), plants, error: null };
  } catch (error) {
    return { table: null, plants: [], error };
  }
}

/**
 * The table a node works with: the one of the table node it names, else `fallback()` (the
 * process's table: S7T_IO_TABLE, else the demo plant's).
 * @param {(id: string) => object|null} getNode RED.nodes.getNode
 * @param {string} [id] the table node's id ('' or absent: none)
 * @param {() => object} fallback
 * @returns {object} a table
 * @throws {Error} E_TABLE when the named node is missing or its table was refused (its error)
 */
function tableFor(getNode, id, fallback) {
  if (!id) return fallback();
  const n = getNode(id);
  if (!n) {
    const e = new Error(`the I/O table node ${id} is missing`);
    e.code = 'E_TABLE';
    throw e;
  }
  if (!n.table) throw n.tableError;
  return n.table;
}

/**
 * The table of a node that serves one plant: the table node it names, else the plant's in the
 * process's registry (a table node naming the plant, else S7T_IO_TABLE, else the demo plant's).
 * @param {(id: string) => object|null} getNode RED.nodes.getNode
 * @param {string} [id] the table node's id
 * @param {string} plant
 * @returns {object} a table
 * @throws {Error} as tableFor, and the registry's fallback (a bad S7T_IO_TABLE)
 */
function plantTableFor(getNode, id, plant) {
  const { plantTables } = require('../io-table');
  return tableFor(getNode, id, () => plantTables.get(plant));
}

module.exports = { plantsOf, readTableConfig, tableFor, plantTableFor };
