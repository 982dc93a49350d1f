'use strict';
/**
 * One OPC UA client connection that survives server restarts: a node-opcua OPCUAClient with an
 * endless back-off connection strategy, one session, one subscription and a fixed set of monitored
 * items. Used twice by the edge bridge (PLC side, cloud side) and by the twin transport.
 *
 * Recovery relies on node-opcua's own session repair: after a lost connection the client
 * reconnects, tries to reactivate the session, else creates a new one and transfers the
 * subscription, else recreates the subscription and its monitored items - once, on the new
 * session. This module never re-adds monitored items itself after a reconnect, which is what
 * keeps them from being duplicated; `monitoredItemCount` lets tests check it. addMonitor() adds
 * new node ids to the live subscription (each id once, ever), which the repair then carries too.
 *
 * Sampling interval (how often the server looks at a variable, per monitored item) and publishing
 * interval (how often the server sends the changes it queued, per subscription) are two options,
 * never one: a change waits up to one sampling interval to be noticed and up to one publishing
 * interval to be sent.
 */
const { codedError } = require('../core/errors');
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');

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
const OpcuaSideError = codedError('OpcuaSideError');

let certificateManagers = new Map(); // pkiDir -> OPCUACertificateManager, one per folder
const certificatesReady = new Map(); // pkiDir -> promise of the client certificate existing
// One application name for every client: they share the certificate of their PKI folder, and
// node-opcua wants the certificate's subjectAltName to match the client's applicationUri.
const APPLICATION_NAME = 's7twin-opcua-client';

/**
 * Create a client side (not connected).
 * @param {object} opts
 * @param {string} opts.endpointUrl opc.tcp://host:port
 * @param {string} [opts.name] label for logs and errors
 * @param {string[]} [opts.monitor] node ids to monitor (may be empty)
 * @param {{user:string, password:string}} [opts.credentials] user name token (anonymous if absent)
 * @param {'None'|'Sign'|'SignAndEncrypt'} [opts.securityMode] default None
 * @param {'None'|'Basic256Sha256'|'Aes128_Sha256_RsaOaep'|'Aes256_Sha256_RsaPss'} [opts.securityPolicy] default None
 * @param {number} [opts.publishingIntervalMs]
 * @param {number} [opts.samplingIntervalMs]
 * @param {string} [opts.pkiDir] client certificate folder, created if missing
 * @param {boolean} [opts.serverClocks] also ask for server timestamps: notifications and read()
 *   results then carry `clock`, the server's time of the value (see serverClock), so a reader can
 *   tell a value older than one it read from a newer one (the bridge's baseline, opcua-fresh.js)
 * @returns {EventEmitter} emits 'values' ([{nodeId, value, status, ts, clock}] of one publish; ts =
 *   source timestamp in ms, for ordering; clock = server clock or null), 'status'
 *   ('connecting'|'connected'|'disconnected'|'error'), 'session' (a session was (re)created)
 */
function createSide(opts) {
  if (!opts || !/^opc\.tcp:\/\//.test(opts.endpointUrl || '')) {
    throw new OpcuaSideError('E_CONFIG', `endpointUrl must be opc.tcp://host:port, got ${JSON.stringify(opts && opts.endpointUrl)}`);
  }
  // An option passed as undefined (not given on a command line) keeps its default.
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  const name = o.name || o.endpointUrl;
  o.securityMode = o.securityMode || 'None';
  o.securityPolicy = o.securityPolicy || 'None';
  if (!SECURITY_MODES.includes(o.securityMode)) {
    throw new OpcuaSideError('E_CONFIG', `securityMode must be one of ${SECURITY_MODES.join(', ')}, got ${JSON.stringify(o.securityMode)}`);
  }
  if (!SECURITY_POLICIES.includes(o.securityPolicy)) {
    throw new OpcuaSideError('E_CONFIG', `securityPolicy must be one of ${SECURITY_POLICIES.join(', ')}, got ${JSON.stringify(o.securityPolicy)}`);
  }
  if ((o.securityMode === 'None') !== (o.securityPolicy === 'None')) {
    throw new OpcuaSideError('E_CONFIG', `securityMode ${o.securityMode} does not go with securityPolicy ${o.securityPolicy}`);
  }
  const ee = new EventEmitter();
  const counters = {
    connects: 0, connectionsLost: 0, reconnects: 0, sessionsCreated: 0, sessionsRestored: 0, notifications: 0,
    writes: 0, writeItems: 0, writeErrors: 0, reads: 0, keepAliveFailures: 0, bytesOut: 0, bytesIn: 0,
    removeErrors: 0, // monitored items that could not be deleted (removeMonitor)
  };
  let opcua = null;
  let client = null;
  let session = null;
  let subscription = null;
  let group = null;
  let status = null;
  let closed = false;
  let connecting = null;
  const monitor = [...(o.monitor || [])];
  const monitored = new Set(monitor); // every node id asked for, so addMonitor never adds one twice
  let batch = null; // notifications of the publish being delivered (see monitorGroup)
  let subscribing = null; // the subscription being created by addMonitor
  const groupIds = new Map(); // group added by addMonitor -> its node ids (see removeMonitor)

  function setStatus(s, detail) {
    if (s === status) return;
    status = s;
    ee.emit('status', s, detail);
  }

  function certificateManager() {
    let cm = certificateManagers.get(o.pkiDir);
    if (!cm) {
      fs.mkdirSync(o.pkiDir, { recursive: true });
      cm = new opcua.OPCUACertificateManager({ rootFolder: o.pkiDir, automaticallyAcceptUnknownCertificate: true });
      certificateManagers.set(o.pkiDir, cm);
    }
    return cm;
  }

  async function connect() {
    if (closed) throw new OpcuaSideError('E_CLOSED', `${name}: closed`);
    if (connecting) return connecting;
    connecting = doConnect().finally(() => { connecting = null; });
    return connecting;
  }

  async function doConnect() {
    opcua = opcua || require('node-opcua');
    const { OPCUAClient, MessageSecurityMode, SecurityPolicy, UserTokenType, AttributeIds, TimestampsToReturn } = opcua;
    setStatus('connecting');
    client = OPCUAClient.create({
      applicationName: APPLICATION_NAME,
      endpointMustExist: false,
      securityMode: MessageSecurityMode[o.securityMode],
      securityPolicy: SecurityPolicy[o.securityPolicy],
      connectionStrategy: { initialDelay: o.initialDelayMs, maxDelay: o.maxDelayMs, maxRetry: 1e9, randomisationFactor: 0.2 },
      requestedSessionTimeout: o.sessionTimeoutMs,
      keepSessionAlive: true,
      keepAliveInterval: 5000,
      clientCertificateManager: certificateManager(),
      transportTimeout: o.connectTimeoutMs,
    });
    client.on('connection_lost', () => { counters.connectionsLost += 1; setStatus('disconnected'); });
    client.on('connection_reestablished', () => { counters.reconnects += 1; setStatus('connected'); });
    client.on('backoff', () => { if (status !== 'disconnected') setStatus('connecting'); });
    client.on('after_reconnection', (err) => { if (err) setStatus('error', err.message); });
    // Two clients on a fresh PKI folder would both create the certificate and one would find the
    // other's half-written key: the first creates it, the others wait for that.
    let ready = certificatesReady.get(o.pkiDir);
    if (!ready) {
      ready = client.initializeCM();
      certificatesReady.set(o.pkiDir, ready);
      ready.catch(() => certificatesReady.delete(o.pkiDir));
    }
    try {
      await ready;
      await client.connect(o.endpointUrl);
    } catch (err) {
      const c = client;
      client = null;
      await c.disconnect().catch(() => {});
      if (!closed) setStatus('error', err.message);
      throw Object.assign(new OpcuaSideError(closed ? 'E_CLOSED' : 'E_CONNECT', `${name}: ${err.message}`), { cause: err });
    }
    if (closed) { await client.disconnect().catch(() => {}); throw new OpcuaSideError('E_CLOSED', `${name}: closed while connecting`); }
    counters.connects += 1;
    const identity = o.credentials && o.credentials.user
      ? { type: UserTokenType.UserName, userName: o.credentials.user, password: o.credentials.password || '' }
      : { type: UserTokenType.Anonymous };
    try {
      session = await client.createSession(identity);
    } catch (err) {
      await client.disconnect().catch(() => {});
      client = null;
      setStatus('error', err.message);
      throw Object.assign(new OpcuaSideError('E_SESSION', `${name}: no session: ${err.message}`), { cause: err });
    }
    counters.sessionsCreated += 1;
    session.on('session_restored', () => { counters.sessionsRestored += 1; setStatus('connected'); ee.emit('session'); });
    session.on('keepalive_failure', () => { counters.keepAliveFailures += 1; });
    if (monitor.length) {
      try {
        await subscribe(AttributeIds, TimestampsToReturn);
      } catch (err) {
        // Without its subscription this side is of no use: give the session back, do not leak it.
        const c = client;
        const sess = session;
        client = null;
        session = null;
        subscription = null;
        await sess.close(true).catch(() => {});
        await c.disconnect().catch(() => {});
        setStatus('error', err.message);
        throw Object.assign(new OpcuaSideError('E_SUBSCRIBE', `${name}: no subscription: ${err.message}`), { cause: err });
      }
    }
    setStatus('connected');
    ee.emit('session');
  }

  async function subscribe(AttributeIds, TimestampsToReturn) {
    await createSubscription();
    if (monitor.length) group = await monitorGroup(monitor.slice(), AttributeIds, TimestampsToReturn);
  }

  /** The session's one subscription, without items yet. */
  async function createSubscription() {
    // node-opcua refuses (throws W09) a subscription whose keep-alive period (count x publishing
    // interval) exceeds the session timeout, so a slow publishing interval gets a smaller count.
    const keepAliveCount = Math.max(3, Math.min(o.keepAliveCount, Math.floor(o.sessionTimeoutMs / (2 * Math.max(1, o.publishingIntervalMs)))));
    subscription = await session.createSubscription2({
      requestedPublishingInterval: o.publishingIntervalMs,
      requestedMaxKeepAliveCount: keepAliveCount,
      requestedLifetimeCount: Math.max(o.lifetimeCount, 3 * keepAliveCount),
      maxNotificationsPerPublish: 0,
      publishingEnabled: true,
      priority: 10,
    });
  }

  /** Monitor node ids on the subscription, as one group; its notifications join the batches. */
  async function monitorGroup(nodeIds, AttributeIds, TimestampsToReturn, samplingIntervalMs = o.samplingIntervalMs) {
    const items = nodeIds.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value }));
    // Source timestamps tell the order of changes that arrive in one publish (node-opcua lists
    // them item by item, not in time order): the bridge needs it to replay a pulse.
    const g = await subscription.monitorItems(items, {
      samplingInterval: samplingIntervalMs, queueSize: o.queueSize, discardOldest: false,
    }, o.serverClocks ? TimestampsToReturn.Both : TimestampsToReturn.Source);
    // Notifications of one publish response arrive one by one, synchronously: gather them and
    // hand them on as one batch, so values that changed together are written together.
    g.on('changed', (item, dataValue) => {
      counters.notifications += 1;
      if (!batch) {
        batch = [];
        setImmediate(() => { const b = batch; batch = null; ee.emit('values', b); });
      }
      batch.push({
        nodeId: item.itemToMonitor.nodeId.toString(), value: dataValue.value.value, status: dataValue.statusCode,
        ts: sourceTime(dataValue), clock: o.serverClocks ? serverClock(dataValue) : null,
      });
    });
    return g;
  }

  /**
   * Monitor more node ids on the live subscription (the twin transport adds a probe slot's
   * response when it first probes that slot). Ids already monitored or asked for are skipped, so
   * calls never duplicate an item. Items added here belong to the subscription: node-opcua's
   * session repair transfers or recreates them with the others, so they survive reconnects.
   * Before the first session they are simply part of the first subscription.
   * @param {string[]} nodeIds
   * @param {{samplingIntervalMs?: number}} [opts] for these items (0: exception-based where the
   *   variable allows it, no sampling timer on the server); default the side's
   * @returns {Promise<void>}
   * @throws {OpcuaSideError} E_NOT_CONNECTED (no subscription now; the ids stay asked for only
   *   if the first subscription is still to be made), E_SUBSCRIBE
   */
  async function addMonitor(nodeIds, opts = {}) {
    const fresh = nodeIds.filter((id) => !monitored.has(id));
    if (!fresh.length) return;
    if (!session && !connecting && !closed) {
      for (const id of fresh) { monitored.add(id); monitor.push(id); } // the first connect monitors them
      return;
    }
    if (!session || status !== 'connected') throw new OpcuaSideError('E_NOT_CONNECTED', `${name}: no session to monitor items on`);
    for (const id of fresh) monitored.add(id);
    try {
      // A side that started without items has no subscription yet: the first addMonitor makes
      // it (once, however many calls wait for it).
      if (!subscription) {
        if (!subscribing) subscribing = createSubscription().finally(() => { subscribing = null; });
        await subscribing;
      }
      const g = await monitorGroup(fresh, opcua.AttributeIds, opcua.TimestampsToReturn, opts.samplingIntervalMs ?? o.samplingIntervalMs);
      groupIds.set(g, fresh);
      if (!group) group = g;
    } catch (err) {
      for (const id of fresh) monitored.delete(id);
      throw Object.assign(new OpcuaSideError('E_SUBSCRIBE', `${name}: could not monitor ${fresh.length} more item(s): ${err.message}`), { cause: err });
    }
  }

  /**
   * Stop monitoring node ids added with addMonitor: their items are deleted on the server, which
   * stops sampling them. Items added in one addMonitor call go only together (when every id of
   * that call is given); the others stay. Only with a live session (else nothing is removed: the
   * session repair would bring the items back).
   * @param {string[]} nodeIds
   * @returns {Promise<string[]>} the ids no longer monitored (addMonitor may add them again)
   */
  async function removeMonitor(nodeIds) {
    const drop = new Set(nodeIds);
    const removed = [];
    for (const [g, ids] of [...groupIds]) {
      if (!session || status !== 'connected') break;
      if (!ids.every((id) => drop.has(id))) continue;
      try {
        await g.terminate();
      } catch (err) {
        counters.removeErrors += 1;
        continue;
      }
      groupIds.delete(g);
      for (const id of ids) monitored.delete(id);
      removed.push(...ids);
      if (group === g) group = groupIds.keys().next().value || null;
    }
    return removed;
  }

  // Bytes on the wire, over every secure channel this client has had (node-opcua keeps the sum).
  // TCP_NODELAY: node-opcua's TCP_transport sets it on every socket it installs
  // (node-opcua-transport tcp_transport.js, _install_socket), client and server side alike.
  function refreshBytes() {
    if (!client) return;
    counters.bytesOut = client.bytesWritten;
    counters.bytesIn = client.bytesRead;
  }

  /**
   * Write several variables in one Write request.
   * @param {Array<{nodeId:string, dataType:string, value:*}>} items
   * @returns {Promise<Array<{nodeId:string, status:string, good:boolean}>>}
   * @throws {OpcuaSideError} E_NOT_CONNECTED when there is no session now
   */
  async function write(items) {
    if (!session || status !== 'connected') throw new OpcuaSideError('E_NOT_CONNECTED', `${name}: not connected`);
    const { AttributeIds, DataType } = opcua;
    const nodesToWrite = items.map((it) => ({
      nodeId: it.nodeId,
      attributeId: AttributeIds.Value,
      value: { value: { dataType: DataType[it.dataType], value: it.value } },
    }));
    counters.writes += 1;
    counters.writeItems += items.length;
    let codes;
    try {
      codes = await session.write(nodesToWrite);
    } catch (err) {
      counters.writeErrors += items.length;
      throw Object.assign(new OpcuaSideError('E_WRITE', `${name}: write failed: ${err.message}`), { cause: err });
    } finally {
      refreshBytes();
    }
    return codes.map((c, i) => {
      if (!c.isGood()) counters.writeErrors += 1;
      return { nodeId: items[i].nodeId, status: c.name, good: c.isGood() };
    });
  }

  /**
   * Read the values of several variables in one Read request (maxAge 0: the server's current
   * values; with serverClocks, `clock` is the server's time of the read, see serverClock).
   * @param {string[]} nodeIds
   * @returns {Promise<Array<{nodeId, value, good, status, clock}>>}
   */
  async function read(nodeIds) {
    if (!session || status !== 'connected') throw new OpcuaSideError('E_NOT_CONNECTED', `${name}: not connected`);
    counters.reads += 1;
    let dvs;
    try {
      dvs = await session.read(nodeIds.map((nodeId) => ({ nodeId, attributeId: opcua.AttributeIds.Value })), 0);
    } catch (err) {
      throw Object.assign(new OpcuaSideError('E_READ', `${name}: read failed: ${err.message}`), { cause: err });
    } finally {
      refreshBytes();
    }
    return dvs.map((dv, i) => ({
      nodeId: nodeIds[i], value: dv.value.value, good: dv.statusCode.isGood(), status: dv.statusCode.name,
      clock: o.serverClocks ? serverClock(dv) : null,
    }));
  }

  /** Close the session and the connection; every timer of the client goes with it. */
  async function close() {
    closed = true;
    if (connecting) {
      // A connect still retrying against a server that is down would never end: cut it short.
      if (client) await withTimeout(client.disconnect(), 3000).catch(() => {});
      await withTimeout(connecting, 3000).catch(() => {});
    }
    refreshBytes();
    const c = client;
    const s = session;
    client = null;
    session = null;
    subscription = null;
    group = null;
    if (s) {
      try { await withTimeout(s.close(true), 2000); } catch { /* server gone: disconnect below */ }
    }
    if (c) {
      try { await withTimeout(c.disconnect(), 3000); } catch { /* nothing left to do */ }
    }
    setStatus('disconnected');
  }

  // defineProperties, not Object.assign: assign would read the getters once, now.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    connect,
    close,
    write,
    read,
    addMonitor,
    removeMonitor,
    counters,
    get status() { return status; },
    get connected() { return status === 'connected'; },
    /** Monitored items this client holds now (client side). */
    get monitoredItemCount() { return subscription ? Object.keys(subscription.monitoredItems || {}).length : 0; },
    /** Revised intervals, as the server granted them. */
    get revised() {
      const first = group && group.monitoredItems && group.monitoredItems[0];
      return {
        publishingIntervalMs: subscription ? subscription.publishingInterval : null,
        samplingIntervalMs: first && first.result ? first.result.revisedSamplingInterval : null,
      };
    },
    stats() { refreshBytes(); return { ...counters }; },
  }));
}

/** A DataValue's source timestamp in ms with sub-ms picoseconds (node-opcua keeps them monotonic), or null. */
function sourceTime(dv) {
  const t = dv.sourceTimestamp;
  return t ? t.getTime() + (dv.sourcePicoseconds || 0) / 1e9 : null;
}

/**
 * A DataValue's server timestamp as one exact number, picoseconds since 1970 (a BigInt: a double
 * cannot hold milliseconds and picoseconds apart), or null. The server's own clock: a value
 * sampled or written before a Read has a clock no later than that Read's (the Read of a value
 * with maxAge 0 stamps it with the time of the read, node-opcua-server addressSpace_accessor.js).
 */
function serverClock(dv) {
  const t = dv.serverTimestamp;
  return t ? BigInt(t.getTime()) * 1000000000n + BigInt(dv.serverPicoseconds || 0) : null;
}

function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error('timeout')), ms); })]).finally(() => clearTimeout(t));
}

/** For tests: forget cached certificate managers. */
function resetCertificateManagers() { certificateManagers = new Map(); certificatesReady.clear(); }

module.exports = { createSide, OpcuaSideError, DEFAULTS, resetCertificateManagers, serverClock };
