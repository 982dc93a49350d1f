'use strict';
/**
 * s7twin-opcua-server: the cloud OPC UA server of the OPC UA path. The server itself is
 * nodes/lib/opcua/server.js; this file wires it to Node-RED: configuration from the node (with
 * `${S7T_...}` env values), status, one message per value change, and the image kept across a
 * redeploy.
 */
const path = require('node:path');
const { createOpcuaServer, DEFAULTS } = require('./lib/opcua/server');
const registry = require('./lib/runtime/registry');
const { dedupStatus } = require('./lib/runtime/status');
const { closeWithin } = require('./lib/runtime/close-guard');
const { numberReader } = require('./lib/core/props');

const CLOSE_TIMEOUT_MS = 8000; // well inside Node-RED's 15 s close limit
const STATUS_MIN_MS = 500; // session-count status refreshed at most twice a second

// The image of each server node across redeploys, by node id. Not node context: Node-RED deletes
// a node's memory context when the node closes, redeploys included (runtime nodes/Node.js close).
const images = new Map();

module.exports = function register(RED) {
  function S7TwinOpcuaServerNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const creds = node.credentials || {};
    const num = numberReader(node);
    const ratePerS = num('Rate per s', config.ratePerS, DEFAULTS.ratePerS);
    const env = (name) => process.env[name] || '';
    const userDir = (RED.settings && RED.settings.userDir) || process.cwd();
    const twinPassword = creds.twinPassword || env('S7T_OPCUA_TWIN_PASSWORD');
    const edgePassword = creds.edgePassword || env('S7T_OPCUA_EDGE_PASSWORD');
    let server;
    try {
      // No password falls back to a default: an account without one is refused, and so is the node.
      const missing = [!twinPassword && 'twin (S7T_OPCUA_TWIN_PASSWORD)', !edgePassword && 'edge (S7T_OPCUA_EDGE_PASSWORD)'].filter(Boolean);
      if (missing.length) {
        throw Object.assign(new Error(`no password for the ${missing.join(' and the ')} account: set it in the node's credentials or the environment; the server does not start`), { code: 'E_NO_CREDENTIAL' });
      }
      server = createOpcuaServer({
        host: (config.host || '').trim() || DEFAULTS.host,
        // The name twins and the edge dial (compose: the service name), in the certificate too.
        publicHost: (config.publicHost || '').trim() || undefined,
        ratePerS,
        burst: 2 * ratePerS,
        port: num('Port', config.port, DEFAULTS.port),
        plant: (config.plant || '').trim() || undefined,
        pkiDir: (config.pkiDir || '').trim() || path.join(userDir, 'opcua-pki', 'server'),
        minimumSamplingIntervalMs: num('Minimum sampling', config.minimumSamplingInterval, DEFAULTS.minimumSamplingIntervalMs),
        minimumPublishingIntervalMs: num('Minimum publishing', config.minimumPublishingInterval, DEFAULTS.minimumPublishingIntervalMs),
        probeSlots: num('Probe slots', config.probeSlots, DEFAULTS.probeSlots),
        allowInsecure: config.allowInsecure !== false && config.allowInsecure !== 'false',
        allowAnonymous: config.allowAnonymous === true || config.allowAnonymous === 'true',
        autoAcceptCertificates: config.autoAcceptCertificates !== false && config.autoAcceptCertificates !== 'false',
        users: {
          twin: { user: (config.twinUser || '').trim() || DEFAULTS.users.twin.user, password: twinPassword },
          edge: { user: (config.edgeUser || '').trim() || DEFAULTS.users.edge.user, password: edgePassword },
        },
        initialValues: images.get(node.id) || {},
      });
    } catch (err) {
      node.status({ fill: 'red', shape: 'dot', text: err.code === 'E_NO_CREDENTIAL' ? 'no password: not started' : err.code || 'config error' });
      node.error(`${err.code || 'E_CONFIG'}: ${err.message}`);
      node.on('close', (removed, done) => { node.status({}); done(); });
      return;
    }
    if (twinPassword === DEFAULTS.users.twin.password || edgePassword === DEFAULTS.users.edge.password) {
      node.warn('OPC UA server: a default password is in use (set the passwords in the node or S7T_OPCUA_TWIN_PASSWORD / S7T_OPCUA_EDGE_PASSWORD)');
    }

    registry.add(node, () => ({ ...server.counters, monitoredItems: server.monitoredItemCount() }));
    const setStatus = dedupStatus(node);
    let lastStatusAt = 0;
    let closing = false;
    const status = (fill, shape, text) => setStatus({ fill, shape, text });
    function showRunning() {
      if (closing || !server.running) return;
      lastStatusAt = Date.now();
      const c = server.counters;
      status('green', 'dot', `:${server.config.port} sessions ${c.sessions}${c.denied ? ` denied ${c.denied}` : ''}`);
    }
    // Status follows the session count without a status event per write.
    const poll = setInterval(() => {
      if (Date.now() - lastStatusAt >= STATUS_MIN_MS) showRunning();
    }, STATUS_MIN_MS);

    let lastLimitLog = 0;
    server.on('limited', (ev) => {
      // Counted always (rateLimited, errorBudget), logged at most once a second.
      if (Date.now() - lastLimitLog < 1000) return;
      lastLimitLog = Date.now();
      node.warn(`${ev.code}: OPC UA channel ${ev.channelId} closed: ${ev.message}`);
    });
    server.on('change', (ev) => {
      node.send({
        topic: ev.short,
        // Envelope-like, so the s7twin-flow-timer takes it as it is: a command written by a twin
        // starts timers, a state written by the edge stops them.
        payload: { k: ev.kind, src: ev.who, seq: ev.seq, ts: ev.ts, d: { [ev.short]: ev.value } },
        variable: ev.name,
        nodeId: ev.nodeId,
        value: ev.value,
        who: ev.who,
        role: ev.role,
      });
    });

    status('yellow', 'ring', 'starting');
    const started = server.start().then(() => {
      if (closing) return;
      node.log(`OPC UA server on ${server.endpointUrl} (plant ${server.config.plant}, min sampling ${server.config.minimumSamplingIntervalMs} ms, ${server.config.probeSlots} probe slots)`);
      showRunning();
    }, (err) => {
      status('red', 'dot', err.code || 'error');
      node.error(`${err.code || 'E_START'}: ${err.message}`);
    });

    // Input: set values from the flow (an inject, a test), as user 'local'.
    //   msg.payload {short: value, ...}, or msg.topic short + msg.payload value.
    node.on('input', (msg, send, done) => {
      try {
        const values = msg.payload && typeof msg.payload === 'object' && !Array.isArray(msg.payload)
          ? msg.payload : { [msg.topic]: msg.payload };
        for (const [k, v] of Object.entries(values)) server.set(k, v);
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
