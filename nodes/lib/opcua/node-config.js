'use strict';
/**
 * What the two OPC UA nodes make of their configuration, without RED: the options of the cloud
 * server (server.js) for `s7twin-opcua-server` and of the edge bridge (bridge.js) for
 * `s7twin-opcua-bridge`. Empty properties (also `${S7T_...}` references left empty) take the
 * defaults; a number that is no number is warned about by `num` (core/props.js numberReader).
 *
 * No password falls back to a default: an account without one is refused, and so is the node
 * (E_NO_CREDENTIAL), so a deployment never runs on a password everyone knows by accident.
 */
const path = require('node:path');
const { DEFAULTS: SERVER } = require('./server-config');
const { DEFAULTS: BRIDGE } = require('./bridge');
const ot = require('./tags');

const PLC_PORT = 4840; // the PLC's OPC UA port when the URL names none
const CLOUD_PORT = 4841; // the cloud server's

/** The node's refusal to run without a password. */
function noCredential(message) {
  return Object.assign(new Error(message), { code: 'E_NO_CREDENTIAL' });
}

/** Text property, trimmed; '' when missing. */
const text = (v) => (v || '').trim();

/**
 * The cloud server's options from an `s7twin-opcua-server` node.
 * @param {object} config the node's properties
 * @param {object} ctx
 * @param {{twinPassword?: string, edgePassword?: string}} ctx.credentials the node's
 * @param {Object<string, string|undefined>} ctx.env process.env: S7T_OPCUA_TWIN_PASSWORD, S7T_OPCUA_EDGE_PASSWORD
 * @param {string} ctx.userDir Node-RED's user folder (the PKI goes below it)
 * @param {(name: string, v: *, dflt: number) => number} ctx.num a node's number reader
 * @param {Object<string, number>} [ctx.initialValues] the image kept across a redeploy
 * @param {object} [ctx.table] the plant's I/O table (default: the demo plant's)
 * @returns {object} createOpcuaServer's options
 * @throws {Error} E_NO_CREDENTIAL when either account has no password
 */
function serverNodeOptions(config, { credentials = {}, env, userDir, num, initialValues, table }) {
  const ratePerS = num('Rate per s', config.ratePerS, SERVER.ratePerS);
  const twinPassword = credentials.twinPassword || env.S7T_OPCUA_TWIN_PASSWORD || '';
  const edgePassword = credentials.edgePassword || env.S7T_OPCUA_EDGE_PASSWORD || '';
  const missing = [!twinPassword && 'twin (S7T_OPCUA_TWIN_PASSWORD)', !edgePassword && 'edge (S7T_OPCUA_EDGE_PASSWORD)'].filter(Boolean);
  if (missing.length) {
    throw noCredential(`no password for the ${missing.join(' and the ')} account: ` +
      'set it in the node\'s credentials or the environment; the server does not start');
  }
  return {
    host: text(config.host) || SERVER.host,
    // The name twins and the edge dial (compose: the service name), in the certificate too.
    publicHost: text(config.publicHost) || undefined,
    ratePerS,
    burst: 2 * ratePerS,
    port: num('Port', config.port, SERVER.port),
    plant: text(config.plant) || undefined,
    table,
    pkiDir: text(config.pkiDir) || path.join(userDir, 'opcua-pki', 'server'),
    minimumSamplingIntervalMs: num('Minimum sampling', config.minimumSamplingInterval, SERVER.minimumSamplingIntervalMs),
    minimumPublishingIntervalMs: num('Minimum publishing', config.minimumPublishingInterval, SERVER.minimumPublishingIntervalMs),
    probeSlots: num('Probe slots', config.probeSlots, SERVER.probeSlots),
    allowInsecure: config.allowInsecure !== false && config.allowInsecure !== 'false',
    allowAnonymous: config.allowAnonymous === true || config.allowAnonymous === 'true',
    autoAcceptCertificates: config.autoAcceptCertificates !== false && config.autoAcceptCertificates !== 'false',
    users: {
      twin: { user: text(config.twinUser) || SERVER.users.twin.user, password: twinPassword },
      edge: { user: text(config.edgeUser) || SERVER.users.edge.user, password: edgePassword },
    },
    initialValues: initialValues || {},
  };
}

/**
 * Does a server run with a default password (one set on purpose: a warning, not a refusal)?
 * @param {{users: {twin: {password}, edge: {password}}}} options serverNodeOptions
 * @returns {boolean}
 */
function usesDefaultPassword(options) {
  return options.users.twin.password === SERVER.users.twin.password || options.users.edge.password === SERVER.users.edge.password;
}

/**
 * The bridge's options from an `s7twin-opcua-bridge` node.
 * @param {object} config the node's properties
 * @param {object} ctx
 * @param {{cloudPassword?: string}} ctx.credentials the node's
 * @param {Object<string, string|undefined>} ctx.env process.env: S7T_OPCUA_EDGE_PASSWORD
 * @param {string} ctx.userDir Node-RED's user folder (the PKI goes below it)
 * @param {(name: string, v: *, dflt: number) => number} ctx.num a node's number reader
 * @param {object} [ctx.table] the plant's I/O table (default: the demo plant's)
 * @returns {object} createOpcuaBridge's options
 * @throws {Error} E_NO_CREDENTIAL without the edge account's password; OpcuaTagError E_CONFIG
 *   for a URL that is no opc.tcp URL
 */
function bridgeNodeOptions(config, { credentials = {}, env, userDir, num, table }) {
  const cloudPassword = credentials.cloudPassword || env.S7T_OPCUA_EDGE_PASSWORD || '';
  if (!cloudPassword) {
    throw noCredential('no password for the cloud server\'s edge account: set Cloud password in the node or S7T_OPCUA_EDGE_PASSWORD; ' +
      'the bridge does not connect');
  }
  return {
    plcEndpoint: ot.endpointUrl(config.plcUrl, '127.0.0.1', PLC_PORT),
    cloudEndpoint: ot.endpointUrl(config.cloudUrl, '127.0.0.1', CLOUD_PORT),
    plant: text(config.plant) || undefined,
    table,
    cloudCredentials: { user: text(config.cloudUser) || 'edge', password: cloudPassword },
    cloudSecurityMode: config.securityMode || 'None',
    cloudSecurityPolicy: config.securityPolicy || 'None',
    publishingIntervalMs: num('Publishing', config.publishingInterval, BRIDGE.publishingIntervalMs),
    samplingIntervalMs: num('Sampling', config.samplingInterval, BRIDGE.samplingIntervalMs),
    probeSlots: num('Probe slots', config.probeSlots, BRIDGE.probeSlots),
    pkiDir: text(config.pkiDir) || path.join(userDir, 'opcua-pki', 'client'),
  };
}

module.exports = { serverNodeOptions, usesDefaultPassword, bridgeNodeOptions };
