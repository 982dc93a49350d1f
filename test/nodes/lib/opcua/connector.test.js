'use strict';
/**
 * nodes/lib/opcua/connector.js: the life of a client session against a stand-in node-opcua: the
 * steps of a connect, each failure giving back what it opened, the status across node-opcua's
 * reconnects, and close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const path = require('node:path');
const { createConnector, clientOptions, identityOf } = require('../../../../nodes/lib/opcua/connector');
const { createMonitoring } = require('../../../../nodes/lib/opcua/monitoring');
const { sessionOptions } = require('../../../../nodes/lib/opcua/session-options');
const { resetCertificateManagers } = require('../../../../nodes/lib/opcua/client-pki');
const { fakeOpcua } = require('./fake-opcua');

const PKI = path.join(os.tmpdir(), 's7twin-test-connector-pki');

function setup(extra = {}) {
  resetCertificateManagers();
  const { opcua, world } = fakeOpcua();
  const o = sessionOptions({ endpointUrl: 'opc.tcp://plc:4840', name: 'plc', pkiDir: PKI, ...extra });
  const counters = {
    connects: 0, connectionsLost: 0, reconnects: 0, sessionsCreated: 0, sessionsRestored: 0, keepAliveFailures: 0,
    bytesOut: 0, bytesIn: 0, notifications: 0, removeErrors: 0,
  };
  const statuses = [];
  let sessions = 0;
  const monitoring = createMonitoring({ o, counters, onValues: () => {} });
  const link = createConnector({
    o, counters, monitoring, load: () => opcua,
    onStatus: (s, detail) => statuses.push(detail ? `${s}: ${detail}` : s), onSession: () => { sessions += 1; },
  });
  return { link, world, opcua, counters, statuses, sessions: () => sessions };
}

test('client options: endless reconnects with back-off, the security asked for, the folder certificate', () => {
  const { opcua } = fakeOpcua();
  const o = sessionOptions({ endpointUrl: 'opc.tcp://h:1', securityMode: 'SignAndEncrypt', securityPolicy: 'Basic256Sha256', initialDelayMs: 50, maxDelayMs: 900 });
  const c = clientOptions(o, opcua, 'cm');
  assert.equal(c.securityMode, 3);
  assert.equal(c.securityPolicy, opcua.SecurityPolicy.Basic256Sha256);
  assert.deepEqual(c.connectionStrategy, { initialDelay: 50, maxDelay: 900, maxRetry: 1e9, randomisationFactor: 0.2 });
  assert.equal(c.clientCertificateManager, 'cm');
  assert.equal(c.endpointMustExist, false);
  assert.deepEqual(identityOf({ user: 'edge', password: 'x' }, opcua.UserTokenType), { type: 1, userName: 'edge', password: 'x' });
  assert.deepEqual(identityOf({ user: 'edge' }, opcua.UserTokenType), { type: 1, userName: 'edge', password: '' });
  assert.deepEqual(identityOf(undefined, opcua.UserTokenType), { type: 0 });
});

test('a connect: client, session, subscription when items are wanted, then connected and one session event', async () => {
  const s = setup({ monitor: ['a'], credentials: { user: 'edge', password: 'pw' } });
  assert.equal(s.link.fresh, true);
  await Promise.all([s.link.connect(), s.link.connect()]); // a second call shares the first
  assert.equal(s.world.clients.length, 1);
  assert.equal(s.world.clients[0].url, 'opc.tcp://plc:4840');
  assert.equal(s.world.sessions[0].identity.userName, 'edge');
  assert.equal(s.world.sessions[0].subscriptions.length, 1);
  assert.deepEqual(s.statuses, ['connecting', 'connected']);
  assert.equal(s.sessions(), 1);
  assert.equal(s.counters.connects, 1);
  assert.equal(s.counters.sessionsCreated, 1);
  assert.equal(s.link.live(), s.world.sessions[0]);
  assert.equal(s.link.fresh, false);
  s.link.refreshBytes();
  assert.deepEqual([s.counters.bytesOut, s.counters.bytesIn], [100, 50]);
});

test('a session without items subscribes nothing', async () => {
  const s = setup();
  await s.link.connect();
  assert.equal(s.world.sessions[0].subscriptions.length, 0);
});

test('a refused session is E_SESSION with the client given back; the next connect starts over', async () => {
  const s = setup();
  s.world.refuse.session = 'BadUserAccessDenied';
  await assert.rejects(s.link.connect(), (err) => err.code === 'E_SESSION' && /plc: no session: BadUserAccessDenied/.test(err.message));
  assert.equal(s.world.clients[0].disconnected, true);
  assert.deepEqual(s.statuses, ['connecting', 'error: BadUserAccessDenied']);
  assert.equal(s.link.live(), null);
  delete s.world.refuse.session;
  await s.link.connect();
  assert.equal(s.world.clients.length, 2);
  assert.equal(s.statuses.at(-1), 'connected');
});

test('a refused connection is E_CONNECT; a refused subscription is E_SUBSCRIBE with session and client given back', async () => {
  const a = setup();
  a.world.refuse.connect = 'ECONNREFUSED';
  await assert.rejects(a.link.connect(), { code: 'E_CONNECT' });
  assert.equal(a.world.clients[0].disconnected, true);
  assert.equal(a.counters.connects, 0);

  const b = setup({ monitor: ['a'] });
  b.world.refuse.subscription = 'BadTooManySubscriptions';
  await assert.rejects(b.link.connect(), (err) => err.code === 'E_SUBSCRIBE' && /no subscription/.test(err.message));
  assert.equal(b.world.sessions[0].closed, true);
  assert.equal(b.world.clients[0].disconnected, true);
  assert.equal(b.link.live(), null);
  assert.equal(b.sessions(), 0, 'no session event for a session given back');
});

test('node-opcua\'s reconnects show as status; a restored session is reported like a new one', async () => {
  const s = setup();
  await s.link.connect();
  const client = s.world.clients[0];
  client.emit('connection_lost');
  assert.equal(s.link.status, 'disconnected');
  assert.equal(s.link.live(), null, 'no requests while disconnected');
  client.emit('backoff');
  assert.equal(s.link.status, 'disconnected', 'back-off keeps disconnected');
  client.emit('connection_reestablished');
  assert.equal(s.link.status, 'connected');
  s.world.sessions[0].emit('session_restored');
  s.world.sessions[0].emit('keepalive_failure');
  client.emit('after_reconnection', new Error('BadSessionIdInvalid'));
  assert.equal(s.link.status, 'error');
  assert.equal(s.sessions(), 2);
  assert.deepEqual([s.counters.connectionsLost, s.counters.reconnects, s.counters.sessionsRestored, s.counters.keepAliveFailures], [1, 1, 1, 1]);
});

test('close gives back session and client, ends as disconnected, and no connect after it', async () => {
  const s = setup();
  await s.link.connect();
  await s.link.close();
  assert.equal(s.world.sessions[0].closed, true);
  assert.equal(s.world.clients[0].disconnected, true);
  assert.equal(s.statuses.at(-1), 'disconnected');
  await assert.rejects(s.link.connect(), { code: 'E_CLOSED' });
});

test('close while a connect is still retrying cuts it short: the connect ends as E_CLOSED, no error status', async () => {
  const s = setup();
  s.world.hang.connect = true;
  const outcome = s.link.connect().then(() => 'connected', (err) => err.code);
  await new Promise((r) => setImmediate(r));
  await s.link.close();
  assert.equal(await outcome, 'E_CLOSED');
  assert.equal(s.world.clients[0].disconnected, true);
  assert.deepEqual(s.statuses, ['connecting', 'disconnected']);
  assert.equal(s.counters.connects, 0);
});
