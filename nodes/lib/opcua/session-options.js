'use strict';
/**
 * The options of one resilient OPC UA client session (session.js), checked before anything
 * connects: the endpoint, the security mode and policy (which only go together: None with None),
 * and the defaults of every interval. Pure, no node-opcua.
 */
const { codedError } = require('../core/errors');
const os = require('node:os');
const path = require('node:path');

const DEFAULTS = {
  publishingIntervalMs: 10, // subscription publishing interval, ms
  samplingIntervalMs: 10, // monitored item sampling interval, ms (0 = on every change, if the server allows)
  queueSize: 10, // notifications kept per item between two publishes (booleans can toggle quickly)
  keepAliveCount: 100, // publishing intervals without data before a keep-alive (100 x 10 ms = 1 s)
  lifetimeCount: 1000, // ... and before the server drops an unattended subscription (>= 3 x keepAlive)
  sessionTimeoutMs: 20000, // the server closes a session idle this long (after a lost connection)
  initialDelayMs: 200, // first reconnect delay; doubles up to maxDelayMs
  maxDelayMs: 5000,
  connectTimeoutMs: 10000, // one transport connection attempt
  pkiDir: path.join(os.tmpdir(), 's7twin-opcua-client-pki'),
};

const SECURITY_MODES = ['None', 'Sign', 'SignAndEncrypt'];
const SECURITY_POLICIES = ['None', 'Basic256Sha256', 'Aes128_Sha256_RsaOaep', 'Aes256_Sha256_RsaPss'];

/** Error with a stable `code`. */
const OpcuaSessionError = codedError('OpcuaSessionError');

/**
 * The options with their defaults, checked.
 * @param {object} opts as createSession takes them (session.js)
 * @returns {object} every option set; `name` is the label for logs and errors
 * @throws {OpcuaSessionError} E_CONFIG
 */
function sessionOptions(opts) {
  if (!opts || !/^opc\.tcp:\/\//.test(opts.endpointUrl || '')) {
    throw new OpcuaSessionError('E_CONFIG', `endpointUrl must be opc.tcp://host:port, got ${JSON.stringify(opts && opts.endpointUrl)}`);
  }
  // An option passed as undefined (not given on a command line) keeps its default.
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  o.name = o.name || o.endpointUrl;
  o.securityMode = o.securityMode || 'None';
  o.securityPolicy = o.securityPolicy || 'None';
  if (!SECURITY_MODES.includes(o.securityMode)) {
    throw new OpcuaSessionError('E_CONFIG', `securityMode must be one of ${SECURITY_MODES.join(', ')}, got ${JSON.stringify(o.securityMode)}`);
  }
  if (!SECURITY_POLICIES.includes(o.securityPolicy)) {
    throw new OpcuaSessionError('E_CONFIG', `securityPolicy must be one of ${SECURITY_POLICIES.join(', ')}, got ${JSON.stringify(o.securityPolicy)}`);
  }
  if ((o.securityMode === 'None') !== (o.securityPolicy === 'None')) {
    throw new OpcuaSessionError('E_CONFIG', `securityMode ${o.securityMode} does not go with securityPolicy ${o.securityPolicy}`);
  }
  return o;
}

/**
 * The subscription's parameters. node-opcua refuses (throws W09) a subscription whose keep-alive
 * period (count x publishing interval) exceeds the session timeout, so a slow publishing interval
 * gets a smaller count.
 * @param {object} o sessionOptions
 * @returns {object} node-opcua's createSubscription2 parameters
 */
function subscriptionParameters(o) {
  const keepAliveCount = Math.max(3, Math.min(o.keepAliveCount, Math.floor(o.sessionTimeoutMs / (2 * Math.max(1, o.publishingIntervalMs)))));
  return {
    requestedPublishingInterval: o.publishingIntervalMs,
    requestedMaxKeepAliveCount: keepAliveCount,
    requestedLifetimeCount: Math.max(o.lifetimeCount, 3 * keepAliveCount),
    maxNotificationsPerPublish: 0,
    publishingEnabled: true,
    priority: 10,
  };
}

module.exports = { DEFAULTS, SECURITY_MODES, SECURITY_POLICIES, OpcuaSessionError, sessionOptions, subscriptionParameters };
