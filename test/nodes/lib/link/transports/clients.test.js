'use strict';
/** lib/link/transports/clients.js: each transport's npm client, loaded when first used. */
const test = require('node:test');
const assert = require('node:assert/strict');
const Module = require('node:module');
const { loadClient, PACKAGES } = require('../../../../../nodes/lib/link/transports/clients');

test('each broker transport names its npm client, and loads it once', () => {
  assert.deepEqual(PACKAGES, { amqp: 'amqplib', kafka: '@platformatic/kafka', mqtt: 'mqtt', zmq: 'zeromq' });
  assert.equal(loadClient('mqtt'), loadClient('mqtt'));
  assert.equal(typeof loadClient('amqp').connect, 'function');
  assert.equal(typeof loadClient('zmq').Router, 'function');
});

test('a client that is not installed is E_LINK_CLIENT_MISSING, saying what to install', (t) => {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === '@platformatic/kafka') throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
    return resolve.call(this, request, ...rest);
  };
  t.after(() => { Module._resolveFilename = resolve; });
  delete require.cache[require.resolve('../../../../../nodes/lib/link/transports/clients')];
  const fresh = require('../../../../../nodes/lib/link/transports/clients');
  assert.throws(() => fresh.loadClient('kafka'), (err) => err.code === 'E_LINK_CLIENT_MISSING' && /npm install @platformatic\/kafka/.test(err.message));
});
