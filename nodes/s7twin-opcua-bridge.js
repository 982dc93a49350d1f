'use strict';
/**
 * s7twin-opcua-bridge: the edge of the OPC UA path. Subscribes to the cloud server's command
 * variables and writes them to the PLC's OPC UA server, and subscribes to the PLC's outputs and
 * writes them to the cloud server (nodes/lib/opcua-bridge.js). This file wires it to Node-RED.
 *
 * Why not node-red-contrib-opcua's client nodes (0.2.354, opcua/102-opcuaclient.js): one node
 * interval is used as both the subscription's publishing interval and every item's sampling
 * interval; monitored items exist only after a message asked for them, so a flow has to
 * re-inject its subscriptions after a reconnect, and each client node is its own session.
 */
const path = require('node:path');
const { createOpcuaBridge, DEFAULTS } = require('./lib/opcua-bridge');
const ot = require('./lib/opcua-tags');
const registry = require('./lib/registry');

const CLOSE_TIMEOUT_MS = 8000; // well inside Node-RED's 15 s close limit
const PLC_PORT = 4840;
const CLOUD_PORT = 4841;

module.exports = function register(RED) {
  function S7TwinOpcuaBridgeNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const creds = node.credentials || {};
    const userDir = (RED.settings && RED.settings.userDir) || process.cwd();
    let bridge;
    try {
      bridge = createOpcuaBridge({
        plcEndpoint: ot.endpointUrl(config.plcUrl, '127.0.0.1', PLC_PORT),
        cloudEndpoint: ot.endpointUrl(config.cloudUrl, '127.0.0.1', CLOUD_PORT),
        plant: (config.plant || '').trim() || undefined,
        cloudCredentials: {
          user: (config.cloudUser || '').trim() || 'edge',
          password: creds.cloudPassword || process.env.S7T_OPCUA_EDGE_PASSWORD || 'edge',
        },
        cloudSecurityMode: config.securityMode || 'None',
        cloudSecurityPolicy: config.securityPolicy || 'None',
        publishingIntervalMs: ot.numberOr(config.publishingInterval, DEFAULTS.publishingIntervalMs),
        samplingIntervalMs: ot.numberOr(config.samplingInterval, DEFAULTS.samplingIntervalMs),
        probeSlots: ot.numberOr(config.probeSlots, DEFAULTS.probeSlots),
        pkiDir: (config.pkiDir || '').trim() || path.join(userDir, 'opcua-pki', 'client'),
      });
    } catch (err) {
      node.status({ fill: 'red', shape: 'dot', text: err.code || 'config error' });
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }

    // The probe relay's two sessions count too (plc-probes, cloud-probes) when it is on.
    const sideStatus = bridge.probes
      ? { plc: 'connecting', cloud: 'connecting', 'plc-probes': 'connecting', 'cloud-probes': 'connecting' }
      : { plc: 'connecting', cloud: 'connecting' };
    let lastStatus = '';
    let closing = false;
    function showStatus() {
      if (closing) return;
      const s = Object.values(sideStatus);
      const text = Object.entries(sideStatus).filter(([k, v]) => v !== 'connected' || k === 'plc' || k === 'cloud').map(([k, v]) => `${k} ${v}`).join(', ');
      let fill = 'green'; let shape = 'dot';
      if (s.includes('error')) { fill = 'red'; shape = 'dot'; } else if (s.includes('disconnected')) { fill = 'red'; shape = 'ring'; } else if (s.includes('connecting')) { fill = 'yellow'; shape = 'ring'; }
      const key = `${fill}|${shape}|${text}`;
      if (key === lastStatus) return;
      lastStatus = key;
      node.status({ fill, shape, text: fill === 'green' ? 'connected' : text });
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
      let finished = false;
      const finish = (err) => {
        if (finished) return;
        finished = true;
        clearTimeout(guard);
        if (err) node.warn(`OPC UA bridge close: ${err.message}`);
        node.status({});
        done();
      };
      const guard = setTimeout(() => finish(new Error(`not closed after ${CLOSE_TIMEOUT_MS} ms`)), CLOSE_TIMEOUT_MS);
      // stop() first: a start still retrying against a dead server is cut short by it.
      bridge.stop().then(() => started).then(() => finish(), finish);
    });
  }

  RED.nodes.registerType('s7twin-opcua-bridge', S7TwinOpcuaBridgeNode, {
    credentials: { cloudPassword: { type: 'password' } },
  });
  registry.install(RED.httpAdmin, RED.auth.needsPermission('s7twin.read'));
};
