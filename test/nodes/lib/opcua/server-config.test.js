'use strict';
/** nodes/lib/opcua/server-config.js: the cloud server's configuration, checked, and node-opcua's options from it. */
const { demoTable } = require('../../../../nodes/lib/core/io-table');
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const cfgs = require('../../../../nodes/lib/opcua/server-config');

const enums = {
  SecurityPolicy: { None: 'None', Basic256Sha256: 'Basic256Sha256' },
  MessageSecurityMode: { None: 1, SignAndEncrypt: 3 },
};

test('defaults, and the name it advertises: the bind address, or the host name when it binds every interface', () => {
  const c = cfgs.serverConfig({});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.publicHost, '127.0.0.1');
  assert.equal(c.port, 4841);
  assert.equal(c.plant, 'plant1');
  assert.deepEqual(c.users, cfgs.DEFAULTS.users);
  assert.equal(cfgs.endpointUrlOf(c), 'opc.tcp://127.0.0.1:4841');
  const all = cfgs.serverConfig({ host: '0.0.0.0', port: 4999 });
  assert.equal(all.publicHost, os.hostname());
  assert.equal(cfgs.endpointUrlOf(all), `opc.tcp://${os.hostname()}:4999`);
  const named = cfgs.serverConfig({ host: '::', publicHost: 'cloud' });
  assert.equal(cfgs.endpointUrlOf(named), 'opc.tcp://cloud:4841');
  assert.equal(cfgs.serverConfig({ users: { twin: { password: 'x' } } }).users.twin.user, 'twin', 'one field given, the other default');
});

test('bad configurations are refused with E_CONFIG before anything listens', () => {
  for (const opts of [{ port: 0 }, { port: 70000 }, { port: 1.5 }, { minimumSamplingIntervalMs: -1 }, { probeSlots: -1 },
    { probeSlots: demoTable().PROBE_SLOTS + 1 }, { probeSlots: 1.5 }, { users: { twin: { user: 'x' }, edge: { user: 'x' } } }]) {
    assert.throws(() => cfgs.serverConfig(opts), (err) => err instanceof cfgs.OpcuaServerError && err.code === 'E_CONFIG', JSON.stringify(opts));
  }
  assert.throws(() => cfgs.serverConfig({ plant: 'a b' }), { code: 'E_PLANT' });
  assert.equal(cfgs.serverConfig({ probeSlots: 0 }).probeSlots, 0);
});

test('server options: None offered first only when insecure is allowed; it listens on host and advertises publicHost', () => {
  const parts = { serverCertificateManager: 'cm', userManager: 'um' };
  const insecure = cfgs.serverOptions(cfgs.serverConfig({ host: '0.0.0.0', publicHost: 'cloud' }), enums, parts);
  assert.deepEqual(insecure.securityPolicies, ['None', 'Basic256Sha256']);
  assert.deepEqual(insecure.securityModes, [1, 3]);
  assert.equal(insecure.host, '0.0.0.0');
  assert.equal(insecure.hostname, 'cloud');
  assert.deepEqual(insecure.alternateHostname, ['cloud'], 'a wildcard is no name');
  assert.equal(insecure.userManager, 'um');
  const secure = cfgs.serverOptions(cfgs.serverConfig({ allowInsecure: false, maxSessions: 7 }), enums, parts);
  assert.deepEqual(secure.securityPolicies, ['Basic256Sha256']);
  assert.deepEqual(secure.securityModes, [3]);
  assert.equal(secure.maxConnectionsPerEndpoint, 7);
  assert.equal(secure.serverInfo.applicationUri, 'urn:s7twin:plant1:cloud');
});

test('counters start at 0', () => {
  const c = cfgs.serverCounters();
  assert.ok(Object.values(c).every((v) => v === 0));
  assert.ok('rateLimited' in c && 'probeDenied' in c);
  assert.notEqual(cfgs.serverCounters(), c, 'a fresh object each time');
});
