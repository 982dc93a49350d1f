'use strict';
/**
 * s7twin-opcua-bridge: the edge of the OPC UA path. Subscribes to the cloud server's command
 * variables and writes them to the PLC's OPC UA server, and subscribes to the PLC's outputs and
 * writes them to the cloud server (nodes/lib/opcua/bridge.js). This file wires it to Node-RED:
 * configuration (nodes/lib/opcua/node-config.js) and status (nodes/lib/opcua/node-view.js).
 *
 * Why not node-red-contrib-opcua's client nodes (0.2.354, opcua/102-opcuaclient.js): one node
 * interval is used as both the subscription's publishing interval and every item's sampling
 * interval; monitored items exist only after a message asked for them, so a flow has to
 * re-inject its subscriptions after a reconnect, and each client node is its own session.
 */
const { createOpcuaBridge } = require('./lib/opcua/bridge');
const { bridgeNodeOptions } = require('./lib/opcua/node-config');
const { plantTableFor } = require('./lib/core/table/config');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { refusedStatus, bridgeSides, bridgeStatus } = require('./lib/opcua/node-view');
const registry = require('./lib/runtime/registry');
const { dedupStatus } = require('./lib/runtime/status');
const { closeWithin } = require('./lib/runtime/close-guard');
const { numberReader } = require('./lib/core/props');

const CLOSE_TIMEOUT_MS = 8000; // well inside Node-RED's 15 s close limit

module.exports = function register(RED) {
  function S7TwinOpcuaBridgeNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    let bridge;
    try {
      bridge = createOpcuaBridge(bridgeNodeOptions(config, {
        credentials: node.credentials || {}, env: process.env, num: numberReader(node),
        userDir: (RED.settings && RED.settings.userDir) || process.cwd(),
        table: plantTableFor((id) => RED.nodes.getNode(id), config.table, String(config.plant || '').trim() || DEFAULT_PLANT),
      }));
    } catch (err) {
      node.status(refusedStatus(err, 'connected'));
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }

    // The probe relay's two sessions count too (plc-probes, cloud-probes) when it is on.
    const sides = bridgeSides(!!bridge.probes);
    const setStatus = dedupStatus(node);
    let closing = false;
    const showStatus = () => { if (!closing) setStatus(bridgeStatus(sides)); };
    showStatus();

    bridge.on('status', ({ side, status, detail }) => {
      sides[side] = status;
      if (status === 'error' && detail) node.warn(`${side}: ${detail}`);
      showStatus();
    });
    // Errors are counted by the bridge and never stop it; they are logged, not thrown.
    let errorsLogged = 0;
    bridge.on('error', (err) => {
      errorsLogged += 1;
      if (errorsLogged <= 20 || errorsLogged % 1000 === 0) node.warn(`${err.code || 'E_BRIDGE'}: ${err.message}`);
    });
    bridge.on('forward', ({ to, values }) => node.send({ topic: to, payload: values }));

    registry.add(node, () => bridge.stats());
    const started = bridge.start().catch((err) => {
      if (!closing) node.error(`${err.code || 'E_START'}: ${err.message}`);
    });

    // Input: msg.topic "stats" answers with the counters (monitored items included).
    node.on('input', (msg, send, done) => {
      if (msg.topic === 'stats') { send({ ...msg, payload: bridge.stats() }); done(); return; }
      done(new Error(`unknown command ${JSON.stringify(msg.topic)} (expected msg.topic "stats")`));
    });

    node.on('close', (removed, done) => {
      closing = true;
      registry.remove(node);
      // stop() first: a start still retrying against a dead server is cut short by it.
      closeWithin(node, done, {
        ms: CLOSE_TIMEOUT_MS, what: 'OPC UA bridge close', after: () => node.status({}),
        work: () => bridge.stop().then(() => started),
      });
    });
  }

  RED.nodes.registerType('s7twin-opcua-bridge', S7TwinOpcuaBridgeNode, {
    credentials: { cloudPassword: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
