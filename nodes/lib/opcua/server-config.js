'use strict';
/**
 * The cloud OPC UA server's configuration (server.js): defaults, the checks a configuration must
 * pass before anything listens, the counters it keeps, and node-opcua's OPCUAServer options made
 * from it. Pure; the node-opcua enums come in as arguments.
 *
 * The server listens on `host` only: node-opcua's `hostname` is merely the name it advertises, so
 * without `host` it would listen on every interface. The name it advertises and puts in its
 * certificate is `publicHost`: by default the bind address, or the machine's host name when it
 * binds every interface (in compose, the service name: the edge dials opc.tcp://cloud:4841).
 */
const os = require('node:os');
const path = require('node:path');
const { codedError } = require('../core/errors');
const { tableOf } = require('../core/io-table');
const peerLimits = require('../access/peer-limits');
const ot = require('./tags');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 4841,
  minimumSamplingIntervalMs: 10, // fastest sampling a subscriber may ask for, ms
  minimumPublishingIntervalMs: 10, // fastest publishing interval a subscription may ask for, ms
  maxSessions: 100,
  maxConnectionsPerEndpoint: 100,
  // Probe slots Req[i]/Res[i], i < probeSlots, for the benchmark's load table (one slot per virtual
  // twin; slots 1..users are used). 128 covers the load levels up to 80 users (and 127) at the cost
  // of 256 variables here and 2 x 128 monitored items on the edge; 1,024 (the PLC's) for 1,000 users.
  probeSlots: 128,
  allowInsecure: true, // offer SecurityPolicy None next to Basic256Sha256/SignAndEncrypt
  allowAnonymous: false, // anonymous sessions may read only
  autoAcceptCertificates: true, // trust unknown client certificates (else: move them to pki/trusted)
  users: {
    twin: { user: 'twin', password: 'twin' },
    edge: { user: 'edge', password: 'edge' },
  },
  ratePerS: peerLimits.DEFAULTS.ratePerS, // requests a second per secure channel (0 = off)
  burst: peerLimits.DEFAULTS.burst,
  errors: peerLimits.DEFAULTS.errors, // failed requests per errorWindowMs (0 = off)
  errorWindowMs: peerLimits.DEFAULTS.errorWindowMs,
  exemptRoles: ['edge'],
};

/** Options whose value is the one given, else the default. */
const GIVEN_OR_DEFAULT = [
  'ratePerS', 'burst', 'errors', 'errorWindowMs', 'port', 'minimumSamplingIntervalMs', 'minimumPublishingIntervalMs',
  'maxSessions', 'probeSlots', 'allowInsecure', 'allowAnonymous', 'autoAcceptCertificates',
];

/** Error with a stable `code`. */
const OpcuaServerError = codedError('OpcuaServerError');

/** An address that binds every interface. */
const wildcard = (h) => h === '0.0.0.0' || h === '::';

/**
 * The configuration with its defaults, checked.
 * @param {object} opts as createOpcuaServer takes them (server.js)
 * @returns {object} cfg
 * @throws {OpcuaServerError} E_CONFIG; OpcuaTagError E_PLANT (a bad plant id)
 */
function serverConfig(opts = {}) {
  const host = opts.host || DEFAULTS.host;
  const cfg = {
    // Given, else the default (null and undefined are not given; 0 and false are).
    ...Object.fromEntries(GIVEN_OR_DEFAULT.map((k) => [k, opts[k] ?? DEFAULTS[k]])),
    host,
    publicHost: opts.publicHost || (wildcard(host) ? os.hostname() : host),
    exemptRoles: opts.exemptRoles || DEFAULTS.exemptRoles,
    plant: ot.checkPlant(opts.plant),
    table: tableOf(opts.table),
    pkiDir: opts.pkiDir || path.join(os.homedir(), '.node-red', 'opcua-pki'),
    users: {
      twin: { ...DEFAULTS.users.twin, ...((opts.users && opts.users.twin) || {}) },
      edge: { ...DEFAULTS.users.edge, ...((opts.users && opts.users.edge) || {}) },
    },
  };
  if (!Number.isInteger(cfg.port) || cfg.port < 1 || cfg.port > 65535) {
    throw new OpcuaServerError('E_CONFIG', `port must be 1..65535, got ${cfg.port}`);
  }
  if (!(cfg.minimumSamplingIntervalMs >= 0)) {
    throw new OpcuaServerError('E_CONFIG', `minimumSamplingIntervalMs must be >= 0, got ${cfg.minimumSamplingIntervalMs}`);
  }
  const maxProbeSlots = cfg.table.PROBE_SLOTS; // the PLC has no more (1,024 for the demo plant)
  if (!Number.isInteger(cfg.probeSlots) || cfg.probeSlots < 0 || cfg.probeSlots > maxProbeSlots) {
    throw new OpcuaServerError('E_CONFIG', `probeSlots must be an integer 0..${maxProbeSlots}, got ${cfg.probeSlots}`);
  }
  if (cfg.users.twin.user === cfg.users.edge.user) {
    throw new OpcuaServerError('E_CONFIG', 'the twin and edge accounts need different user names');
  }
  return cfg;
}

/** The server's counters, all 0. */
function serverCounters() {
  return {
    writes: 0, // value changes accepted (any role)
    unchanged: 0, // writes that kept the value (no event)
    denied: 0, // writes refused for the role (BadUserAccessDenied)
    failed: 0, // writes refused otherwise (type mismatch, ...)
    badLogins: 0,
    probeWrites: 0, // probe values accepted (Req by twins, Res by the edge; not in writes)
    probeDenied: 0, // probe writes refused for the role (a twin writing Res, the edge writing Req)
    probeFailed: 0, // probe writes refused otherwise (BadTypeMismatch: not a UInt32)
    sessions: 0, // sessions currently open
    sessionsCreated: 0,
    starts: 0,
    rateLimited: 0, // channels closed for their request rate
    errorBudget: 0, // channels closed for too many failed requests
  };
}

/**
 * node-opcua's OPCUAServer options: where it listens and what it advertises, the security it
 * offers (Basic256Sha256 with SignAndEncrypt, and None first when allowInsecure), its limits.
 * @param {object} cfg serverConfig
 * @param {{SecurityPolicy: object, MessageSecurityMode: object}} opcua node-opcua's enums
 * @param {{serverCertificateManager: object, userManager: object}} parts
 * @returns {object}
 */
function serverOptions(cfg, { SecurityPolicy, MessageSecurityMode }, { serverCertificateManager, userManager }) {
  const securityPolicies = [SecurityPolicy.Basic256Sha256];
  const securityModes = [MessageSecurityMode.SignAndEncrypt];
  if (cfg.allowInsecure) { securityPolicies.unshift(SecurityPolicy.None); securityModes.unshift(MessageSecurityMode.None); }
  return {
    host: cfg.host, // where it listens
    hostname: cfg.publicHost, // what it advertises and names in its certificate
    port: cfg.port,
    alternateHostname: [...new Set([cfg.publicHost, cfg.host].filter((h) => !wildcard(h)))],
    serverCertificateManager,
    userManager,
    allowAnonymous: cfg.allowAnonymous,
    securityPolicies,
    securityModes,
    maxConnectionsPerEndpoint: cfg.maxSessions,
    serverCapabilities: { maxSessions: cfg.maxSessions, minSupportedSampleRate: cfg.minimumSamplingIntervalMs },
    buildInfo: { productName: 's7twin cloud OPC UA server', manufacturerName: 's7twin' },
    serverInfo: { applicationUri: ot.cloudNamespaceUri(cfg.plant), productUri: 's7twin-opcua-server' },
    isAuditing: false,
  };
}

/** The URL clients dial: the bind address, or the advertised name when it binds every interface. */
function endpointUrlOf(cfg) {
  return `opc.tcp://${wildcard(cfg.host) ? cfg.publicHost : cfg.host}:${cfg.port}`;
}

module.exports = { DEFAULTS, OpcuaServerError, wildcard, serverConfig, serverCounters, serverOptions, endpointUrlOf };
