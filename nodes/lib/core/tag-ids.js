'use strict';
/**
 * Numeric tag ids of an I/O table: the one place they come from. The compact encoding
 * (lib/core/codec/compact.js) names a tag by a small number instead of its short name, and both
 * ends of a connection must number the same table the same way: a tag's id is its place in the
 * table's `tags` list (0, 1, 2, …). Any table with a `tags` list of `{short}` works (the demo
 * plant's, lib/core/tags.js, or a plant's own), and equal tables give equal ids; two ends with
 * different tables are refused before any frame (the plant's table is checked when its edge
 * connects).
 *
 * Browser-safe, no require.
 */

const cache = new WeakMap(); // table -> ids (tables are frozen values: made once each)

/**
 * The ids of a table's tags.
 * @param {{tags: Array<{short: string}>}} table
 * @returns {{idOf(short: string): number|undefined, shortOf(id: number): string|undefined, size: number}}
 */
function tagIds(table) {
  let ids = cache.get(table);
  if (ids) return ids;
  const shorts = table.tags.map((t) => t.short);
  const byShort = new Map(shorts.map((s, i) => [s, i]));
  ids = Object.freeze({
    idOf: (short) => byShort.get(short),
    shortOf: (id) => (Number.isInteger(id) && id >= 0 && id < shorts.length ? shorts[id] : undefined),
    size: shorts.length,
  });
  cache.set(table, ids);
  return ids;
}

module.exports = { tagIds };
