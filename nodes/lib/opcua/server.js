'use strict';
/**
 * The cloud OPC UA server of the OPC UA path, on node-opcua: the plant's variables from the tag
 * dictionary, writable per role (twin: commands, edge: states), a tunable minimum sampling
 * interval, and a 'change' event for every value change with who made it, so a flow can time
 * round trips without an extra client. Never touches RED; the `s7twin-opcua-server` node wraps it.
 *
 * Why not node-red-contrib-opcua's server node: it hard-codes minimumSamplingInterval 500 ms for
 * its variables (opcua/104-opcuaserver.js), so no subscriber can sample faster than that.
 *
 *   const srv = createOpcuaServer({ port: 4841, pkiDir, users: {twin: {...}, edge: {...}} });
 *   srv.on('change', (ev) => ...); // {short, name, nodeId, value, who, role, kind, seq, ts}
 *   srv.on('probe', (ev) => ...);  // {kind: req|res, slot, value, who, ts}: a probe variable written
 *   await srv.start(); ... await srv.stop();
 *
 * It listens on `host` only (node-opcua's `hostname` is merely the name it advertises: without
 * `host` it listened on every interface, issue 18). The name it advertises and puts in its
 * certificate is `publicHost`: by default the bind address, or the machine's host name when it
 * binds every interface (in compose, the service name: the edge dials opc.tcp://cloud:4841).
 *
 * Per-channel limits (nodes/lib/access/peer-limits.js): a request rate and a budget of failed requests
 * per secure channel (a twin's connection); past either the request is answered with a
 * ServiceFault BadTcpServerTooBusy whose string table says why (E_RATE_LIMIT, E_ERROR_BUDGET),
 * then the channel is closed and counted (rateLimited, errorBudget). The edge account is exempt:
 * it relays every probe of every twin.
 */
const { codedError } = require('../core/errors');
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const ot = require('./tags');
const tags = require('../core/tags');
const peerLimits = require('../access/peer-limits');

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
  maxProbeSlots: tags.PROBE_SLOTS, // the PLC has no more (io-table plc.probeSlots)
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
const CLOSE_AFTER_MS = 200; // a limited channel gets this long to read its ServiceFault
const wildcard = (h) => h === '0.0.0.0' || h === '::';

/** Error with a stable `code`. */
const OpcuaServerError = codedError('OpcuaServerError');

/**
 * node-opcua clamps every sampling interval to MonitoredItem.minimumSamplingInterval (50 ms) and
 * every publishing interval to Subscription.minimumPublishingInterval (50 ms): class-wide floors,
 * below which no per-variable minimumSamplingInterval helps. Lower them (never raise them: other
 * servers in the process, such as the virtual PLC's, may need them low too).
 */
function lowerFloors(samplingMs, publishingMs) {
  // node-opcua re-exports node-opcua-server's classes: the package depends on node-opcua only.
  const { MonitoredItem, Subscription } = require('node-opcua');
  if (samplingMs > 0 && samplingMs < MonitoredItem.minimumSamplingInterval) MonitoredItem.minimumSamplingInterval = samplingMs;
  if (publishingMs > 0 && publishingMs < Subscription.minimumPublishingInterval) Subscription.minimumPublishingInterval = publishingMs;
}

/**
 * Create (not start) the cloud OPC UA server.
 * @param {object} [opts]
 * @param {string} [opts.host] bind address (default 127.0.0.1)
 * @param {number} [opts.port] TCP port (default 4841; 0 is not supported by node-opcua: pick one)
 * @param {string} [opts.plant] plant id, part of every node id (default plant1)
 * @param {string} [opts.pkiDir] PKI folder, created on start (default ~/.node-red/opcua-pki)
 * @param {number} [opts.minimumSamplingIntervalMs] default 10
 * @param {boolean} [opts.allowInsecure] offer SecurityPolicy None (default true, for benchmarks)
 * @param {boolean} [opts.allowAnonymous] allow anonymous read-only sessions (default false)
 * @param {boolean} [opts.autoAcceptCertificates] default true
 * @param {{twin:{user,password}, edge:{user,password}}} [opts.users] one account per role
 * @param {number} [opts.probeSlots] probe variables Req[i]/Res[i] for i < probeSlots (default 128, 0 = none)
 * @param {Object<string, number>} [opts.initialValues] starting image by short name (a node
 *   restores the image it saved before a redeploy)
 * @returns {EventEmitter & {start, stop, values, counters, endpointUrl, sessions, nodeIdOf}}
 */
function createOpcuaServer(opts = {}) {
  const host = opts.host || DEFAULTS.host;
  const cfg = {
    host,
    publicHost: opts.publicHost || (wildcard(host) ? os.hostname() : host),
    ratePerS: opts.ratePerS ?? DEFAULTS.ratePerS,
    burst: opts.burst ?? DEFAULTS.burst,
    errors: opts.errors ?? DEFAULTS.errors,
    errorWindowMs: opts.errorWindowMs ?? DEFAULTS.errorWindowMs,
    exemptRoles: opts.exemptRoles || DEFAULTS.exemptRoles,
    port: opts.port ?? DEFAULTS.port,
    plant: ot.checkPlant(opts.plant),
    pkiDir: opts.pkiDir || path.join(os.homedir(), '.node-red', 'opcua-pki'),
    minimumSamplingIntervalMs: opts.minimumSamplingIntervalMs ?? DEFAULTS.minimumSamplingIntervalMs,
    minimumPublishingIntervalMs: opts.minimumPublishingIntervalMs ?? DEFAULTS.minimumPublishingIntervalMs,
    maxSessions: opts.maxSessions ?? DEFAULTS.maxSessions,
    probeSlots: opts.probeSlots ?? DEFAULTS.probeSlots,
    allowInsecure: opts.allowInsecure ?? DEFAULTS.allowInsecure,
    allowAnonymous: opts.allowAnonymous ?? DEFAULTS.allowAnonymous,
    autoAcceptCertificates: opts.autoAcceptCertificates ?? DEFAULTS.autoAcceptCertificates,
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
  if (!Number.isInteger(cfg.probeSlots) || cfg.probeSlots < 0 || cfg.probeSlots > DEFAULTS.maxProbeSlots) {
    throw new OpcuaServerError('E_CONFIG', `probeSlots must be an integer 0..${DEFAULTS.maxProbeSlots}, got ${cfg.probeSlots}`);
  }
  if (cfg.users.twin.user === cfg.users.edge.user) {
    throw new OpcuaServerError('E_CONFIG', 'the twin and edge accounts need different user names');
  }

  const ee = new EventEmitter();
  const counters = {
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
  const values = {}; // short -> dictionary value, as of the last change (kept across restarts)
  for (const [k, v] of Object.entries(opts.initialValues || {})) {
    const tag = ot.cloudTags().find((t) => t.short === k);
    if (tag) values[k] = tags.normalise(tag, v);
  }
  const variables = new Map(); // short -> UAVariable
  const byNodeId = new Map(); // nodeId string -> tag
  const probeValues = { req: new Array(cfg.probeSlots).fill(0), res: new Array(cfg.probeSlots).fill(0) };
  let server = null;
  let seq = 0;
  let opcua = null; // node-opcua, loaded lazily: it is large and slow to require

  /** Role of a user name ('twin' | 'edge' | null). */
  function roleOf(user) {
    if (user === cfg.users.twin.user) return 'twin';
    if (user === cfg.users.edge.user) return 'edge';
    return null;
  }

  function userManager() {
    const { WellKnownRoles } = opcua;
    return {
      isValidUser(user, password) {
        const role = roleOf(user);
        const ok = !!role && password === cfg.users[role].password;
        if (!ok) counters.badLogins += 1;
        return ok;
      },
      // Twin = Operator (writes commands), edge = Engineer (writes states); both may read all.
      getUserRoles(user) {
        const role = roleOf(user);
        const roles = [WellKnownRoles.AuthenticatedUser];
        if (role === 'twin') roles.push(WellKnownRoles.Operator);
        if (role === 'edge') roles.push(WellKnownRoles.Engineer);
        return opcua.makeRoles(roles);
      },
    };
  }

  /** Who wrote, from the session of a write: the user name, or 'anonymous'. */
  function whoOf(context) {
    const token = context && context.session && context.session.userIdentityToken;
    return (token && token.userName) || 'anonymous';
  }

  /**
   * Build the address space: Objects/<plant>/{Commands,States}/<Name>.
   * Writes go through a wrapped writeValue so the writer's identity travels with the event;
   * the standard role permissions decide who may write (the client sees BadUserAccessDenied).
   */
  function buildAddressSpace() {
    const { DataType, Variant, PermissionType, WellKnownRoles, StatusCodes, AttributeIds } = opcua;
    const addressSpace = server.engine.addressSpace;
    const ns = addressSpace.getOwnNamespace();
    const plantFolder = ns.addObject({ organizedBy: addressSpace.rootFolder.objects, browseName: cfg.plant, nodeId: `s=${cfg.plant}` });
    const folders = {
      in: ns.addObject({ organizedBy: plantFolder, browseName: 'Commands', nodeId: `s=${cfg.plant}.Commands` }),
      out: ns.addObject({ organizedBy: plantFolder, browseName: 'States', nodeId: `s=${cfg.plant}.States` }),
    };
    const read = PermissionType.Browse | PermissionType.Read | PermissionType.ReadRolePermissions;
    const write = read | PermissionType.Write;
    for (const tag of ot.cloudTags()) {
      const nodeId = ot.cloudNodeId(tag, { plant: cfg.plant, ns: ns.index });
      const dataType = DataType[ot.dataTypeOf(tag)];
      const v = ns.addVariable({
        componentOf: folders[tag.dir],
        browseName: tag.name,
        description: tag.desc,
        nodeId: `s=${cfg.plant}.${tag.name}`,
        dataType,
        accessLevel: 'CurrentRead | CurrentWrite',
        userAccessLevel: 'CurrentRead | CurrentWrite',
        minimumSamplingInterval: cfg.minimumSamplingIntervalMs,
        // A restarted server keeps its image: clients that come back find the plant as it was.
        value: new Variant({ dataType, value: ot.toVariant(tag, values[tag.short] ?? 0).value }),
      });
      const writer = ot.writerRole(tag) === 'twin' ? WellKnownRoles.Operator : WellKnownRoles.Engineer;
      v.setRolePermissions([
        { roleId: WellKnownRoles.Anonymous, permissions: cfg.allowAnonymous ? read : 0 },
        { roleId: WellKnownRoles.AuthenticatedUser, permissions: read },
        { roleId: writer, permissions: write },
      ]);
      values[tag.short] = values[tag.short] ?? 0;
      // writeAttribute is where the service's permission check happens, so both outcomes
      // (accepted with the writer's identity, or denied) are seen here.
      const original = v.writeAttribute.bind(v);
      v.writeAttribute = (context, writeValue, cb) => {
        const before = values[tag.short];
        const finish = (status) => {
          if (writeValue.attributeId !== AttributeIds.Value || !status) return;
          if (status.isGood()) noteWrite(tag, nodeId, before, v, whoOf(context));
          else if (status === StatusCodes.BadUserAccessDenied) counters.denied += 1;
          else counters.failed += 1;
        };
        if (typeof cb === 'function') return original(context, writeValue, (err, status) => { finish(status); cb(err, status); });
        return original(context, writeValue).then((status) => { finish(status); return status; });
      };
      variables.set(tag.short, v);
      byNodeId.set(nodeId, tag);
    }
    buildProbes(ns, plantFolder, read, write);
  }

  /**
   * Probe variables, node ids as on the PLC: `ns=<ns>;s="Probe"."Req"[i]` (the twin writes, the
   * edge relays to the PLC) and `."Res"[i]` (the edge writes what the PLC answered, twins read).
   * UInt32 only: node-opcua refuses any other Variant type with BadTypeMismatch.
   * MinimumSamplingInterval 0: a monitored item on them is exception-based (no sampling timer per
   * item, a change is queued as it happens), so 2 x probeSlots items cost nothing while idle.
   * Probe writes are counted apart (probeWrites, ...) and raise a 'probe' event, not 'change'.
   */
  function buildProbes(ns, plantFolder, read, write) {
    if (!cfg.probeSlots) return;
    const { DataType, WellKnownRoles, StatusCodes, AttributeIds } = opcua;
    const probe = ns.addObject({ organizedBy: plantFolder, browseName: 'Probe', nodeId: 's="Probe"' });
    const folders = {
      req: ns.addObject({ componentOf: probe, browseName: 'Req', nodeId: 's="Probe"."Req"' }),
      res: ns.addObject({ componentOf: probe, browseName: 'Res', nodeId: 's="Probe"."Res"' }),
    };
    for (const kind of ['req', 'res']) {
      const writer = kind === 'req' ? WellKnownRoles.Operator : WellKnownRoles.Engineer;
      for (let i = 0; i < cfg.probeSlots; i++) {
        const nodeId = ot.probeNodeId(kind, i, { ns: ns.index });
        const v = ns.addVariable({
          componentOf: folders[kind],
          browseName: `${kind === 'req' ? 'Req' : 'Res'}[${i}]`,
          nodeId: nodeId.replace(/^ns=\d+;/, ''),
          dataType: DataType.UInt32,
          accessLevel: 'CurrentRead | CurrentWrite',
          userAccessLevel: 'CurrentRead | CurrentWrite',
          minimumSamplingInterval: 0,
          value: { dataType: DataType.UInt32, value: probeValues[kind][i] },
        });
        v.setRolePermissions([
          { roleId: WellKnownRoles.Anonymous, permissions: cfg.allowAnonymous ? read : 0 },
          { roleId: WellKnownRoles.AuthenticatedUser, permissions: read },
          { roleId: writer, permissions: write },
        ]);
        const original = v.writeAttribute.bind(v);
        v.writeAttribute = (context, writeValue, cb) => {
          const finish = (status) => {
            if (writeValue.attributeId !== AttributeIds.Value || !status) return;
            if (status.isGood()) {
              const value = Number(v.readValue().value.value);
              probeValues[kind][i] = value;
              counters.probeWrites += 1;
              if (ee.listenerCount('probe')) ee.emit('probe', { kind, slot: i, value, who: whoOf(context), ts: Date.now() });
            } else if (status === StatusCodes.BadUserAccessDenied) counters.probeDenied += 1;
            else counters.probeFailed += 1;
          };
          if (typeof cb === 'function') return original(context, writeValue, (err, status) => { finish(status); cb(err, status); });
          return original(context, writeValue).then((status) => { finish(status); return status; });
        };
      }
    }
  }

  function noteWrite(tag, nodeId, before, variable, who) {
    const value = ot.fromVariant(tag, variable.readValue().value.value);
    if (value === before) { counters.unchanged += 1; return; }
    values[tag.short] = value;
    counters.writes += 1;
    seq += 1;
    ee.emit('change', {
      short: tag.short, name: tag.name, nodeId, value, who, role: roleOf(who) || who,
      kind: tag.dir === 'in' ? 'cmd' : 'state', seq, ts: Date.now(),
    });
  }

  async function start() {
    if (server) throw new OpcuaServerError('E_STATE', 'server already started');
    opcua = opcua || require('node-opcua');
    const { OPCUAServer, OPCUACertificateManager, SecurityPolicy, MessageSecurityMode } = opcua;
    lowerFloors(cfg.minimumSamplingIntervalMs, cfg.minimumPublishingIntervalMs);
    fs.mkdirSync(cfg.pkiDir, { recursive: true });
    const serverCertificateManager = new OPCUACertificateManager({
      rootFolder: cfg.pkiDir,
      automaticallyAcceptUnknownCertificate: cfg.autoAcceptCertificates,
    });
    await serverCertificateManager.initialize();
    const securityPolicies = [SecurityPolicy.Basic256Sha256];
    const securityModes = [MessageSecurityMode.SignAndEncrypt];
    if (cfg.allowInsecure) { securityPolicies.unshift(SecurityPolicy.None); securityModes.unshift(MessageSecurityMode.None); }
    server = new OPCUAServer({
      host: cfg.host, // where it listens
      hostname: cfg.publicHost, // what it advertises and names in its certificate
      port: cfg.port,
      alternateHostname: [...new Set([cfg.publicHost, cfg.host].filter((h) => !wildcard(h)))],
      serverCertificateManager,
      userManager: userManager(),
      allowAnonymous: cfg.allowAnonymous,
      securityPolicies,
      securityModes,
      maxConnectionsPerEndpoint: cfg.maxSessions,
      serverCapabilities: { maxSessions: cfg.maxSessions, minSupportedSampleRate: cfg.minimumSamplingIntervalMs },
      buildInfo: { productName: 's7twin cloud OPC UA server', manufacturerName: 's7twin' },
      serverInfo: { applicationUri: ot.cloudNamespaceUri(cfg.plant), productUri: 's7twin-opcua-server' },
      isAuditing: false,
    });
    try {
      await server.initialize();
      buildAddressSpace();
      limitChannels(server);
      server.on('create_session', () => { counters.sessions += 1; counters.sessionsCreated += 1; });
      server.on('session_closed', () => { counters.sessions = Math.max(0, counters.sessions - 1); });
      await server.start();
      // TCP_NODELAY: node-opcua's server endpoint sets it on every accepted socket
      // (node-opcua-server server_end_point.js), so small publish responses are not held back.
    } catch (err) {
      const s = server;
      server = null;
      await s.shutdown(0).catch(() => {});
      throw Object.assign(new OpcuaServerError('E_START', `OPC UA server could not start on ${cfg.host}:${cfg.port}: ${err.message}`), { cause: err });
    }
    counters.starts += 1;
  }

  /**
   * Per-channel rate and error budget. node-opcua hands every request of every channel to
   * `on_request` (base_server.js) and sends every answer through `channel.send_response`; both
   * are wrapped here, per server and per channel, so a request over the limit is never processed.
   */
  function limitChannels(srv) {
    const { StatusCodes } = opcua;
    const limits = new WeakMap(); // channel -> peer limits
    const exempt = (request) => {
      const token = request && request.requestHeader && request.requestHeader.authenticationToken;
      const session = token ? srv.engine.getSession(token) : null;
      const user = session && session.userIdentityToken && session.userIdentityToken.userName;
      return cfg.exemptRoles.includes(roleOf(user));
    };
    const cut = (channel, message, counter, why) => {
      counters[counter] += 1;
      ee.emit('limited', { code: why.code, message: why.message, channelId: channel.channelId });
      const fault = opcua.OPCUAServer.makeServiceFault(StatusCodes.BadTcpServerTooBusy, [`${why.code}: ${why.message}`]);
      const close = () => setTimeout(() => { try { channel.abruptlyInterrupt(); } catch { /* already gone */ } }, CLOSE_AFTER_MS);
      try { channel.send_response('MSG', fault, message, close); } catch { close(); }
    };
    const limitsOf = (channel) => {
      let l = limits.get(channel);
      if (!l) {
        l = { peer: peerLimits.createPeerLimits({ ratePerS: cfg.ratePerS, burst: cfg.burst, errors: cfg.errors, errorWindowMs: cfg.errorWindowMs }), spent: false };
        limits.set(channel, l);
        const send = channel.send_response.bind(channel);
        // An answer with a bad service result, or a bad result for any operation (a denied
        // write), is one refused request.
        channel.send_response = (type, response, msg, cb) => {
          const header = response && response.responseHeader;
          const bad = (header && header.serviceResult && header.serviceResult.isNotGood())
            || (Array.isArray(response && response.results) && response.results.some((r) => r && typeof r.isNotGood === 'function' && r.isNotGood()));
          if (bad && !l.spent && !(msg && exempt(msg.request))) {
            const over = l.peer.error();
            if (over) {
              l.spent = true;
              counters.errorBudget += 1;
              ee.emit('limited', { code: over.code, message: over.message, channelId: channel.channelId });
              return send(type, response, msg, (...args) => {
                setTimeout(() => { try { channel.abruptlyInterrupt(); } catch { /* gone */ } }, CLOSE_AFTER_MS);
                if (cb) cb(...args);
              });
            }
          }
          return send(type, response, msg, cb);
        };
      }
      return l;
    };
    const onRequest = srv.on_request.bind(srv);
    srv.on_request = (message, channel) => {
      const l = limitsOf(channel);
      if (l.spent) return; // closing: nothing more is processed
      if (!exempt(message.request)) {
        const over = l.peer.frame();
        if (over) { l.spent = true; cut(channel, message, 'rateLimited', over); return; }
      }
      onRequest(message, channel);
    };
  }

  /** Stop serving: sessions are closed at once (no shutdown delay), timers cleared. */
  async function stop() {
    const s = server;
    server = null;
    variables.clear();
    byNodeId.clear();
    counters.sessions = 0;
    if (s) await s.shutdown(0);
  }

  /**
   * Write a value from inside the server (an inject in the flow, a test), as user 'local'.
   * @param {string} short
   * @param {*} value
   */
  function set(short, value) {
    const tag = ot.cloudTags().find((t) => t.short === short);
    if (!tag) throw new OpcuaServerError('E_UNKNOWN_TAG', `unknown tag ${JSON.stringify(short)}`);
    const v = variables.get(short);
    if (!v) throw new OpcuaServerError('E_STATE', 'server not started');
    const variant = ot.toVariant(tag, value);
    v.setValueFromSource({ dataType: opcua.DataType[variant.dataType], value: variant.value });
    noteWrite(tag, ot.cloudNodeId(tag, { plant: cfg.plant }), values[short], v, 'local');
  }

  // defineProperties, not Object.assign: assign would read the getters once, now.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    start,
    stop,
    set,
    counters,
    config: cfg,
    /** @returns {Object<string, number>} every variable's value by short name */
    values: () => ({ ...values }),
    get running() { return !!server; },
    get endpointUrl() { return `opc.tcp://${wildcard(cfg.host) ? cfg.publicHost : cfg.host}:${cfg.port}`; },
    /** Node id of probe variable Req[slot] ('req') or Res[slot] ('res') on this server. */
    probeNodeIdOf: (kind, slot) => ot.probeNodeId(kind, slot),
    /** Current probe values: {req: number[], res: number[]} (copies). */
    probeValues: () => ({ req: [...probeValues.req], res: [...probeValues.res] }),
    /** Node id of a tag on this server. */
    nodeIdOf: (short) => ot.cloudNodeId(short, { plant: cfg.plant }),
    /** Monitored items currently served, over all sessions (to check for duplicates). */
    monitoredItemCount() {
      if (!server) return 0;
      let n = 0;
      for (const session of Object.values(server.engine._sessions || {})) {
        for (const sub of session.publishEngine ? session.publishEngine.subscriptions : []) n += sub.monitoredItemCount;
      }
      return n;
    },
  }));
}

module.exports = { createOpcuaServer, OpcuaServerError, DEFAULTS, lowerFloors };
