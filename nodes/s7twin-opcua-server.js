'use strict';
/**
 * s7twin-opcua-server: the cloud OPC UA server of the OPC UA path. The server itself is
 * nodes/lib/opcua/server.js; this file wires it to Node-RED: configuration from the node (with
 * `${S7T_...}` env values, nodes/lib/opcua/node-config.js), status, one message per value change
 * (nodes/lib/opcua/node-view.js), and the image kept across a redeploy.
 */
const { createOpcuaServer } = require('./lib/opcua/server');
const { serverNodeOptions, usesDefaultPassword } = require('./lib/opcua/node-config');
const { plantTableFor } = require('./lib/core/table/config');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { refusedStatus, serverStatusText, changeMessage } = require('./lib/opcua/node-view');
const registry = require('./lib/runtime/registry');
const { dedupStatus } = require('./lib/runtime/status');
const { closeWithin } = require('./lib/runtime/close-guard');
const { numberReader } = require('./lib/core/props');
const { runtimeAudit } = require('./lib/history/audit-store');

const CLOSE_TIMEOUT_MS = 8000; // well inside Node-RED's 15 s close limit
const STATUS_MIN_MS = 500; // session-count status refreshed at most twice a second
const LIMIT_LOG_MS = 1000; // a closed channel is logged at most once a second (always counted)

// The image of each server node across redeploys, by node id. Not node context: Node-RED deletes
// a node's memory context when the node closes, redeploys included (runtime nodes/Node.js close).
const images = new Map();

module.exports = function register(RED) {
  function S7TwinOpcuaServerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    let server;
    try {
      const options = serverNodeOptions(config, {
        credentials: node.credentials || {}, env: process.env, num: numberReader(node),
        userDir: (RED.settings && RED.settings.userDir) || process.cwd(), initialValues: images.get(node.id),
        table: plantTableFor((id) => RED.nodes.getNode(id), config.table, String(config.plant || '').trim() || DEFAULT_PLANT),
      });
      // Every write of a command variable, into the runtime's command log (lib/opcua/command-log.js).
      server = createOpcuaServer({ ...options, audit: runtimeAudit(RED.settings, (t) => RED.log.warn(t)).recorder });
      if (usesDefaultPassword(options)) {
        node.warn('OPC UA server: a default password is in use (set the passwords in the node or S7T_OPCUA_TWIN_PASSWORD / S7T_OPCUA_EDGE_PASSWORD)');
      }
    } catch (err) {
      node.status(refusedStatus(err, 'started'));
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }

    registry.add(node, () => ({ ...server.counters, monitoredItems: server.monitoredItemCount() }));
    const setStatus = dedupStatus(node);
    let lastStatusAt = 0;
    let closing = false;
    function showRunning() {
      if (closing || !server.running) return;
      lastStatusAt = Date.now();
      setStatus({ fill: 'green', shape: 'dot', text: serverStatusText(server.config.port, server.counters) });
    }
    // Status follows the session count without a status event per write.
    const poll = setInterval(() => {
      if (Date.now() - lastStatusAt >= STATUS_MIN_MS) showRunning();
    }, STATUS_MIN_MS);

    let lastLimitLog = 0;
    server.on('limited', (ev) => {
      if (Date.now() - lastLimitLog < LIMIT_LOG_MS) return;
      lastLimitLog = Date.now();
      node.warn(`${ev.code}: OPC UA channel ${ev.channelId} closed: ${ev.message}`);
    });
    server.on('change', (ev) => node.send(changeMessage(ev)));

    setStatus({ fill: 'yellow', shape: 'ring', text: 'starting' });
    const started = server.start().then(() => {
      if (closing) return;
      const cfg = server.config;
      node.log(`OPC UA server on ${server.endpointUrl} (plant ${cfg.plant}, min sampling ${cfg.minimumSamplingIntervalMs} ms, ${cfg.probeSlots} probe slots)`);
      showRunning();
    }, (err) => {
      setStatus({ fill: 'red', shape: 'dot', text: err.code || 'error' });
      node.error(`${err.code || 'E_START'}: ${err.message}`);
    });

    // Input: set values from the flow (an inject, a test), as user 'local'.
    //   msg.payload {short: value, ...}, or msg.topic short + msg.payload value.
    node.on('input', (msg, send, done) => {
      try {
        const values = msg.payload && typeof msg.payload === 'object' && !Array.isArray(msg.payload)
          ? msg.payload : { [msg.topic]: msg.payload };
        // This node as the sender of a command the flow sets (the command log names it).
        for (const [k, v] of Object.entries(values)) server.set(k, v, { id: node.id, name: node.name });
        done();
      } catch (err) {
        done(err);
      }
    });

    node.on('close', (removed, done) => {
      closing = true;
      registry.remove(node);
      clearInterval(poll);
      // Keep the image for the next deploy of this node: twins and edge find the plant as it was.
      if (removed) images.delete(node.id); else images.set(node.id, server.values());
      closeWithin(node, done, {
        ms: CLOSE_TIMEOUT_MS, what: 'OPC UA server close', after: () => node.status({}),
        work: () => started.then(() => server.stop()),
      });
    });
  }

  RED.nodes.registerType('s7twin-opcua-server', S7TwinOpcuaServerNode, {
    credentials: {
      twinPassword: { type: 'password' },
      edgePassword: { type: 'password' },
    },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
  registry.watchRuntime(RED.events);
};
