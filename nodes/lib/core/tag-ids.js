'use strict';
/**
 * Numeric tag ids of an I/O table: the one place they come from. The compact encoding
 * (lib/core/codec/compact.js) names a tag by a small number instead of its short name, and both
 * ends of a connection must number the same table the same way: a tag's id is its place in the
 * table's `tags` list (0, 1, 2, …). Any table with a `tags` list of `{short}` works (the demo
 * plant's, lib/core/tags.js, or a plant's own), and equal tables give equal ids. Two ends whose
 * tables number tags differently must not trust each other's ids (a command would set another
 * tag than the twin meant), so the numbering has a key, a hash of the short names in their
 * order, which the compact encoding sends once per connection and direction and the receiver
 * compares with its own.
 *
 * Browser-safe, no require.
 */

const cache = new WeakMap(); // table -> ids (tables are frozen values: made once each)

/**
 * A short, stable hash of a text (53 bits as 14 hex digits, cyrb53): enough to tell two
 * numberings apart, not a secret; no node:crypto, so a browser computes the same.
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
