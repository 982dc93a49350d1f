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
 *   S7T_CREDENTIAL_SECRET key for the flow credentials file            (a fixed dev key on loopback)
 *   S7T_ADMIN_USER       editor user name                              (admin)
 *   S7T_ADMIN_HASH       bcrypt hash of the editor password; set it to turn adminAuth on
 *                        (node scripts/gen-env.js makes one, with every other secret, in .env)
 *   S7T_METRICS_TOKEN    bearer token that may read /s7twin/metrics and /s7twin/stats only
 *   S7T_AUDITOR_TOKEN    bearer tokens that may read the command log (/s7twin/audit) only
 *   S7T_AUDIT_FILE       the cloud's command log           (<user dir>/s7twin-audit.jsonl)
 *   S7T_HISTORY_FILE     the cloud's plant history, SQLite (<user dir>/s7twin-history.sqlite)
 *   S7T_HISTORY_RETENTION_H  hours the plant history keeps  (168)
 *   S7T_TLS_KEY/S7T_TLS_CERT  PEM files: serve the editor and every WebSocket over TLS (wss://)
 *
 * Bound to anything but loopback, an instance refuses to start without an editor login or with a
 * development secret (nodes/lib/access/security.js says what to set).
 *
 * The flows themselves read their hosts, ports and tokens from ${ENV} (see README).
 */
const path = require('node:path');
const { instanceFlows } = require('./flows/instance');

const role = process.env.S7T_ROLE === 'edge' ? 'edge' : 'cloud';
const env = (name, dflt) => (process.env[name] === undefined || process.env[name] === '' ? dflt : process.env[name]);

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

// ---- Security: secure by default beyond loopback -------------------------------------------
// Refuses to start beyond loopback without an editor login or with development secrets, then sets
// credentialSecret, adminAuth (S7T_ADMIN_HASH, S7T_METRICS_TOKEN) and https (S7T_TLS_KEY/CERT).
require('./nodes/lib/access/security').secureSettings(settings, role, process.env);
// ---------------------------------------------------------------------------------------------

module.exports = settings;
