'use strict';
/**
 * What every twin transport shares comes from twin/transports/common.js: one TransportError
 * class, and one error counter that keeps a bounded set of codes (the OPC UA transport's own copy
 * had lost its cap).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const common = require('../../../twin/transports/common');

test('every transport throws the one TransportError of common.js', () => {
  for (const name of ['ws', 'mqtt', 'mqttws', 'modbus', 'opcua', 'http']) {
    const mod = require(`../../../twin/transports/${name}`);
    assert.equal(mod.TransportError, common.TransportError, name);
    // A bad configuration is refused with it, not a crash of another kind.
    assert.throws(() => mod.createTransport({ url: '' }), (err) => err instanceof common.TransportError && err.code === 'E_TRANSPORT_CONFIG', name);
  }
});

test('the error counter counts every error but remembers at most max distinct codes, and the last one', () => {
  const stats = { errors: 0, errorCodes: {} };
  const lines = [];
  const count = common.createErrorCounter(stats, { max: 3, log: (l) => lines.push(l), label: 'opcua transport' });
  for (let i = 0; i < 10; i += 1) count(`E_${i}`, `message ${i}`);
  count('E_0');
  assert.equal(stats.errors, 11);
  assert.deepEqual(stats.errorCodes, { E_0: 2, E_1: 1, E_2: 1 });
  assert.equal(stats.lastError, 'E_0');
  assert.equal(lines[0], 'opcua transport: E_0: message 0');
});

test('the connect waiter: each wait settles once, by the connection, a rejection or its own timeout', async () => {
  const w = common.createConnectWaiter((code, msg) => new common.TransportError(code, msg));
  assert.equal(w.reject(new Error('nobody')), false, 'nobody waiting: the caller reports the error itself');
  let why = 'first';
  const a = w.wait(20, () => `gave up (${why})`);
  const b = w.wait(5000, () => 'not this one');
  why = 'second';
  await assert.rejects(a, (err) => err.code === 'E_CONNECT_TIMEOUT' && err.message === 'gave up (second)', 'the message is made when the time is up');
  assert.equal(w.waiting, true, 'the other wait goes on after the first timed out');
  w.resolve();
  await b;
  assert.equal(w.waiting, false);
  const c = w.wait(5000, () => '');
  assert.equal(w.reject(new common.TransportError('E_CLOSED', 'closed')), true);
  await assert.rejects(c, { code: 'E_CLOSED' });
});
