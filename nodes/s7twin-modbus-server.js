'use strict';
/**
 * s7twin-modbus-server: the cloud's Modbus TCP server (holding registers) for the Modbus path.
 * The protocol lives in nodes/lib/modbus/server.js; this file wires it to Node-RED. Used instead
 * of node-red-contrib-modbus's `modbus-server`, which keeps serving old client connections from
 * a closed node's memory after a redeploy (see the lib's header).
 */
const { createModbusServer, DEFAULTS } = require('./lib/modbus/server');
const { processTable } = require('./lib/core/io-table');
const { tableFor } = require('./lib/core/table/config');
const registry = require('./lib/runtime/registry');
const { prop } = require('./lib/core/props');
const { dedupStatus } = require('./lib/runtime/status');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { runtimeAudit } = require('./lib/history/audit-store');

const STATUS = {
  starting: { fill: 'yellow', shape: 'ring', text: 'starting' },
  error: (text) => ({ fill: 'red', shape: 'dot', text }),
  listening: (port, n) => ({ fill: 'green', shape: 'dot', text: `:${port} · ${n} client${n === 1 ? '' : 's'}` }),
};

module.exports = function register(RED) {
  function S7TwinModbusServerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const host = prop(config.host) || DEFAULTS.host;
    const port = prop(config.port) === '' ? DEFAULTS.port : Number(prop(config.port));
    // Empty: as many as the plant's table maps (the demo plant's 6,048).
    const registers = prop(config.registers) === '' ? undefined : Number(prop(config.registers));
    const maxClients = prop(config.maxClients) === '' ? DEFAULTS.maxClients : Number(prop(config.maxClients));
    // Who may write the edge-only registers (Modbus has no authentication, so the source address
    // decides): empty = loopback, the lib's default.
    const edgeHosts = prop(config.edgeHosts) || DEFAULTS.edgeHosts;
    const ratePerS = prop(config.ratePerS) === '' ? DEFAULTS.ratePerS : Number(prop(config.ratePerS));
    const status = dedupStatus(node);

    let server;
    try {
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        const e = new Error(`port must be 0..65535, got "${config.port}"`); e.code = 'E_CONFIG'; throw e;
      }
      // The plant's table: the I/O table node given, else S7T_IO_TABLE's, else the demo plant's.
      const table = tableFor((id) => RED.nodes.getNode(id), config.table, processTable);
      // The plant (one per Modbus server): the node's, else S7T_PLANT, else plant1. Every write of
      // the commands' registers goes into the runtime's command log (lib/modbus/command-log.js).
      const plant = String(config.plant || '').trim() || process.env.S7T_PLANT || DEFAULT_PLANT;
      const audit = runtimeAudit(RED.settings, (t) => RED.log.warn(t)).recorder;
      server = createModbusServer({ host, port, registers, maxClients, edgeHosts, ratePerS, burst: 2 * ratePerS, table, plant, audit });
    } catch (err) {
      status(STATUS.error(err.code || 'config error'));
      node.error(`${err.code}: ${err.message}`);
    }
    node.modbus = server; // tests and neighbouring nodes may read counters
    registry.add(node, () => ({ ...(server ? server.counters : {}), clients: server ? server.clients : 0 }));

    if (server) {
      status(STATUS.starting);
      const started = server.start().then((p) => {
        status(STATUS.listening(p, server.clients));
        node.log(`Modbus server listening on ${host}:${p}; edge-only registers writable from ${[].concat(edgeHosts).join(', ')}`);
      }, (err) => {
        status(STATUS.error('cannot listen'));
        node.error(`${err.code}: ${err.message}`);
      });
      server.on('clients', (n) => { if (server.port) status(STATUS.listening(server.port, n)); });
      // A client refused for want of room: warn on the first and every 100th (a twin retrying
      // would flood the log), E_MODBUS_CLIENTS.
      server.on('refused', (n) => {
        if (n === 1 || n % 100 === 0) node.warn(`E_MODBUS_CLIENTS: ${n} connection(s) refused, already serving ${maxClients} (Max clients)`);
      });
      // Refused writes and limited connections: counted always, logged at most once a second.
      let lastWarn = 0;
      let unlogged = 0;
      const warnSome = (text) => {
        const now = Date.now();
        if (now - lastWarn < 1000) { unlogged += 1; return; }
        node.warn(`${text}${unlogged ? ` (+${unlogged} more not logged)` : ''}`);
        lastWarn = now;
        unlogged = 0;
      };
      server.on('write-refused', (r) => warnSome(`E_MODBUS_NOT_EDGE: ${r.from} wrote registers ${r.address}..${r.address + r.qty - 1}, ` +
        'which only the edge writes (refused with exception 02)'));
      server.on('limited', (ev) => warnSome(`${ev.code}: ${ev.from} closed: ${ev.message}`));
      server.on('write', (w) => node.send({ topic: 'write', address: w.address, payload: w.words }));
      server.on('error', (err) => { status(STATUS.error('error')); node.error(err.message); });
      node.started = started;
    }

    node.on('input', (msg, send, done) => {
      try {
        if (!server) throw Object.assign(new Error('no server (bad configuration)'), { code: 'E_CONFIG' });
        const address = Number(msg.address);
        // This node as the sender of a command the flow writes (the command log names it).
        server.write(address, Array.isArray(msg.payload) ? msg.payload : [msg.payload], { id: node.id, name: node.name });
        done();
      } catch (err) {
        done(err);
      }
    });

    node.on('close', (removed, done) => {
      registry.remove(node);
      const finish = () => { node.status({}); done(); };
      if (!server) { finish(); return; }
      server.removeAllListeners('write');
      server.removeAllListeners('clients');
      server.removeAllListeners('refused');
      server.removeAllListeners('write-refused');
      server.removeAllListeners('limited');
      server.close().then(finish, finish);
    });
  }
  RED.nodes.registerType('s7twin-modbus-server', S7TwinModbusServerNode);
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
  registry.watchRuntime(RED.events);
};
