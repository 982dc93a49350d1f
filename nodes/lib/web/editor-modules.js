'use strict';
/**
 * The I/O table module for the Node-RED editor: the table editor of the `s7twin-io-table` node
 * checks a table as the user types with the very code the runtime refuses a table with
 * (validateTable), imports and exports CSV and TIA Portal sources with it, and formats addresses
 * with it. The editor gets those files as the browser twin's page gets its modules: one script
 * made by ./page-bundle.js from nodes/lib/core/io-table.js and everything it requires, so there
 * is no second copy of the rules and no build step. The node serves it on Node-RED's admin HTTP
 * server (RED.httpAdmin, behind the editor's own login).
 *
 * In the editor: `S7Twin.require` with the module's path, nodes/lib/core/io-table.js (and its
 * parts by their paths).
 */
const path = require('node:path');
const { bundle } = require('./page-bundle');
const { createFileCache } = require('./files');

/** The package's root: module ids are paths from here, as on the browser twin's page. */
const ROOT = path.join(__dirname, '..', '..', '..');
/** What the editor runs. loadTable's file reading (node:fs) is never called there. */
const MODULES = { root: ROOT, entries: ['nodes/lib/core/io-table.js'], stubs: ['node:fs'] };

/**
 * The handler of GET <admin>/s7twin-io-table/modules.js.
 * @param {{modules?: object}} [o] page-bundle options (default: the I/O table module)
 * @returns {{handle: (req: import('http').IncomingMessage, res: import('http').ServerResponse) => void, counters: object}}
 */
function createEditorModules(o = {}) {
  const files = createFileCache();
  const opts = o.modules || MODULES;
  return {
    handle(req, res) {
      files.serve(req, res, files.entry('modules.js', () => Buffer.from(bundle(opts).text), 'text/javascript; charset=utf-8'));
    },
    counters: files.counters,
  };
}

module.exports = { createEditorModules, MODULES };
