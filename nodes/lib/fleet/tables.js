'use strict';
/**
 * Plants' I/O tables across a fleet. The instance a plant's edge connects to learns the plant's
 * table from the edge (lib/link/edge-endpoint.js) and announces it: stored in the plant's table
 * hash and published on the fleet's tables channel, in one step (lib/fleet/backplane.js
 * mergeState). Every instance takes what is published into its plant registry
 * (lib/core/table/registry.js), so its twin endpoint, REST endpoint and MQTT broker check the
 * plant's frames against the plant's own table wherever the edge is; an instance that sees a
 * plant's twin before it heard of the plant's table reads the hash (load). A table configured on
 * an instance for the plant wins there: one that differs is counted (tableRefused), not taken.
 *
 * Plain module; lib/fleet/member.js keeps one.
 */
const { KEYS } = require('./keys');

/**
 * @param {object} o
 * @param {object} o.bp the backplane (lib/fleet/backplane.js)
 * @param {object} o.registry the plant registry (lib/core/table/registry.js)
 * @param {object} o.counters the member's: tablesAnnounced, tablesIn, tableRefused, badMessages
 * @param {(err: Error) => void} o.fail a backplane command failed
 * @param {() => boolean} o.closed the member is closing
 * @returns {{announce(plant: string, table: object): Promise<void>, load(plant: string): Promise<void>,
 *   listen(): Promise<void>, unlisten(): Promise<void>}}
 */
function createTableShare(o) {
  const { bp, registry, counters } = o;

  /** Take a plant's table into the registry (one a configuration here refuses is counted). */
  function take(plant, t) {
    try {
      registry.learn(plant, t);
      counters.tablesIn += 1;
    } catch {
      counters.tableRefused += 1;
    }
  }

  function onText(text) {
    const sp = text.indexOf(' ');
    let m;
    try {
      m = JSON.parse(text.slice(sp + 1));
      if (typeof m.p !== 'string' || typeof m.f !== 'string' || !m.d || typeof m.d !== 'object') throw new Error('not a table');
    } catch {
      counters.badMessages += 1;
      return;
    }
    take(m.p, { fingerprint: m.f, definition: m.d });
  }

  return {
    /** Store and publish a plant's table (its edge taught it here). */
    announce(plant, table) {
      if (o.closed()) return Promise.resolve();
      counters.tablesAnnounced += 1;
      const text = JSON.stringify({ p: plant, f: table.fingerprint, d: table.definition });
      return bp.mergeState(KEYS.table(plant), KEYS.tables, { f: table.fingerprint, d: table.definition }, text).then(() => {}, o.fail);
    },
    /** Read a plant's table from its hash (an instance that has not heard of it yet). */
    load(plant) {
      return bp.readState(KEYS.table(plant)).then(({ values }) => {
        if (typeof values.f === 'string' && values.d) take(plant, { fingerprint: values.f, definition: values.d });
      }, o.fail);
    },
    listen: () => bp.subscribe(KEYS.tables, onText),
    unlisten: () => bp.unsubscribe(KEYS.tables, onText),
  };
}

module.exports = { createTableShare };
