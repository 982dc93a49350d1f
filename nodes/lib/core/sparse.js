'use strict';
/**
 * An empty object for keys that are numbers, as a probe frame's d is ({slot: value}): V8 keeps
 * such an object's number keys in a table. Set key 937 on `{}` and V8 makes room for 1,423 array
 * elements (11.6 KB) to hold one value; on this object it takes about 200 bytes, as JSON.parse's
 * objects do. At 1,000 twins every probe and probe answer the edge and the cloud decoded or built
 * cost that much (`node bench/sparse-keys.js`). Browser-safe.
 */

/** The largest array index: an element there makes V8 keep the object's elements in a table. */
const FAR = 4294967294;

/** @returns {object} an empty object whose number keys V8 keeps in a table */
function sparseObject() {
  const o = {};
  o[FAR] = 0;
  delete o[FAR];
  return o;
}

module.exports = { sparseObject };
