'use strict';
/**
 * system/link.js: which link path a system runs, and what it refuses (one edge link per system).
 * Starting each broker for the link is test/e2e/link-transports.test.js's.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { linkPathOf, brokerService } = require('../../system/link');

test('linkPathOf: none for the WebSocket link, the link path when one is asked for', () => {
  assert.equal(linkPathOf(['ws', 'mqtt', 'opcua']), null);
  assert.equal(linkPathOf([]), null);
  const p = linkPathOf(['ws-amqp']);
  assert.equal(p.id, 'ws-amqp');
  assert.equal(p.link, 'amqp');
  // Paths whose edge flows are not the WebSocket link's run beside a link path.
  assert.equal(linkPathOf(['ws-kafka', 'opcua', 'modbus']).id, 'ws-kafka');
});

test('linkPathOf: two links in one system are refused, saying which', () => {
  for (const want of [['ws-amqp', 'ws-kafka'], ['ws-zmq', 'ws'], ['ws-mqtt', 'http'], ['ws-mqtt', 'ws-mosquitto']]) {
    assert.throws(() => linkPathOf(want), (err) => err.code === 'E_SYSTEM_ARGS' && want.every((id) => err.message.includes(id)), want.join(','));
  }
});

test('brokerService: the broker the launcher starts for a link path, none for the bundle\'s MQTT broker and ZeroMQ', () => {
  assert.equal(brokerService(linkPathOf(['ws-amqp'])), 'rabbitmq');
  assert.equal(brokerService(linkPathOf(['ws-kafka'])), 'kafka');
  assert.equal(brokerService(linkPathOf(['ws-mosquitto'])), 'mosquitto');
  assert.equal(brokerService(linkPathOf(['ws-mqtt'])), null);
  assert.equal(brokerService(linkPathOf(['ws-zmq'])), null);
});
