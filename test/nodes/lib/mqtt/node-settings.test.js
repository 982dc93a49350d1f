'use strict';
/** nodes/lib/mqtt/node-settings.js: the broker node's options, and its refusals reported without flooding. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { portSetting, brokerOptions, createRefusalLog, statusText } = require('../../../../nodes/lib/mqtt/node-settings');

test('portSetting: a port, off, or E_MQTT_CONFIG', () => {
  assert.equal(portSetting('1884', 1883), 1884);
  assert.equal(portSetting('', 1883), 1883);
  for (const off of ['off', 'OFF', '-', 'none', false]) assert.equal(portSetting(off, 1883), null, String(off));
  assert.throws(() => portSetting('70000', 1883), { code: 'E_MQTT_CONFIG' });
  assert.throws(() => portSetting('x', 1883), { code: 'E_MQTT_CONFIG' });
});

test('brokerOptions: the node\'s settings, the users from credentials before the environment, the fleet\'s Redis', () => {
  const o = brokerOptions({ port: '0', wsPort: 'off', validate: false, snapshot: 'false', ratePerS: '7' }, { users: 'a:b:twin' },
    { S7T_MQTT_USERS: 'x:y:plc', S7T_REDIS_URL: 'redis://r' });
  assert.equal(o.port, 0);
  assert.equal(o.wsPort, null);
  assert.equal(o.validatePayloads, false);
  assert.equal(o.snapshot, false);
  assert.equal(o.noDelay, true);
  assert.deepEqual([o.ratePerS, o.burst], [7, 14]);
  assert.equal(o.users, 'a:b:twin');
  assert.equal(o.redisUrl, 'redis://r');
  assert.equal(o.tls, null);
  const fromEnv = brokerOptions({ usersEnv: 'MY_USERS' }, undefined, { MY_USERS: 'm:n:monitor' });
  assert.equal(fromEnv.users, 'm:n:monitor');
  assert.equal(fromEnv.redisUrl, null);
  assert.throws(() => brokerOptions({}, undefined, { S7T_TLS_KEY: '/k.pem' }), { code: 'E_TLS_CONFIG' });
});

test('refusals: at most perS a second on the output, the rest counted; one log line per logMs with the count left out', () => {
  let t = 10000; // wall-clock ms
  const sent = [];
  const warned = [];
  const log = createRefusalLog({ perS: 2, logMs: 1000, send: (ev) => sent.push(ev), warn: (w) => warned.push(w), now: () => t });
  const ev = { code: 'E_MQTT_AUTH', message: 'bad', user: 'u' };
  for (let i = 0; i < 5; i++) log.report(ev);
  assert.equal(sent.length, 2);
  assert.equal(log.dropped, 3);
  assert.deepEqual(warned, ['E_MQTT_AUTH: bad (user u)']);
  t = 11000;
  log.report(ev);
  assert.equal(sent.length, 3, 'a new second');
  assert.deepEqual(warned[1], 'E_MQTT_AUTH: bad (user u) (+4 more not logged)');
});

test('statusText counts clients, messages and every kind of refusal', () => {
  const c = {
    clients: 1, messagesIn: 5, authFailures: 1, publishRefused: 1, subscribeRefused: 0, payloadRefused: 0, oversized: 0, takeoverRefused: 0,
    rateLimited: 1, errorBudget: 0,
  };
  assert.equal(statusText(c), '1 client, 5 msgs, 3 refused');
  assert.equal(statusText({ ...c, clients: 2, authFailures: 0, publishRefused: 0, rateLimited: 0 }), '2 clients, 5 msgs');
});
