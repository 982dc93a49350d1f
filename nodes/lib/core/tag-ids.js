'use strict';
/**
 * Numeric tag ids of an I/O table: the one place they come from. The compact encoding
 * (lib/core/codec/compact.js) names a tag by a small number instead of its short name, and both
 * ends of a connection must number the same table the same way: a tag's id is its place in the
 * table's `tags` list (0, 1, 2, …). Any table with a `tags` list of `{short}` works (a plant's
 * table from lib/core/io-table.js, the demo plant's or another), and equal tables give equal ids. Two ends whose
 * tables number tags differently must not trust each other's ids (a command would set another
 * tag than the twin meant), so the numbering has a key, a hash of the short names in their
 * order, which the compact encoding sends once per connection and direction and the receiver
 * compares with its own.
 *
 * Browser-safe (the table module's hash has no Node built-in).
 */
const { hash } = require('./io-table');

const cache = new WeakMap(); // table -> ids (tables are frozen values: made once each)

/**
 * The ids of a table's tags.
 * @param {{tags: Array<{short: string}>}} table
 * @returns {{idOf(short: string): number|undefined, shortOf(id: number): string|undefined, size: number, key: string}}
 *   key: the numbering's hash (equal keys, equal ids)
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
    key: hash(shorts.join(',')),
  });
  cache.set(table, ids);
  return ids;
}

module.exports = { tagIds };
