'use strict';
/**
 * The life of one OPC UA client session (session.js): connect (the client, its certificate, the
 * session, the subscription if it starts with items), follow node-opcua's reconnects as a status,
 * and close. Each step that fails gives back what it opened, so a failed connect leaks no client
 * and no session; connect() can then be called again (first-session.js does).
 *
 * After a lost connection node-opcua reconnects by itself and repairs the session (its
 * subscription included): the status goes disconnected → connecting → connected, and a session
 * it had to restore is reported like a new one ('session'), so the owner can resync.
 */
const { OpcuaSessionError } = require('./session-options');
const { APPLICATION_NAME, certificateManager, certificateReady } = require('./client-pki');

/**
 * The OPCUAClient's options: never give up reconnecting (back-off from initialDelayMs up to
 * maxDelayMs), keep the session alive, the folder's certificate.
 * @param {object} o sessionOptions (session-options.js)
 * @param {object} opcua node-opcua (its MessageSecurityMode and SecurityPolicy enums)
 * @param {object} clientCertificateManager client-pki.js certificateManager
 * @returns {object}
 */
function clientOptions(o, opcua, clientCertificateManager) {
  return {
    applicationName: APPLICATION_NAME,
    endpointMustExist: false,
    securityMode: opcua.MessageSecurityMode[o.securityMode],
    securityPolicy: opcua.SecurityPolicy[o.securityPolicy],
    connectionStrategy: { initialDelay: o.initialDelayMs, maxDelay: o.maxDelayMs, maxRetry: 1e9, randomisationFactor: 0.2 },
    requestedSessionTimeout: o.sessionTimeoutMs,
    keepSessionAlive: true,
    keepAliveInterval: 5000,
    clientCertificateManager,
    transportTimeout: o.connectTimeoutMs,
  };
}

/**
 * The user identity of the session: a user name token, or anonymous without credentials.
 * @param {{user?: string, password?: string}} [credentials]
 * @param {object} UserTokenType node-opcua's enum
 * @returns {object}
 */
function identityOf(credentials, UserTokenType) {
  return credentials && credentials.user
    ? { type: UserTokenType.UserName, userName: credentials.user, password: credentials.password || '' }
    : { type: UserTokenType.Anonymous };
}

/** `p`, or a rejection after `ms`. */
function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error('timeout')), ms); })]).finally(() => clearTimeout(t));
}

/**
 * @param {object} opts
 * @param {object} opts.o sessionOptions (session-options.js)
 * @param {object} opts.counters the session's: connects, connectionsLost, reconnects,
 *   sessionsCreated, sessionsRestored, keepAliveFailures, bytesOut, bytesIn
 * @param {object} opts.monitoring monitoring.js: subscribed on connect when it wants items
 * @param {(status: string, detail?: string) => void} opts.onStatus every change of status
 * @param {() => void} opts.onSession a session was created or restored
 * @param {() => object} [opts.load] node-opcua (default: required on the first connect, being
 *   large and slow to load)
 * @returns {{connect(): Promise<void>, close(): Promise<void>, live(): object|null,
 *   refreshBytes(): void, opcua: object|null, status: string|null, fresh: boolean}}
 */
function createConnector({ o, counters, monitoring, onStatus, onSession, load = () => require('node-opcua') }) {
  const name = o.name;
  let opcua = null;
  let client = null;
  let session = null;
  let status = null;
  let closed = false;
  let connecting = null;

  function setStatus(s, detail) {
    if (s === status) return;
    status = s;
    onStatus(s, detail);
  }

  async function connect() {
    if (closed) throw new OpcuaSessionError('E_CLOSED', `${name}: closed`);
    if (connecting) return connecting;
    connecting = doConnect().finally(() => { connecting = null; });
    return connecting;
  }

  async function doConnect() {
    opcua = opcua || load();
    setStatus('connecting');
    client = opcua.OPCUAClient.create(clientOptions(o, opcua, certificateManager(opcua, o.pkiDir)));
    client.on('connection_lost', () => { counters.connectionsLost += 1; setStatus('disconnected'); });
    client.on('connection_reestablished', () => { counters.reconnects += 1; setStatus('connected'); });
    client.on('backoff', () => { if (status !== 'disconnected') setStatus('connecting'); });
    client.on('after_reconnection', (err) => { if (err) setStatus('error', err.message); });
    await openConnection();
    counters.connects += 1;
    await openSession();
    if (monitoring.wanted) await subscribe();
    setStatus('connected');
    onSession();
  }

  /** The client's connection, its certificate first; a failed one is given back. */
  async function openConnection() {
    const ready = certificateReady(client, o.pkiDir);
    try {
      await ready;
      await client.connect(o.endpointUrl);
    } catch (err) {
      const c = client;
      client = null;
      await c.disconnect().catch(() => {});
      if (!closed) setStatus('error', err.message);
      throw Object.assign(new OpcuaSessionError(closed ? 'E_CLOSED' : 'E_CONNECT', `${name}: ${err.message}`), { cause: err });
    }
    if (closed) { await client.disconnect().catch(() => {}); throw new OpcuaSessionError('E_CLOSED', `${name}: closed while connecting`); }
  }

  async function openSession() {
    try {
      session = await client.createSession(identityOf(o.credentials, opcua.UserTokenType));
    } catch (err) {
      await client.disconnect().catch(() => {});
      client = null;
      setStatus('error', err.message);
      throw Object.assign(new OpcuaSessionError('E_SESSION', `${name}: no session: ${err.message}`), { cause: err });
    }
    counters.sessionsCreated += 1;
    session.on('session_restored', () => { counters.sessionsRestored += 1; setStatus('connected'); onSession(); });
    session.on('keepalive_failure', () => { counters.keepAliveFailures += 1; });
  }

  async function subscribe() {
    try {
      await monitoring.subscribe(session, opcua);
    } catch (err) {
      // Without its subscription this session is of no use: give it back, do not leak it.
      const c = client;
      const sess = session;
      client = null;
      session = null;
      monitoring.dropSubscription();
      await sess.close(true).catch(() => {});
      await c.disconnect().catch(() => {});
      setStatus('error', err.message);
      throw Object.assign(new OpcuaSessionError('E_SUBSCRIBE', `${name}: no subscription: ${err.message}`), { cause: err });
    }
  }

  // Bytes on the wire, over every secure channel this client has had (node-opcua keeps the sum).
  // TCP_NODELAY: node-opcua's TCP_transport sets it on every socket it installs
  // (node-opcua-transport tcp_transport.js, _install_socket), client and server side alike.
  function refreshBytes() {
    if (!client) return;
    counters.bytesOut = client.bytesWritten;
    counters.bytesIn = client.bytesRead;
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
    monitoring.clear();
    if (s) {
      try { await withTimeout(s.close(true), 2000); } catch { /* server gone: disconnect below */ }
    }
    if (c) {
      try { await withTimeout(c.disconnect(), 3000); } catch { /* nothing left to do */ }
    }
    setStatus('disconnected');
  }

  return {
    connect,
    close,
    refreshBytes,
    /** The node-opcua session if connected now, else null. */
    live: () => (session && status === 'connected' ? session : null),
    get opcua() { return opcua; },
    get status() { return status; },
    /** Before the first connect: nothing opened, none under way, not closed. */
    get fresh() { return !session && !connecting && !closed; },
  };
}

module.exports = { createConnector, clientOptions, identityOf, withTimeout };
