'use strict';
/**
 * The demo plant's table as a module, for the parts not yet handed a table of their own. New code
 * takes a table (lib/core/io-table.js) instead.
 */
const { demoTable } = require('./io-table');

module.exports = demoTable();
