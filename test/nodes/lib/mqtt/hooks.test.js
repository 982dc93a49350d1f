'use strict';
/**
 * nodes/lib/mqtt/hooks.js: aedes' authenticate / authorizePublish / authorizeSubscribe hooks
 * called with stand-in clients, no sockets: who may log in, publish and subscribe, and what is
 * counted and reported when they may not.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const auth = require('../../../../nodes/lib/mqtt/auth');
const { createHooks } = require('../../../../nodes/lib/mqtt/hooks');
const { DEFAULTS } = require('../../../../nodes/lib/mqtt/server');

const USERS = auth.parseUsers('twin:tw:twin,twin2:tw2:twin,plc:pp:plc,e1:ee:edge@plant1');

function setup(o = {}) {
  const counters = {
    authFailures: 0, takeoverRefused: 0, publishRefused: 0, payloadRefused: 0, subscribeRefused: 0,
    persistentRefused: 0, rateLimited: 0, errorBudget: 0, messagesIn: 0, bytesIn: 0,
  };
  const reports = [];
  const clients = {};
  const states = [];
  const hooks = createHooks({
    o: { ...DEFAULTS, ...o }, counters, report: (ev) => reports.push(ev), authorizer: auth.createAuthorizer(USERS),
    clients: () => clients, onState: (p) => states.push(p.topic),
  });
  /** Log a stand-in client in as `user`; resolves with [err, ok]. */
  const login = (id, user, pw, extra = {}) => new Promise((resolve) => {
    const client = { id, clean: true, ...extra };
    hooks.authenticate(client, user, pw && Buffer.from(pw), (err, ok) => {
      if (ok) clients[id] = client;
      resolve({ client, err, ok });
    });
  });
  const publish = (client, topic, payload) => new Promise((resolve) => {
    const packet = { topic, payload: Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)), retain: true };
    hooks.authorizePublish(client, packet, (err) => resolve({ err, packet }));
  });
  const subscribe = (client, topic, qos = 0) => new Promise((resolve) => {
    hooks.authorizeSubscribe(client, { topic, qos }, (err, sub) => resolve({ err, sub }));
  });
  return { hooks, counters, reports, login, publish, subscribe, states };
}

test('a bad password or no user is refused with the CONNACK code MQTT expects', async () => {
  const s = setup();
  const bad = await s.login('a', 'twin', 'nope');
  assert.equal(bad.ok, false);
  assert.equal(bad.err.code, 'E_MQTT_AUTH');
  assert.equal(bad.err.returnCode, 4);
  assert.equal((await s.login('b')).err.returnCode, 5);
  assert.equal(s.counters.authFailures, 2);
  assert.equal(s.reports[0].code, 'E_MQTT_AUTH');
  const good = await s.login('c', 'twin', 'tw');
  assert.equal(good.ok, true);
  assert.equal(s.hooks.userOf(good.client).role, 'twin');
});

test('a client id held by another user is refused (identifier rejected); the same user may take it over', async () => {
  const s = setup();
  await s.login('plc-1', 'plc', 'pp');
  const thief = await s.login('plc-1', 'twin', 'tw');
  assert.equal(thief.err.code, 'E_MQTT_CLIENT_ID');
  assert.equal(thief.err.returnCode, 2);
  assert.equal(s.counters.takeoverRefused, 1);
  assert.equal((await s.login('plc-1', 'plc', 'pp')).ok, true);
});

test('publish: role, size and payload checked; a state feeds the snapshot; nothing is retained', async () => {
  const s = setup();
  const { client: twin } = await s.login('t', 'twin', 'tw');
  const { client: plc } = await s.login('p', 'plc', 'pp');
  const ok = await s.publish(twin, 's7twin/plant1/cmd', { se: 1 });
  assert.equal(ok.err, null);
  assert.equal(ok.packet.retain, false);
  assert.equal((await s.publish(twin, 's7twin/plant1/state', { c1: 1 })).err.code, 'E_MQTT_PUBLISH');
  assert.equal((await s.publish(twin, 's7twin/plant1/cmd', { c1: 1 })).err.code, 'E_NOT_WRITABLE');
  assert.equal((await s.publish(twin, 's7twin/plant1/cmd', 'x'.repeat(5000))).err.code, 'E_MQTT_TOO_LARGE');
  assert.equal((await s.publish(plc, 's7twin/plant1/state', { c1: 1 })).err, null);
  assert.deepEqual(s.states, ['s7twin/plant1/state']);
  assert.deepEqual([s.counters.publishRefused, s.counters.payloadRefused, s.counters.messagesIn], [1, 2, 2]);
  const will = await new Promise((r) => s.hooks.authorizePublish(null, { topic: 's7twin/plant1/cmd' }, r));
  assert.equal(will.code, 'E_MQTT_PUBLISH', 'a will without a client is refused');
});

test('each plant\'s commands are checked against its own table', async () => {
  const path = require('node:path');
  const { loadTable, demoTable } = require('../../../../nodes/lib/core/io-table');
  const tank = loadTable({ file: path.join(__dirname, '..', '..', '..', '..', 'examples', 'tables', 'tank.json') });
  const s = setup({ tableOf: (plant) => (plant === 'tank1' ? tank : demoTable()) });
  const { client } = await s.login('t', 'twin', 'tw');
  assert.equal((await s.publish(client, 's7twin/tank1/cmd', { sp: 42.5, rcp: 'Milk' })).err, null);
  assert.equal((await s.publish(client, 's7twin/tank1/cmd', { sp: 142.5 })).err.code, 'E_RANGE');
  assert.equal((await s.publish(client, 's7twin/plant1/cmd', { sp: 42.5 })).err.code, 'E_TYPE', 'sp is the demo plant\'s StopButton');
  assert.equal((await s.publish(client, 's7twin/plant1/cmd', { st: 1 })).err, null);
});

test('with payload checks off a bad command passes; the role is still checked', async () => {
  const s = setup({ validatePayloads: false });
  const { client: twin } = await s.login('t', 'twin', 'tw');
  assert.equal((await s.publish(twin, 's7twin/plant1/cmd', { c1: 1 })).err, null);
  assert.equal((await s.publish(twin, 's7twin/plant1/state', {})).err.code, 'E_MQTT_PUBLISH');
});

test('subscribe: a filter outside the role is granted as failure (0x80), the connection stays', async () => {
  const s = setup();
  const { client: twin } = await s.login('t', 'twin', 'tw');
  assert.deepEqual((await s.subscribe(twin, 's7twin/plant1/state')).sub, { topic: 's7twin/plant1/state', qos: 0 });
  const refused = await s.subscribe(twin, 's7twin/#');
  assert.equal(refused.err, null);
  assert.equal(refused.sub, null);
  assert.equal(s.counters.subscribeRefused, 1);
  assert.equal(s.reports.at(-1).code, 'E_MQTT_SUBSCRIBE');
});

test('a persistent session may not take commands at QoS 1, may at QoS 0; a clean one may at QoS 1', async () => {
  const s = setup();
  const { client: kept } = await s.login('p1', 'plc', 'pp', { clean: false });
  assert.equal((await s.subscribe(kept, 's7twin/plant1/cmd', 1)).sub, null);
  assert.equal(s.counters.persistentRefused, 1);
  assert.equal(s.reports.at(-1).code, 'E_MQTT_PERSISTENT');
  assert.ok((await s.subscribe(kept, 's7twin/plant1/cmd', 0)).sub);
  assert.ok((await s.subscribe(kept, 's7twin/+/probe/req', 0)).sub);
  const { client: clean } = await s.login('p2', 'plc', 'pp');
  assert.ok((await s.subscribe(clean, 's7twin/plant1/cmd', 1)).sub);
});

test('past its rate a twin is cut off with E_RATE_LIMIT; past its refusal budget with the budget code; the PLC is exempt', async () => {
  const s = setup({ ratePerS: 1, burst: 2, errors: 1, errorWindowMs: 60000 });
  const { client: twin } = await s.login('t', 'twin', 'tw');
  const { client: plc } = await s.login('p', 'plc', 'pp');
  const codes = [];
  for (let i = 0; i < 4; i++) codes.push((await s.publish(twin, 's7twin/plant1/cmd', { se: 1 })).err?.code);
  assert.ok(codes.includes('E_RATE_LIMIT'), codes.join());
  assert.equal(s.counters.rateLimited >= 1, true);
  for (let i = 0; i < 10; i++) assert.equal((await s.publish(plc, 's7twin/plant1/state', { c1: i % 2 })).err, null);
  const { client: other } = await s.login('t2', 'twin2', 'tw2');
  await s.subscribe(other, '#'); // one refusal: the budget
  const spent = await s.subscribe(other, 's7twin/#');
  assert.ok(spent.err, 'the second refusal is over the budget');
  assert.equal(s.counters.errorBudget, 1);
});

test('a link frame may be as large as a packet (the frame guard\'s limit), not only a command\'s 4 KiB; '
  + 'the edge\'s link has no rate limit', async () => {
  const s = setup({ ratePerS: 1, burst: 1 });
  const { client: edge } = await s.login('e', 'e1', 'ee');
  for (let i = 0; i < 5; i++) assert.equal((await s.publish(edge, 's7twin/plant1/link/up', 'x'.repeat(20000))).err, null);
  assert.equal((await s.publish(edge, 's7twin/plant1/link/up', 'x'.repeat(DEFAULTS.maxFrameBytes + 1))).err.code, 'E_MQTT_TOO_LARGE');
  assert.equal((await s.publish(edge, 's7twin/plant2/link/up', 'x')).err.code, 'E_MQTT_PUBLISH');
  assert.equal(s.counters.rateLimited, 0);
});
