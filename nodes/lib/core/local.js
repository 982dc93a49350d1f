'use strict';
/**
 * Where the one-machine system (`bash scripts/start.sh`) listens, and with which development
 * credentials: the one place scripts/start-all.js and the headless twin's defaults come from, so
 * `npm run twin -- --protocol mqtt` finds what `npm start` started without any flags.
 * Every S7T_* variable set in the environment wins.
 */
const paths = require('./paths');

/** Local defaults (strings, as environment variables are). */
const DEFAULTS = {
  S7T_PLANT: 'plant1',
  S7T_CLOUD_PORT: '1880',
  S7T_EDGE_PORT: '1881',
  S7T_CLOUD_HOST: '127.0.0.1',
  S7T_PLC_HOST: '127.0.0.1',
  S7T_PLC_PORT: '10102', // S7comm (a real PLC listens on 102)
  S7T_PLC_OPCUA_PORT: '4840',
  S7T_PLC_MODBUS_PORT: '5020',
  S7T_MQTT_PORT: '1883',
  S7T_MQTT_WS_PORT: '9001',
  S7T_OPCUA_PORT: '4841', // the cloud's OPC UA server
  S7T_MODBUS_PORT: '5021', // the cloud's Modbus server
  S7T_SCAN_MS: '10',
  // Development tokens and passwords: set your own for anything but a laptop.
  S7T_TWIN_TOKEN: 'dev-twin-token',
  S7T_VIEWER_TOKEN: 'dev-viewer-token', // watch-only: the browser twin's viewers, read-only twins
  S7T_EDGE_TOKEN: 'dev-edge-token',
  S7T_MQTT_USERS: 'twin:dev-twin-pw:twin,plc:dev-plc-pw:plc,monitor:dev-monitor-pw:monitor',
  S7T_MQTT_PLC_USER: 'plc',
  S7T_MQTT_PLC_PASSWORD: 'dev-plc-pw',
  S7T_MQTT_MONITOR_USER: 'monitor',
  S7T_MQTT_MONITOR_PASSWORD: 'dev-monitor-pw',
  S7T_OPCUA_TWIN_USER: 'twin',
  S7T_OPCUA_TWIN_PASSWORD: 'dev-twin-pw',
  S7T_OPCUA_EDGE_USER: 'edge',
  S7T_OPCUA_EDGE_PASSWORD: 'dev-edge-pw',
  // Key of the Node-RED credentials files (settings.js credentialSecret).
  S7T_CREDENTIAL_SECRET: 's7twin-development-only-secret',
};

/**
 * Which of DEFAULTS are development secrets, and which part of the system needs each: the one
 * list nodes/lib/access/security.js checks (an instance reachable beyond loopback refuses to start while
 * one of its secrets is unset or has its development value) and scripts/gen-env.js fills with
 * random values. The virtual PLC reads its MQTT password as S7T_PLC_MQTT_PASSWORD.
 */
const SECRETS = {
  S7T_CREDENTIAL_SECRET: ['cloud', 'edge'],
  S7T_TWIN_TOKEN: ['cloud'],
  S7T_EDGE_TOKEN: ['cloud', 'edge'],
  S7T_MQTT_USERS: ['cloud'],
  S7T_MQTT_MONITOR_PASSWORD: ['cloud'],
  S7T_MQTT_PLC_PASSWORD: ['plc'],
  S7T_OPCUA_TWIN_PASSWORD: ['cloud'],
  S7T_OPCUA_EDGE_PASSWORD: ['cloud', 'edge'],
};

/**
 * The defaults overlaid with every non-empty variable of `env`.
 * @param {object} [env] default process.env
 * @returns {object}
 */
function localEnv(env = process.env) {
  const out = { ...DEFAULTS };
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/**
 * The logins of a twin on the local system (nodes/lib/core/paths.js LOGINS), from its settings:
 * the first twin token, the MQTT user with role twin, the OPC UA twin account.
 * @param {object} e localEnv()
 */
function twinLogins(e) {
  const twin = e.S7T_MQTT_USERS.split(',').map((u) => u.trim().split(':')).find((u) => u[2] === 'twin') || [];
  return {
    token: { token: e.S7T_TWIN_TOKEN.split(',')[0].trim() },
    mqtt: { username: twin[0], password: twin[1] },
    opcua: { user: e.S7T_OPCUA_TWIN_USER, password: e.S7T_OPCUA_TWIN_PASSWORD },
  };
}

/**
 * Transport options that reach the local system over `protocol` (a bundle path of
 * nodes/lib/core/paths.js): its URL on the ports the environment sets, its login, its plant.
 * @param {string} protocol ws | mqtt | mqttws | http | opcua | modbus
 * @param {object} [env]
 * @returns {object} options for the path's twin transport ({} for a path the local system lacks)
 */
function transportDefaults(protocol, env = process.env) {
  const path = paths.get(protocol);
  if (!path || path.kind !== 'bundle') return {};
  const e = localEnv(env);
  const ports = Object.fromEntries(Object.entries(paths.SERVICES).map(([name, svc]) => [name, e[svc.env]]));
  return paths.twinOptions(protocol, { host: e.S7T_CLOUD_HOST, ports, logins: twinLogins(e), plant: e.S7T_PLANT });
}

module.exports = { DEFAULTS, SECRETS, localEnv, transportDefaults };
