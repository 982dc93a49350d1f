'use strict';
/**
 * One resilient OPC UA client session: a node-opcua OPCUAClient with an endless back-off
 * connection strategy, one session, one subscription and a fixed set of monitored items. Used
 * twice by the edge bridge (PLC side, cloud side), twice by its probe relay and by the twin
 * transport.
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
 *
 * Its parts: the options (session-options.js), connecting and closing (connector.js, with the
 * client certificates of client-pki.js), the subscription and its items (monitoring.js), Read and
 * Write (requests.js).
 */
const { EventEmitter } = require('node:events');
const { DEFAULTS, OpcuaSessionError, sessionOptions } = require('./session-options');
const { resetCertificateManagers } = require('./client-pki');
const { createConnector } = require('./connector');
const { createMonitoring } = require('./monitoring');
const { createRequests } = require('./requests');
const { serverClock } = require('./data-value');

/**
 * Create a client session (not connected).
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
 *   tell a value older than one it read from a newer one (the bridge's baseline, fresh.js)
 * @param {() => object} [opts.load] node-opcua, for tests (default: required on the first connect)
 * @returns {EventEmitter} emits 'values' ([{nodeId, value, status, ts, clock}] of one publish; ts =
 *   source timestamp in ms, for ordering; clock = server clock or null), 'status'
 *   ('connecting'|'connected'|'disconnected'|'error'), 'session' (a session was (re)created)
 */
function createSession(opts) {
  const o = sessionOptions(opts);
  const name = o.name;
  const ee = new EventEmitter();
  const counters = {
    connects: 0, connectionsLost: 0, reconnects: 0, sessionsCreated: 0, sessionsRestored: 0, notifications: 0,
    writes: 0, writeItems: 0, writeErrors: 0, reads: 0, keepAliveFailures: 0, bytesOut: 0, bytesIn: 0,
    removeErrors: 0, // monitored items that could not be deleted (removeMonitor)
  };
  const monitoring = createMonitoring({ o, counters, onValues: (batch) => ee.emit('values', batch) });
  const link = createConnector({
    o, counters, monitoring, load: o.load,
    onStatus: (s, detail) => ee.emit('status', s, detail),
    onSession: () => ee.emit('session'),
  });
  const requests = createRequests({
    name, serverClocks: o.serverClocks, counters, live: link.live, opcua: () => link.opcua, refreshBytes: link.refreshBytes,
  });

  /**
   * Monitor more node ids on the live subscription (the twin transport adds a probe slot's
   * response when it first probes that slot). Ids already monitored or asked for are skipped, so
   * calls never duplicate an item. Items added here belong to the subscription: node-opcua's
   * session repair transfers or recreates them with the others, so they survive reconnects.
   * Before the first session they are simply part of the first subscription.
   * @param {string[]} nodeIds
   * @param {{samplingIntervalMs?: number}} [opts] for these items (0: exception-based where the
   *   variable allows it, no sampling timer on the server); default the session's
   * @returns {Promise<void>}
   * @throws {OpcuaSessionError} E_NOT_CONNECTED (no subscription now; the ids stay asked for only
   *   if the first subscription is still to be made), E_SUBSCRIBE
   */
  async function addMonitor(nodeIds, opts = {}) {
    const fresh = monitoring.unasked(nodeIds);
    if (!fresh.length) return;
    if (link.fresh) { monitoring.askFirst(fresh); return; } // the first connect monitors them
    const session = link.live();
    if (!session) throw new OpcuaSessionError('E_NOT_CONNECTED', `${name}: no session to monitor items on`);
    try {
      await monitoring.add(session, link.opcua, fresh, opts.samplingIntervalMs ?? o.samplingIntervalMs);
    } catch (err) {
      throw Object.assign(new OpcuaSessionError('E_SUBSCRIBE', `${name}: could not monitor ${fresh.length} more item(s): ${err.message}`), { cause: err });
    }
  }

  // defineProperties, not Object.assign: assign would read the getters once, now.
  return Object.defineProperties(ee, Object.getOwnPropertyDescriptors({
    connect: link.connect,
    close: link.close,
    write: requests.write,
    read: requests.read,
    addMonitor,
    /**
     * Stop monitoring node ids added with addMonitor: their items are deleted on the server, which
     * stops sampling them. Items added in one addMonitor call go only together (when every id of
     * that call is given); the others stay. Only with a live session (else nothing is removed: the
     * session repair would bring the items back).
     * @param {string[]} nodeIds
     * @returns {Promise<string[]>} the ids no longer monitored (addMonitor may add them again)
     */
    removeMonitor: (nodeIds) => monitoring.remove(nodeIds, () => !!link.live()),
    counters,
    get status() { return link.status; },
    get connected() { return link.status === 'connected'; },
    /** Monitored items this client holds now (client side). */
    get monitoredItemCount() { return monitoring.itemCount; },
    /** Revised intervals, as the server granted them. */
    get revised() { return monitoring.revised; },
    stats() { link.refreshBytes(); return { ...counters }; },
  }));
}

module.exports = {
  createSession,
  OpcuaSessionError,
  DEFAULTS,
  resetCertificateManagers,
  serverClock,
};
