'use strict';
/**
 * Config node: one S7 connection to a PLC (lib/s7/connection.js on nodes7), shared by the
 * s7twin-s7 nodes that use it. Connects when the first user registers, closes after the last.
 * It reads the areas of the plant's I/O table: the s7twin-io-table node it names, else the
 * table S7T_IO_TABLE names, else the demo plant's.
 */
const { createS7Connection, DEFAULTS } = require('./lib/s7/connection');
const { processTable } = require('./lib/core/io-table');
const { tableFor } = require('./lib/core/table/config');
const registry = require('./lib/runtime/registry');

module.exports = function register(RED) {
  function PlcNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const num = (v, d) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : d);
    node.host = config.host || '127.0.0.1';
    node.port = num(config.port, 102);
    try {
      node.table = tableFor((id) => RED.nodes.getNode(id), config.table, processTable);
    } catch (err) {
      // No connection without a table: the s7 nodes using this one report it and write nothing.
      node.table = null;
      node.tableError = err;
      node.error(`PLC ${node.host}:${node.port}: no I/O table: ${err.message}`);
      return;
    }
    node.conn = createS7Connection({
      host: node.host,
      port: node.port,
      rack: num(config.rack, 0),
      slot: num(config.slot, 1),
      cycleMs: Math.max(1, num(config.cycleMs, 10)),
      chaseMs: Math.max(0, num(config.chaseMs, DEFAULTS.chaseMs)),
      readGapMs: Math.max(0, num(config.readGapMs, DEFAULTS.readGapMs)),
      timeoutMs: Math.max(100, num(config.timeoutMs, 1500)),
      ranges: node.table.readRanges({ filter: () => true }),
      backoff: { maxMs: Math.max(200, num(config.backoffMaxMs, 5000)) },
    });
    node.conn.setMaxListeners(0); // one set of listeners per s7 node using it
    const users = new Set();
    registry.add(node, () => ({ ...node.conn.counters, queueDepth: node.conn.queueDepth, state: node.conn.state }));
    let lastErr = '';
    node.conn.on('status', (s, detail) => {
      if (s === 'disconnected' && detail && detail !== 'closed' && detail !== lastErr) {
        node.warn(`PLC ${node.host}:${node.port}: ${detail}`);
        lastErr = detail;
      }
      if (s === 'connected') lastErr = '';
    });

    node.register = (u) => {
      users.add(u);
      if (users.size === 1) node.conn.start();
    };
    node.deregister = (u) => {
      users.delete(u);
      if (users.size === 0) return node.conn.close();
      return Promise.resolve();
    };

    node.on('close', (removed, done) => {
      registry.remove(node);
      node.conn.close().then(() => done(), () => done());
    });
  }
  RED.nodes.registerType('s7twin-plc', PlcNode);
};
