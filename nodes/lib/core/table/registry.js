'use strict';
/**
 * Which I/O table each plant has, for the parts that serve many plants at once (the cloud's link
 * endpoints, MQTT broker, REST endpoint, fleet): a plant's table comes from configuration (an
 * `s7twin-io-table` config node naming the plant, or `S7T_IO_TABLE` for every plant), or is
 * learned from the plant's edge, which sends its table when it connects. A plant with neither
 * gets the fallback (the table `S7T_IO_TABLE` names, else the demo plant's).
 *
 * A configured table wins: an edge whose table differs from it is refused (E_TABLE_MISMATCH), as
 * its frames would name tags, types and ranges the cloud checks differently. A learned table is
 * forgotten when its edge goes (forget), so a plant rewired to another PLC may bring another one.
 */
const { codedError } = require('../errors');

/** Error with a stable `code` (E_TABLE_MISMATCH). */
const RegistryError = codedError('TableRegistryError');

/**
 * @param {{fallback?: () => object, createTable?: (def: object) => object}} [o] fallback: the
 *   table of a plant nobody configured (called each time; memoise it); createTable: how a learned
 *   definition becomes a table (../io-table.js createTable)
 * @returns {object} see the methods
 */
function createTableRegistry(o = {}) {
  const entries = new Map(); // plant -> {table, source: 'config'|'edge', owner}
  const listeners = new Set();
  const changed = (plant) => { for (const fn of listeners) fn(plant); };
  const fallback = () => (o.fallback ? o.fallback() : null);

  return {
    /**
     * Configure a plant's table (a config node, a test): it replaces what an edge taught.
     * @param {string} plant
     * @param {object} table
     * @param {*} [owner] who set it: delete(plant, owner) removes only its own
     */
    set(plant, table, owner) {
      entries.set(plant, { table, source: 'config', owner });
      changed(plant);
    },
    /** Remove a configured table (only `owner`'s, when given). */
    delete(plant, owner) {
      const e = entries.get(plant);
      if (!e || (owner !== undefined && e.owner !== owner)) return;
      entries.delete(plant);
      changed(plant);
    },
    /**
     * The plant's table: configured, learned, else the fallback.
     * @param {string} plant
     * @returns {object}
     */
    get(plant) {
      const e = entries.get(plant);
      return e ? e.table : fallback();
    },
    /** Where the plant's table comes from: 'config', 'edge' or 'default'. */
    source(plant) {
      const e = entries.get(plant);
      return e ? e.source : 'default';
    },
    /**
     * Take the table a plant's edge sends. A plant configured here keeps its table, and an edge
     * whose table differs from it is refused; otherwise the edge's table becomes the plant's.
     * @param {string} plant
     * @param {{fingerprint: string, definition?: object}} hello what the edge says of its table
     * @returns {object} the plant's table now
     * @throws {TableRegistryError} E_TABLE_MISMATCH; TableError E_TABLE for a definition refused
     */
    learn(plant, hello) {
      const e = entries.get(plant);
      const current = e ? e.table : fallback();
      if (current && current.fingerprint === hello.fingerprint) return current;
      if (e && e.source === 'config') {
        throw new RegistryError('E_TABLE_MISMATCH',
          `plant "${plant}": the edge's I/O table (${hello.fingerprint}) is not the one configured here (${e.table.fingerprint})`);
      }
      if (!hello.definition || !o.createTable) {
        throw new RegistryError('E_TABLE_MISMATCH',
          `plant "${plant}": the edge's I/O table (${hello.fingerprint}) is not this instance's `
          + `(${current ? current.fingerprint : 'none'}) and it sent no definition`);
      }
      const table = o.createTable(hello.definition);
      if (table.fingerprint !== hello.fingerprint) {
        throw new RegistryError('E_TABLE_MISMATCH',
          `plant "${plant}": the edge's I/O table does not hash to the fingerprint it sent (${hello.fingerprint}, made ${table.fingerprint})`);
      }
      entries.set(plant, { table, source: 'edge' });
      changed(plant);
      return table;
    },
    /** Forget a table an edge taught (its edge went); configured tables stay. */
    forget(plant) {
      const e = entries.get(plant);
      if (e && e.source === 'edge') { entries.delete(plant); changed(plant); }
    },
    /** Plants with a table of their own. */
    plants: () => [...entries.keys()],
    /** Call fn(plant) whenever a plant's table changes; returns a function that stops it. */
    onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  };
}

module.exports = { createTableRegistry, RegistryError };
