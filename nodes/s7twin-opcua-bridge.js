'use strict';
/**
 * s7twin-opcua-bridge: the edge of the OPC UA path. Subscribes to the cloud server's command
 * variables and writes them to the PLC's OPC UA server, and subscribes to the PLC's outputs and
 * writes them to the cloud server (nodes/lib/opcua/bridge.js). This file wires it to Node-RED.
 *
 * Why not node-red-contrib-opcua's client nodes (0.2.354, opcua/102-opcuaclient.js): one node
 * interval is used as both the subscription's publishing interval and every item's sampling
 * interval; monitored items exist only after a message asked for them, so a flow has to
 * re-inject its subscriptions after a reconnect, and each client node is its own session.
 */
const path = require('node:path');
const { createOpcuaBridge, DEFAULTS } = require('./lib/opcua/bridge');
const ot = require('./lib/opcua/tags');
const registry = require('./lib/runtime/registry');
const { dedupStatus } = require('./lib/runtime/status');
const { closeWithin } = require('./lib/runtime/close-guard');
const { numberReader } = require('./lib/core/props');

const CLOSE_TIMEOUT_MS = 8000; // well inside Node-RED's 15 s close limit
const PLC_PORT = 4840;
const CLOUD_PORT = 4841;

module.exports = function register(RED) {
  function S7TwinOpcuaBridgeNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const creds = node.credentials || {};
    const num = numberReader(node);
    const userDir = (RED.settings && RED.settings.userDir) || process.cwd();
    // No password falls back to a default: without the edge account's password the bridge refuses.
    const cloudPassword = creds.cloudPassword || process.env.S7T_OPCUA_EDGE_PASSWORD || '';
    let bridge;
    try {
      if (!cloudPassword) {
        throw Object.assign(new Error('no password for the cloud server\'s edge account: set Cloud password in the node or S7T_OPCUA_EDGE_PASSWORD; the bridge does not connect'), { code: 'E_NO_CREDENTIAL' });
      }
      bridge = createOpcuaBridge({
        plcEndpoint: ot.endpointUrl(config.plcUrl, '127.0.0.1', PLC_PORT),
        cloudEndpoint: ot.endpointUrl(config.cloudUrl, '127.0.0.1', CLOUD_PORT),
        plant: (config.plant || '').trim() || undefined,
        cloudCredentials: {
          user: (config.cloudUser || '').trim() || 'edge',
          password: cloudPassword,
        },
        cloudSecurityMode: config.securityMode || 'None',
        cloudSecurityPolicy: config.securityPolicy || 'None',
        publishingIntervalMs: num('Publishing', config.publishingInterval, DEFAULTS.publishingIntervalMs),
        samplingIntervalMs: num('Sampling', config.samplingInterval, DEFAULTS.samplingIntervalMs),
        probeSlots: num('Probe slots', config.probeSlots, DEFAULTS.probeSlots),
        pkiDir: (config.pkiDir || '').trim() || path.join(userDir, 'opcua-pki', 'client'),
      });
    } catch (err) {
      node.status({ fill: 'red', shape: 'dot', text: err.code === 'E_NO_CREDENTIAL' ? 'no password: not connected' : err.code || 'config error' });
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }

    // The probe relay's two sessions count too (plc-probes, cloud-probes) when it is on.
    const sideStatus = bridge.probes
      ? { plc: 'connecting', cloud: 'connecting', 'plc-probes': 'connecting', 'cloud-probes': 'connecting' }
      : { plc: 'connecting', cloud: 'connecting' };
    const setStatus = dedupStatus(node);
    let closing = false;
    function showStatus() {
      if (closing) return;
      const s = Object.values(sideStatus);
      const text = Object.entries(sideStatus).filter(([k, v]) => v !== 'connected' || k === 'plc' || k === 'cloud').map(([k, v]) => `${k} ${v}`).join(', ');
      let fill = 'green'; let shape = 'dot';
      if (s.includes('error')) { fill = 'red'; shape = 'dot'; } else if (s.includes('disconnected')) { fill = 'red'; shape = 'ring'; } else if (s.includes('connecting')) { fill = 'yellow'; shape = 'ring'; }
      setStatus({ fill, shape, text: fill === 'green' ? 'connected' : text });
    }
    showStatus();

    bridge.on('status', ({ side, status, detail }) => {
      sideStatus[side] = status;
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
