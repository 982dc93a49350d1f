'use strict';
/**
 * s7twin-ui: serves the browser twin, the box-sorting plant in 3D driven by the PLC, from the
 * cloud's own HTTP server (default /s7twin/ui/); a plant with another I/O table gets the page
 * generated from its table on the same path (its tags, values, controls, trends). The page runs the project's plant model
 * (twin/plant.js, the same file as the headless twin) and talks to the PLC over the twin endpoint
 * of the s7twin-link-server it names (WebSocket–S7), MQTT over WebSocket to the cloud broker, or
 * the s7twin-rest endpoint (HTTP polling). The logic is lib/web/ui.js; this node mounts it on
 * RED.httpNode, reads the twin endpoint's tokens and holds the driver lease (one page drives the
 * plant physics, every other page mirrors the PLC).
 */
const path = require('node:path');
const { createTwinUi } = require('./lib/web/ui');
const { createLease } = require('./lib/web/driver-lease');
const { plantTokens } = require('./lib/access/auth');
const { DEFAULT_PLANT } = require('./lib/core/plants');
const { mount, cleanPath } = require('./lib/web/http');
const { statusSetter } = require('./lib/runtime/status');
const registry = require('./lib/runtime/registry');
const { setting } = require('./lib/core/props');
const { plantTables } = require('./lib/core/io-table');

const ROOT = path.join(__dirname, '..');
const THREE = path.join(path.dirname(require.resolve('three')), '..');
const MQTT = path.dirname(require.resolve('mqtt/package.json'));
const MSGPACK = path.dirname(require.resolve('@msgpack/msgpack/package.json'));

/** Library files the page loads, from the installed npm packages. */
const VENDOR = {
  'three.module.js': path.join(THREE, 'build', 'three.module.js'),
  'three.core.js': path.join(THREE, 'build', 'three.core.js'),
  'OrbitControls.js': path.join(THREE, 'examples', 'jsm', 'controls', 'OrbitControls.js'),
  'mqtt.min.js': path.join(MQTT, 'dist', 'mqtt.min.js'),
  'msgpack.min.js': path.join(MSGPACK, 'dist.umd', 'msgpack.min.js'),
};

/** The CommonJS modules the page requires (and, through them, everything they require). */
const MODULES = {
  root: ROOT,
  entries: [
    'twin/browser/session.js', 'twin/browser/tag-session.js', 'twin/browser/chart.js', 'twin/browser/link-ws.js', 'twin/transports/mqtt.js',
    'twin/transports/http.js', 'twin/plant.js', 'twin/recorder.js', 'nodes/lib/core/io-table.js',
    'twin/browser/replay.js', 'twin/browser/replay-load.js', 'twin/browser/timeline.js',
  ],
  // Loaded by those modules, never called in the page: the recorder's CSV appender (node:fs),
  // the Node-only branches of the MQTT and HTTP transports.
  stubs: ['node:fs', 'node:path', 'node:http', 'node:https', 'ws'],
  // mqtt.js' and @msgpack/msgpack's browser builds (the compact encoding), script tags of the page
  globals: { mqtt: 'mqtt', '@msgpack/msgpack': 'MessagePack' },
};


module.exports = function register(RED) {
  function UiNode(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const setStatus = statusSetter(node);
    const twins = RED.nodes.getNode(config.server);
    if (!twins || twins.role !== 'twin') {
      setStatus('error', 'no twin endpoint');
      node.error('s7twin-ui needs the twin endpoint (an s7twin-link-server of role twin): the page connects there and takes its tokens');
      return;
    }
    const root = (RED.settings.httpNodeRoot || '/').replace(/\/$/, '');
    node.path = cleanPath(config.path, '/s7twin/ui');
    // One plant per page, as tokens are scoped to plants: the node's, else S7T_PLANT, else
    // plant1; the page asks the twin endpoint for it (?plant=) and takes the tokens valid for it.
    node.plant = setting(config.plant, process.env.S7T_PLANT || DEFAULT_PLANT);
    const { tokens, viewerTokens } = plantTokens(twins.grants, node.plant, twins.credentials);
    if (!tokens.length) {
      node.warn(`the twin endpoint has no token for plant ${node.plant} (credentials, S7T_TWIN_TOKEN or S7T_TOKENS): no page can drive the plant`);
    }
    const mqttWs = setting(config.mqttWs, '');
    // The plant history (GET /s7twin/history, on the admin API) for the page's replay; none where
    // the admin API is switched off (httpAdminRoot: false).
    const adminRoot = RED.settings.httpAdminRoot;
    const pageConfig = {
      title: setting(config.name, ''), // else the page's: the demo plant's, or the table's name
      profile: setting(config.profile, 'study'),
      protocols: {
        ws: { path: twins.path, plant: node.plant },
        mqtt: mqttWs ? { ...(/^wss?:\/\//.test(mqttWs) ? { url: mqttWs } : { port: Number(mqttWs), path: '/mqtt' }), plant: node.plant } : null,
        http: { path: root + cleanPath(config.restPath, '/s7twin/rest') },
      },
      history: adminRoot === false ? null : { path: `${String(adminRoot || '/').replace(/\/$/, '')}/s7twin/history`, plant: node.plant },
    };
    const lease = createLease({ ttlMs: Number(config.leaseS) > 0 ? Number(config.leaseS) * 1000 : undefined });
    const ui = createTwinUi({
      pageDir: path.join(ROOT, 'twin', 'browser'), vendor: VENDOR, modules: MODULES, config: () => pageConfig, tokens, viewerTokens, lease,
      // The plant's table as the registry has it now (an I/O table node naming the plant, S7T_IO_TABLE, or what its edge taught).
      table: () => plantTables.get(node.plant),
    });
    const unmount = mount(RED.httpNode, node.path, (req, res) => ui.handle(req, res));
    registry.add(node, () => ({ ...ui.counters, ...lease.counters }));
    node.log(`browser twin on ${root}${node.path}/`);
    setStatus('connected', `${root}${node.path}/`);

    node.on('close', (removed, done) => {
      unmount();
      registry.remove(node);
      setStatus('clear');
      done();
    });
  }
  RED.nodes.registerType('s7twin-ui', UiNode);
};
