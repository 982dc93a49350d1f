'use strict';
/**
 * Node-RED settings for both roles of the bridge, edge and cloud. Everything that differs between
 * the two, or between a laptop and a deployment, comes from the environment:
 *
 *   S7T_ROLE             edge | cloud                                  (default cloud)
 *   PORT                 editor/HTTP port                              (cloud 1880, edge 1881)
 *   S7T_HOST             address the HTTP server binds to              (127.0.0.1)
 *   S7T_FLOW_FILE        flow file                  (<user dir>/flows.json, copied from flows/<role>.json)
 *   S7T_USER_DIR         Node-RED user directory                       (.node-red-<role>)
 *   S7T_CREDENTIAL_SECRET key for the flow credentials file            (a fixed dev key, warned about)
 *   S7T_ADMIN_USER       editor user name                              (admin)
 *   S7T_ADMIN_HASH       bcrypt hash of the editor password; set it to turn adminAuth on
 *                        (make one with: npx node-red admin hash-pw)
 *   S7T_TLS_KEY/S7T_TLS_CERT  PEM files: serve the editor and every WebSocket over TLS (wss://)
 *
 * The flows themselves read their hosts, ports and tokens from ${ENV} (see README).
 */
const fs = require('node:fs');
const path = require('node:path');
const { instanceFlows } = require('./flows/instance');

const role = process.env.S7T_ROLE === 'edge' ? 'edge' : 'cloud';
const env = (name, dflt) => (process.env[name] === undefined || process.env[name] === '' ? dflt : process.env[name]);

const adminHash = env('S7T_ADMIN_HASH');
const tlsKey = env('S7T_TLS_KEY');
const tlsCert = env('S7T_TLS_CERT');

const userDir = path.resolve(__dirname, env('S7T_USER_DIR', `.node-red-${role}`));
// The instance runs its own copy of the shipped flow, so a deploy never rewrites the checkout
// (flows/instance.js: seeding, updates, and how an edit goes back into flows/parts/).
const flowFile = env('S7T_FLOW_FILE')
  ? path.resolve(__dirname, env('S7T_FLOW_FILE'))
  : instanceFlows({ shipped: path.join(__dirname, 'flows', `${role}.json`), userDir }).file;

const settings = {
  uiPort: Number(env('PORT', role === 'edge' ? 1881 : 1880)),
  uiHost: env('S7T_HOST', '127.0.0.1'),
  flowFile,
  userDir,
  // The bundle itself (this folder's package.json) is loaded as a node module, so the flows find
  // our nodes and the flow-timer subflow without an `npm install` into the user directory.
  nodesDir: [__dirname],
  credentialSecret: env('S7T_CREDENTIAL_SECRET', 's7twin-development-only-secret'),
  flowFilePretty: true,
  // Every frame of the bridge stays far below this; larger ones are refused by our own nodes too.
  apiMaxLength: '1mb',
  // The cloud's own MQTT monitor (MQTT tab) reconnects 1 s after a broker restart, not 5 s.
  mqttReconnectTime: 1000,
  diagnostics: { enabled: true, ui: true },
  runtimeState: { enabled: false, ui: false },
  logging: { console: { level: env('S7T_LOG_LEVEL', 'info'), metrics: false, audit: false } },
  editorTheme: {
    projects: { enabled: false },
    palette: { catalogues: [] }, // no catalogue fetch: plants are often offline
    tours: false,
    page: { title: `Node-RED ${role} · S7 twin bridge` },
  },
  functionGlobalContext: {},
  exportGlobalContextKeys: false,
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
  s7twin: { role },
};

if (adminHash) {
  settings.adminAuth = {
    type: 'credentials',
    users: [{ username: env('S7T_ADMIN_USER', 'admin'), password: adminHash, permissions: '*' }],
  };
}

if (tlsKey && tlsCert) {
  settings.https = { key: fs.readFileSync(tlsKey), cert: fs.readFileSync(tlsCert) };
  settings.requireHttps = true;
}

module.exports = settings;
