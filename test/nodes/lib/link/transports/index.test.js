'use strict';
/** lib/link/transports/index.js: which transports there are, their names, their addresses. */
const test = require('node:test');
const assert = require('node:assert/strict');
const transports = require('../../../../../nodes/lib/link/transports');

test('transport ids: WebSocket by default, the names users write, anything else E_LINK_TRANSPORT', () => {
  assert.deepEqual(transports.IDS, ['ws', 'amqp', 'kafka', 'mqtt', 'zmq']);
  assert.equal(transports.transportId(undefined), 'ws');
  assert.equal(transports.transportId(''), 'ws');
  assert.equal(transports.transportId(' AMQP '), 'amqp');
  assert.equal(transports.transportId('rabbitmq'), 'amqp');
  assert.equal(transports.transportId('zeromq'), 'zmq');
  assert.equal(transports.transportId('websocket'), 'ws');
  assert.throws(() => transports.transportId('carrier-pigeon'), { code: 'E_LINK_TRANSPORT' });
});

test('a broker URL: its scheme checked, its login taken out of it', () => {
  assert.deepEqual(transports.brokerUrl('amqp', 'amqp://s7t:p%40ss@127.0.0.1:5672/plant'), { url: 'amqp://127.0.0.1:5672/plant', username: 's7t', password: 'p@ss' });
  assert.deepEqual(transports.brokerUrl('kafka', 'kafka://127.0.0.1:9092'), { url: 'kafka://127.0.0.1:9092' });
  assert.deepEqual(transports.brokerUrl('zmq', 'tcp://127.0.0.1:5560'), { url: 'tcp://127.0.0.1:5560' });
  assert.deepEqual(transports.brokerUrl('mqtt', 'mqtt://a:b@localhost:1883'), { url: 'mqtt://localhost:1883', username: 'a', password: 'b' });
  assert.throws(() => transports.brokerUrl('amqp', 'ws://127.0.0.1:1880/s7twin/edge'), { code: 'E_LINK_URL' });
  assert.throws(() => transports.brokerUrl('kafka', 'not a url'), { code: 'E_LINK_URL' });
  assert.throws(() => transports.listen('ws', {}), { code: 'E_LINK_TRANSPORT' });
});

test('every transport but WebSocket has a carrier for both ends and a development address', () => {
  for (const id of transports.IDS.filter((x) => x !== 'ws')) {
    const t = transports.TRANSPORTS[id];
    const carrier = require(`../../../../../nodes/lib/link/transports/${t.carrier.slice(2)}`);
    assert.equal(typeof carrier.cloudCarrier, 'function', id);
    assert.equal(typeof carrier.edgeCarrier, 'function', id);
    assert.ok(t.schemes.includes(`${new URL(t.url).protocol}`), id);
  }
});
