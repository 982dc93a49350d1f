'use strict';
/**
 * Config node: a plant's I/O table (its tags), referenced by the PLC connection at the edge and by
 * the cloud's nodes; the plants it names get it in the process's plant registry, so the nodes
 * that serve many plants (link endpoints, MQTT broker, REST endpoint) check each plant's frames
 * against its own table. A table with errors is refused: every node using it reports why.
 *
 * The editor (resources/s7twin-table-*.js) gets the runtime's table module from
 * GET <admin>/s7twin-io-table/modules.js, so it checks, imports and exports with the same code.
 */
const { createTable, plantTables } = require('./lib/core/io-table');
const { readTableConfig } = require('./lib/core/table/config');
const { createEditorModules } = require('./lib/web/editor-modules');

module.exports = function register(RED) {
  function IoTableNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const { table, plants, error } = readTableConfig(config, createTable);
    node.table = table;
    node.tableError = error;
    node.plants = plants;
    if (error) node.error(`I/O table ${config.name || node.id} refused: ${error.message}`);
    for (const p of plants) plantTables.set(p, table, node);
    node.on('close', (removed, done) => {
      for (const p of plants) plantTables.delete(p, node);
      done();
    });
  }
  RED.nodes.registerType('s7twin-io-table', IoTableNode);

  // The editor checks, imports and exports a table with the runtime's own table module.
  const modules = createEditorModules();
  RED.httpAdmin.get('/s7twin-io-table/modules.js', RED.auth.needsPermission('s7twin-io-table.read'), (req, res) => modules.handle(req, res));
};
