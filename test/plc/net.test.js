'use strict';
/**
 * The one free-port helper (plc/net.js) and the one wait-for (system/wait.js) that the PLC,
 * the bench and the tests share.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { freePort, freePorts } = require('../../plc/net');
const { waitFor } = require('../../system/wait');

const canListen = (port) => new Promise((resolve) => {
  const srv = net.createServer();
  srv.once('error', () => resolve(false));
  srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
});

test('freePort gives a port on loopback that can be bound', async () => {
  const port = await freePort();
  assert.ok(Number.isInteger(port) && port > 0);
  assert.equal(await canListen(port), true);
});

test('freePorts gives one distinct port per name', async () => {
  const names = ['a', 'b', 'c', 'd', 'e', 'f'];
  const ports = await freePorts(names);
  assert.deepEqual(Object.keys(ports), names);
  assert.equal(new Set(Object.values(ports)).size, names.length);
});

test('freePorts on a host it cannot bind rejects and leaves nothing open', async () => {
  await assert.rejects(freePorts(['a', 'b'], '192.0.2.1'), { code: 'EADDRNOTAVAIL' });
});

test('waitFor returns the first truthy value, a throw counting as not yet', async () => {
  let n = 0;
  const v = await waitFor(() => { n += 1; if (n < 3) throw new Error('not yet'); return { n }; }, 5000, 'three calls', 1);
  assert.deepEqual(v, { n: 3 });
});

test('waitFor rejects with E_TIMEOUT naming what it waited for and the last value seen', async () => {
  await assert.rejects(waitFor(() => 0, 50, 'the impossible', 5), (err) => err.code === 'E_TIMEOUT' && /the impossible/.test(err.message) && /last: 0/.test(err.message));
  await assert.rejects(waitFor(() => { throw new Error('boom'); }, 50, 'x', 5), /last: boom/);
});
