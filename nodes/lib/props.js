'use strict';
/**
 * Reading a node's configuration properties, in one place for every node. Flows fill properties
 * from the environment with `${S7T_...}`; Node-RED leaves the reference as text when the variable
 * is not set, and such a property counts as empty, as a blank one does.
 */

/** An unresolved `${NAME}` reference. */
const UNSET = /^\$\{[^}]*\}$/;

/**
 * A property as trimmed text; '' when empty, missing or an unresolved `${NAME}`.
 * @param {*} v
 * @returns {string}
 */
function prop(v) {
  if (v === undefined || v === null) return '';
  const s = String(v).trim();
  return UNSET.test(s) ? '' : s;
}

/**
 * A property, or `dflt` when it is empty (see prop).
 * @template T
 * @param {*} v
 * @param {T} dflt
 * @returns {string|T}
 */
function setting(v, dflt) {
  const s = prop(v);
  return s === '' ? dflt : s;
}

/**
 * A property as a number >= 0, or `dflt` when it is empty or not such a number (the library the
 * node configures checks the ranges and names a bad value).
 * @param {*} v
 * @param {number} dflt
 * @returns {number}
 */
function numberOr(v, dflt) {
  const s = prop(v);
  if (s === '') return dflt;
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : dflt;
}

module.exports = { prop, setting, numberOr, UNSET };
