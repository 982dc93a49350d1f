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
 * A property as a number >= 0, or `dflt` when it is empty; a value that is no such number gets
 * `dflt` too, never silently: `onBad(text)` is told (a node warns with the property's name).
 * @param {*} v
 * @param {number} dflt
 * @param {(text: string) => void} [onBad]
 * @returns {number}
 */
function numberOr(v, dflt, onBad) {
  const s = prop(v);
  if (s === '') return dflt;
  const n = Number(s);
  if (Number.isFinite(n) && n >= 0) return n;
  if (onBad) onBad(s);
  return dflt;
}

/**
 * A property (or option) as a number > 0, or `dflt` when it is empty or no such number: for
 * intervals, timeouts and sizes where 0 would mean nothing sensible.
 * @param {*} v
 * @param {number} dflt
 * @returns {number}
 */
function positiveOr(v, dflt) {
  const n = Number(prop(v));
  return prop(v) !== '' && Number.isFinite(n) && n > 0 ? n : dflt;
}

/**
 * numberOr for one node: a bad value is a warning naming the property and the default used.
 * @param {{warn: (msg: string) => void}} node
 * @returns {(name: string, v: *, dflt: number) => number}
 */
function numberReader(node) {
  return (name, v, dflt) => numberOr(v, dflt, (s) => node.warn(`E_CONFIG: ${name} "${s}" is not a number >= 0; using ${dflt}`));
}

module.exports = { prop, setting, numberOr, positiveOr, numberReader, UNSET };
