'use strict';
/** nodes/lib/opcua/session-options.js: a client session's options, checked, and its subscription parameters. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { sessionOptions, subscriptionParameters, DEFAULTS, OpcuaSessionError } = require('../../../../nodes/lib/opcua/session-options');

const URL = 'opc.tcp://127.0.0.1:4841';

test('defaults fill what is not given; an option given as undefined keeps its default; the name defaults to the URL', () => {
  const o = sessionOptions({ endpointUrl: URL, publishingIntervalMs: undefined, samplingIntervalMs: 0 });
  assert.equal(o.publishingIntervalMs, DEFAULTS.publishingIntervalMs);
  assert.equal(o.samplingIntervalMs, 0);
  assert.equal(o.name, URL);
  assert.equal(o.securityMode, 'None');
  assert.equal(o.securityPolicy, 'None');
  assert.equal(sessionOptions({ endpointUrl: URL, name: 'plc' }).name, 'plc');
});

test('bad endpoints and security settings are refused with E_CONFIG', () => {
  for (const opts of [undefined, {}, { endpointUrl: 'http://x' }, { endpointUrl: URL, securityMode: 'Fast' },
    { endpointUrl: URL, securityPolicy: 'Basic128' }, { endpointUrl: URL, securityMode: 'SignAndEncrypt' },
    { endpointUrl: URL, securityPolicy: 'Basic256Sha256' }]) {
    assert.throws(() => sessionOptions(opts), (err) => err instanceof OpcuaSessionError && err.code === 'E_CONFIG', JSON.stringify(opts));
  }
  const secure = sessionOptions({ endpointUrl: URL, securityMode: 'SignAndEncrypt', securityPolicy: 'Basic256Sha256' });
  assert.equal(secure.securityMode, 'SignAndEncrypt');
});

test('subscription parameters: a keep-alive period that fits in the session timeout, a lifetime of at least three of them', () => {
  const fast = subscriptionParameters(sessionOptions({ endpointUrl: URL }));
  assert.equal(fast.requestedPublishingInterval, 10);
  assert.equal(fast.requestedMaxKeepAliveCount, 100);
  assert.equal(fast.requestedLifetimeCount, 1000);
  // 400 ms publishing: 100 x 400 ms would outlast the 20 s session, which node-opcua refuses.
  const slow = subscriptionParameters(sessionOptions({ endpointUrl: URL, publishingIntervalMs: 400 }));
  assert.equal(slow.requestedMaxKeepAliveCount, 25);
  assert.ok(slow.requestedMaxKeepAliveCount * 400 <= DEFAULTS.sessionTimeoutMs);
  const verySlow = subscriptionParameters(sessionOptions({ endpointUrl: URL, publishingIntervalMs: 60000, lifetimeCount: 1 }));
  assert.equal(verySlow.requestedMaxKeepAliveCount, 3, 'never fewer than 3');
  assert.equal(verySlow.requestedLifetimeCount, 9);
});
