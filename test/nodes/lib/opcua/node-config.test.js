'use strict';
/** nodes/lib/opcua/node-config.js: the two OPC UA nodes' options from their properties, without RED. */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { numberOr } = require('../../../../nodes/lib/core/props');
const { serverNodeOptions, usesDefaultPassword, bridgeNodeOptions } = require('../../../../nodes/lib/opcua/node-config');

/** A number reader that records its warnings, as numberReader does for a node. */
function reader() {
  const warnings = [];
  const num = (name, v, dflt) => numberOr(v, dflt, (s) => warnings.push(`${name} "${s}"`));
  return { num, warnings };
}

test('server: empty properties take the defaults; the PKI goes below the user folder; the rate sets the burst', () => {
  const { num, warnings } = reader();
  const o = serverNodeOptions({ host: ' ', port: '', ratePerS: '50', probeSlots: 'many' }, {
    credentials: { twinPassword: 'tw' }, env: { S7T_OPCUA_EDGE_PASSWORD: 'ed' }, userDir: '/data', num,
  });
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.port, 4841);
  assert.equal(o.publicHost, undefined);
  assert.equal(o.plant, undefined);
  assert.deepEqual([o.ratePerS, o.burst], [50, 100]);
  assert.equal(o.probeSlots, 128);
  assert.deepEqual(warnings, ['Probe slots "many"']);
  assert.equal(o.pkiDir, path.join('/data', 'opcua-pki', 'server'));
  assert.deepEqual(o.users, { twin: { user: 'twin', password: 'tw' }, edge: { user: 'edge', password: 'ed' } });
  assert.deepEqual([o.allowInsecure, o.allowAnonymous, o.autoAcceptCertificates], [true, false, true]);
  assert.deepEqual(o.initialValues, {});
  assert.equal(usesDefaultPassword(o), false);
});

test('server: yes/no settings as booleans or text; the node\'s credentials win over the environment', () => {
  const { num } = reader();
  const o = serverNodeOptions({
    allowInsecure: 'false', allowAnonymous: 'true', autoAcceptCertificates: false, twinUser: ' t2 ', plant: 'p2', publicHost: 'cloud',
  }, { credentials: { twinPassword: 'a', edgePassword: 'edge' }, env: { S7T_OPCUA_TWIN_PASSWORD: 'env' }, userDir: '/d', num, initialValues: { st: 1 } });
  assert.deepEqual([o.allowInsecure, o.allowAnonymous, o.autoAcceptCertificates], [false, true, false]);
  assert.equal(o.users.twin.user, 't2');
  assert.equal(o.users.twin.password, 'a');
  assert.equal(o.plant, 'p2');
  assert.equal(o.publicHost, 'cloud');
  assert.deepEqual(o.initialValues, { st: 1 });
  assert.equal(usesDefaultPassword(o), true, 'the edge account\'s default password');
});

test('server: no password for an account, no start (E_NO_CREDENTIAL naming what is missing)', () => {
  const { num } = reader();
  assert.throws(() => serverNodeOptions({}, { credentials: {}, env: {}, userDir: '/d', num }),
    (err) => err.code === 'E_NO_CREDENTIAL' && /twin \(S7T_OPCUA_TWIN_PASSWORD\) and the edge \(S7T_OPCUA_EDGE_PASSWORD\)/.test(err.message));
  assert.throws(() => serverNodeOptions({}, { credentials: { twinPassword: 'x' }, env: {}, userDir: '/d', num }),
    (err) => err.code === 'E_NO_CREDENTIAL' && !/twin \(/.test(err.message) && /edge \(/.test(err.message));
});

test('bridge: URLs with host and port filled in, the edge account, PKI below the user folder', () => {
  const { num } = reader();
  const o = bridgeNodeOptions({ plcUrl: 'opc.tcp://:', cloudUrl: 'opc.tcp://cloud:4999', cloudUser: '', publishingInterval: '20', samplingInterval: '' }, {
    credentials: {}, env: { S7T_OPCUA_EDGE_PASSWORD: 'ed' }, userDir: '/data', num,
  });
  assert.equal(o.plcEndpoint, 'opc.tcp://127.0.0.1:4840');
  assert.equal(o.cloudEndpoint, 'opc.tcp://cloud:4999');
  assert.deepEqual(o.cloudCredentials, { user: 'edge', password: 'ed' });
  assert.deepEqual([o.cloudSecurityMode, o.cloudSecurityPolicy], ['None', 'None']);
  assert.deepEqual([o.publishingIntervalMs, o.samplingIntervalMs, o.probeSlots], [20, 10, 128]);
  assert.equal(o.pkiDir, path.join('/data', 'opcua-pki', 'client'));
  const fromCredentials = bridgeNodeOptions({}, { credentials: { cloudPassword: 'c' }, env: { S7T_OPCUA_EDGE_PASSWORD: 'e' }, userDir: '/d', num });
  assert.equal(fromCredentials.cloudCredentials.password, 'c');
});

test('bridge: no password, no connection (E_NO_CREDENTIAL); a URL that is no opc.tcp URL is E_CONFIG', () => {
  const { num } = reader();
  assert.throws(() => bridgeNodeOptions({}, { credentials: {}, env: {}, userDir: '/d', num }), { code: 'E_NO_CREDENTIAL' });
  assert.throws(() => bridgeNodeOptions({ plcUrl: 'http://plc' }, { credentials: { cloudPassword: 'c' }, env: {}, userDir: '/d', num }), { code: 'E_CONFIG' });
});
