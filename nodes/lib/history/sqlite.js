'use strict';
/**
 * Node's own SQLite (`node:sqlite`), loaded without its ExperimentalWarning.
 *
 * Why node:sqlite and not a binding from npm: it is a real embedded SQL database (SQLite itself,
 * compiled into Node 22), so there is no native addon to build for each Node version and platform
 * (this project already builds one, node-snap7, and a user installing the bundle into a stock
 * Node-RED often has no compiler), and no dependency to keep up to date. It is marked experimental
 * in Node 22 and prints an ExperimentalWarning when it is first loaded; in a Node-RED log that line
 * reads like a fault of the user's flow, so exactly that one warning is kept out of it here, and
 * every other warning goes through unchanged.
 *
 * Plain module; lib/history/state-store.js uses it.
 */

let sqlite = null;

/**
 * @returns {typeof import('node:sqlite')}
 * @throws {Error} code E_HISTORY_STORE when this Node has no node:sqlite (before 22.5)
 */
function loadSqlite() {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = function quiet(warning, ...rest) {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0] && rest[0].type;
    const text = warning && warning.message !== undefined ? warning.message : String(warning);
    if ((type === 'ExperimentalWarning' || (warning && warning.name === 'ExperimentalWarning')) && /SQLite/.test(text)) return undefined;
    return emit.call(process, warning, ...rest);
  };
  try {
    sqlite = require('node:sqlite');
  } catch (err) {
    throw Object.assign(new Error(`node:sqlite is not available in Node ${process.version} (Node 22.5 or later has it): ${err.message}`),
      { code: 'E_HISTORY_STORE' });
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

module.exports = { loadSqlite };
