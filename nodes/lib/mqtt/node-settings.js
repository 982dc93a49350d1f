'use strict';
/**
 * What the s7twin-mqtt-broker node hands lib/mqtt/server.js, read from its editor settings, its
 * credentials and the environment, and how it reports refusals: pure logic, no RED, so the node
 * only wires it.
 */
const { setting } = require('../core/props');
const { serverTls } = require('../access/tls');
const { DEFAULTS } = require('./server');
const { serverError } = require('./errors');

/**
 * A port setting: 'off' (or false, '-', 'none') disables the listener.
 * @param {*} v the node's property (a `${ENV}` reference is read)
 * @param {number} dflt when empty
 * @returns {number|null}
 * @throws {MqttServerError} E_MQTT_CONFIG for anything but a port or off
 */
function portSetting(v, dflt) {
  const s = setting(v, dflt);
  if (s === null || s === false || /^(off|false|-|none)$/i.test(String(s))) return null;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw serverError('E_MQTT_CONFIG', `invalid port "${s}"`);
  return n;
}

const on = (v) => v !== false && v !== 'false';

/**
 * The broker's options from the node's configuration.
 * @param {object} config the node's properties
 * @param {{users?: string}|undefined} credentials the node's credentials (the user list)
 * @param {object} env process.env: the user list variable, S7T_REDIS_URL, the host's TLS files
 * @returns {object} lib/mqtt/server.js options (without onEvent)
 * @throws {Error} E_MQTT_CONFIG (a bad port), or what the TLS files raise
 */
function brokerOptions(config, credentials, env) {
  const usersEnv = setting(config.usersEnv, 'S7T_MQTT_USERS');
  const ratePerS = Number(setting(config.ratePerS, DEFAULTS.ratePerS));
  return {
    host: setting(config.host, DEFAULTS.host),
    port: portSetting(config.port, DEFAULTS.port),
    wsPort: portSetting(config.wsPort, DEFAULTS.wsPort),
    wsPath: setting(config.wsPath, DEFAULTS.wsPath),
    maxPayloadBytes: Number(setting(config.maxPayloadBytes, DEFAULTS.maxPayloadBytes)),
    maxFrameBytes: Number(setting(config.maxFrameBytes, DEFAULTS.maxFrameBytes)),
    validatePayloads: on(config.validate),
    snapshot: on(config.snapshot),
    noDelay: on(config.noDelay),
    // A fleet: cluster with the other cloud instances' brokers over the same Redis, so a PLC and
    // its twins may be connected to different instances.
    redisUrl: env.S7T_REDIS_URL || null,
    // The host's certificate (S7T_TLS_KEY/S7T_TLS_CERT, as the editor's): mqtts and wss only.
    tls: serverTls(env),
    ratePerS,
    burst: 2 * ratePerS,
    users: (credentials && credentials.users) || env[usersEnv] || '',
  };
}

/**
 * Every refusal goes out of the node's output (a flow can alert on it), at most `perS` a second
 * (a client hammering a refused login must not flood the flow; the rest are counted); the log
 * gets at most one line every `logMs`, with how many were not logged.
 * @param {{perS: number, logMs: number, send(ev: object): void, warn(text: string): void, now?: () => number}} r
 * @returns {{report(ev: object): void, readonly dropped: number}}
 */
function createRefusalLog(r) {
  const now = r.now || Date.now;
  let windowStart = 0;
  let windowCount = 0;
  let dropped = 0;
  let lastLog = 0;
  let suppressed = 0;
  return {
    report(ev) {
      const t = now();
      if (t - windowStart >= 1000) { windowStart = t; windowCount = 0; }
      if (windowCount < r.perS) { windowCount += 1; r.send(ev); } else dropped += 1;
      if (t - lastLog >= r.logMs) {
        r.warn(`${ev.code}: ${ev.message}${ev.user ? ` (user ${ev.user})` : ''}${suppressed ? ` (+${suppressed} more not logged)` : ''}`);
        lastLog = t;
        suppressed = 0;
      } else {
        suppressed += 1;
      }
    },
    get dropped() { return dropped; },
  };
}

/** The status text: clients, messages, and refusals of every kind. */
function statusText(c) {
  const refused = c.authFailures + c.publishRefused + c.subscribeRefused + c.payloadRefused + c.oversized + c.takeoverRefused + c.rateLimited + c.errorBudget;
  return `${c.clients} client${c.clients === 1 ? '' : 's'}, ${c.messagesIn} msgs${refused ? `, ${refused} refused` : ''}`;
}

module.exports = { portSetting, brokerOptions, createRefusalLog, statusText };
