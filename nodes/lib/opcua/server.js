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
 *   srv.on('limited', (ev) => ...); // {code, message, channelId}: a channel closed for its limits
 *   await srv.start(); ... await srv.stop();
 *
 * Its parts: the configuration, where it listens and what it advertises (server-config.js), the
 * two accounts (accounts.js), the variables and the hook that sees every write
 * (address-space.js), and the per-channel limits (channel-limits.js).
 */
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const ot = require('./tags');
const { demoTable } = require('../core/io-table');
const { DEFAULTS, OpcuaServerError, serverConfig, serverCounters, serverOptions, endpointUrlOf } = require('./server-config');
const { roleOf, createUserManager, whoOf } = require('./accounts');
const { buildAddressSpace } = require('./address-space');
const { limitChannels } = require('./channel-limits');
const { createCommandLog } = require('./command-log');

/**
 * node-opcua clamps every sampling interval to MonitoredItem.minimumSamplingInterval (50 ms) and
 * every publishing interval to Subscription.minimumPublishingInterval (50 ms): class-wide floors,
 * below which no per-variable minimumSamplingInterval helps. Lower them (never raise them: other
 * servers in the process, such as the virtual PLC's, may need them low too).
 * @param {number} samplingMs
 * @param {number} publishingMs
 * @param {object} [opcua] node-opcua (default: required here)
 */
function lowerFloors(samplingMs, publishingMs, opcua) {
  // node-opcua re-exports node-opcua-server's classes: the package depends on node-opcua only.
  const { MonitoredItem, Subscription } = opcua || require('node-opcua');
  if (samplingMs > 0 && samplingMs < MonitoredItem.minimumSamplingInterval) MonitoredItem.minimumSamplingInterval = samplingMs;
  if (publishingMs > 0 && publishingMs < Subscription.minimumPublishingInterval) Subscription.minimumPublishingInterval = publishingMs;
}

/**
 * Monitored items a running node-opcua server serves, over all sessions (to check for duplicates).
 * @param {object|null} server OPCUAServer
 * @returns {number}
 */
function monitoredItemCount(server) {
  if (!server) return 0;
  let n = 0;
  for (const session of Object.values(server.engine._sessions || {})) {
    for (const sub of session.publishEngine ? session.publishEngine.subscriptions : []) n += sub.monitoredItemCount;
  }
  return n;
}

/**
 * The image to start from: the known tags of `initialValues`, normalised (a value the table
 * refuses now, after a change of the table, is left out).
 * @param {Object<string, *>} [initialValues] by short name
 * @param {object} [table] the plant's I/O table (default: the demo plant's)
 * @returns {Object<string, number|string>}
 */
function startImage(initialValues, table = demoTable()) {
  const values = {};
  for (const [k, v] of Object.entries(initialValues || {})) {
    const tag = ot.cloudTags(table).find((t) => t.short === k);
    try { if (tag) values[k] = table.normalise(tag, v); } catch { /* not this table's any more */ }
  }
  return values;
}

/**
 * Create (not start) the cloud OPC UA server.
 * @param {object} [opts]
 * @param {string} [opts.host] bind address (default 127.0.0.1)
 * @param {string} [opts.publicHost] the name it advertises (default: see server-config.js)
 * @param {number} [opts.port] TCP port (default 4841; 0 is not supported by node-opcua: pick one)
 * @param {string} [opts.plant] plant id, part of every node id (default plant1)
 * @param {object} [opts.table] the plant's I/O table (a table or a definition; default: the demo plant's)
 * @param {string} [opts.pkiDir] PKI folder, created on start (default ~/.node-red/opcua-pki)
 * @param {number} [opts.minimumSamplingIntervalMs] default 10
 * @param {boolean} [opts.allowInsecure] offer SecurityPolicy None (default true, for benchmarks)
 * @param {boolean} [opts.allowAnonymous] allow anonymous read-only sessions (default false)
 * @param {boolean} [opts.autoAcceptCertificates] default true
 * @param {{twin:{user,password}, edge:{user,password}}} [opts.users] one account per role
 * @param {number} [opts.probeSlots] probe variables Req[i]/Res[i] for i < probeSlots (default 128, 0 = none)
 * @param {Object<string, number>} [opts.initialValues] starting image by short name (a node
 *   restores the image it saved before a redeploy)
 * @param {{taken(c: object): boolean}} [opts.audit] the command log's recorder: every write of a
 *   command variable, relayed, unchanged or refused (lib/opcua/command-log.js)
 * @returns {EventEmitter & {start, stop, values, counters, endpointUrl, sessions, nodeIdOf}}
 */
function createOpcuaServer(opts = {}) {
  const cfg = serverConfig(opts);
  const ee = new EventEmitter();
  const counters = serverCounters();
  const values = startImage(opts.initialValues, cfg.table); // short -> dictionary value, as of the last change (kept across restarts)
  const probeValues = { req: new Array(cfg.probeSlots).fill(0), res: new Array(cfg.probeSlots).fill(0) };
  let variables = new Map(); // short -> UAVariable
  let server = null;
  let seq = 0;
  let opcua = null; // node-opcua, loaded lazily: it is large and slow to require
  const role = (user) => roleOf(cfg.users, user);
  const commands = createCommandLog({ audit: opts.audit, plant: cfg.plant, roleOf: role });
  let tagOfNodeId = new Map(); // a variable's node id (as a client names it) -> its tag

  /** A value written: a 'change' with its writer, unless it was the value already. @returns {boolean} changed */
  function noteWrite(tag, nodeId, before, variable, who) {
    const value = ot.fromVariant(tag, variable.readValue().value.value);
    if (value === before) { counters.unchanged += 1; return false; }
    values[tag.short] = value;
    counters.writes += 1;
    seq += 1;
    ee.emit('change', {
      short: tag.short, name: tag.name, nodeId, value, who, role: role(who) || who,
      kind: tag.dir === 'in' ? 'cmd' : 'state', seq, ts: Date.now(),
    });
    return true;
  }

  /**
   * A tag written by a client: a change with its writer, or a refusal counted (denied, failed);
   * a command variable's write also in the command log.
   */
  const onTagWrite = (tag, nodeId, v) => (context, writeValue) => {
    const before = values[tag.short];
    const command = commands.begin(tag, nodeId, context, writeValue);
    return (outcome, status) => {
      if (outcome === 'good') {
        const changed = noteWrite(tag, nodeId, before, v, whoOf(context));
        if (command) command(changed ? 'relayed' : 'unchanged');
        return;
      }
      counters[outcome] += 1;
      if (command) command(outcome, status);
    };
  };
  /** A probe slot written: counted apart (probeWrites, ...) with a 'probe' event, never a 'change'. */
  const onProbeWrite = (kind, slot, v) => (context) => (outcome) => {
    if (outcome !== 'good') { counters[outcome === 'denied' ? 'probeDenied' : 'probeFailed'] += 1; return; }
    const value = Number(v.readValue().value.value);
    probeValues[kind][slot] = value;
    counters.probeWrites += 1;
    if (ee.listenerCount('probe')) ee.emit('probe', { kind, slot, value, who: whoOf(context), ts: Date.now() });
  };

  async function start() {
    if (server) throw new OpcuaServerError('E_STATE', 'server already started');
    opcua = opcua || require('node-opcua');
    lowerFloors(cfg.minimumSamplingIntervalMs, cfg.minimumPublishingIntervalMs, opcua);
    fs.mkdirSync(cfg.pkiDir, { recursive: true });
    const serverCertificateManager = new opcua.OPCUACertificateManager({
      rootFolder: cfg.pkiDir,
      automaticallyAcceptUnknownCertificate: cfg.autoAcceptCertificates,
    });
    await serverCertificateManager.initialize();
    server = new opcua.OPCUAServer(serverOptions(cfg, opcua, { serverCertificateManager, userManager: createUserManager(cfg.users, opcua, counters) }));
    try {
      await server.initialize();
      variables = buildAddressSpace(opcua, server.engine.addressSpace, { cfg, values, probeValues, onTagWrite, onProbeWrite });
      tagOfNodeId = new Map([...variables].map(([short, v]) => [v.nodeId.toString(), cfg.table.get(short)]));
      limitChannels(server, {
        opcua, cfg, roleOf: role, counters,
        onLimited: (ev) => {
          // A request over the channel's rate is never processed: its command writes are refused.
          if (commands.on) commands.limited(ev, (nodeId) => tagOfNodeId.get(nodeId));
          ee.emit('limited', { code: ev.code, message: ev.message, channelId: ev.channelId });
        },
      });
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

  /** Stop serving: sessions are closed at once (no shutdown delay), timers cleared. */
  async function stop() {
    const s = server;
    server = null;
    variables = new Map();
    counters.sessions = 0;
    if (s) await s.shutdown(0);
  }

  /**
   * Write a value from inside the server (an inject in the flow, a test), as user 'local'.
   * @param {string} short
   * @param {*} value
   * @param {{id: string, name?: string}} [by] the flow's node that set it: a command variable's
   *   value is then in the command log with the node as its sender
   */
  function set(short, value, by) {
    const tag = ot.cloudTags(cfg.table).find((t) => t.short === short);
    if (!tag) throw new OpcuaServerError('E_UNKNOWN_TAG', `unknown tag ${JSON.stringify(short)}`);
    const v = variables.get(short);
    if (!v) throw new OpcuaServerError('E_STATE', 'server not started');
    const variant = ot.toVariant(tag, value);
    v.setValueFromSource({ dataType: opcua.DataType[variant.dataType], value: variant.value });
    const nodeId = ot.cloudNodeId(tag, { plant: cfg.plant });
    const changed = noteWrite(tag, nodeId, values[short], v, 'local');
    commands.local(by, tag, nodeId, values[short], changed);
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
    get endpointUrl() { return endpointUrlOf(cfg); },
    /** Node id of probe variable Req[slot] ('req') or Res[slot] ('res') on this server. */
    probeNodeIdOf: (kind, slot) => ot.probeNodeId(kind, slot),
    /** Current probe values: {req: number[], res: number[]} (copies). */
    probeValues: () => ({ req: [...probeValues.req], res: [...probeValues.res] }),
    /** Node id of a tag on this server. */
    nodeIdOf: (short) => ot.cloudNodeId(short, { plant: cfg.plant, table: cfg.table }),
    /** Monitored items currently served, over all sessions (to check for duplicates). */
    monitoredItemCount: () => monitoredItemCount(server),
  }));
}

module.exports = { createOpcuaServer, OpcuaServerError, DEFAULTS, lowerFloors, startImage };
