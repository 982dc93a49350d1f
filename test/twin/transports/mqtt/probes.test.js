'use strict';
/** The MQTT transport's probe slots and their subscriptions (twin/transports/mqtt/probes.js), on a stand-in client. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createProbeSlots } = require('../../../../twin/transports/mqtt/probes');
const { topicsOf } = require('../../../../nodes/lib/mqtt/topics');

function fakeClient() {
  return { subs: [], subscribe(topic, opts, cb) { this.subs.push({ topic, opts, cb }); } };
}

function rig() {
  const T = topicsOf('plant1');
  const stats = { probesDropped: 0 };
  const errors = [];
  const published = [];
  const state = { client: fakeClient(), up: true };
  const probes = createProbeSlots({
    topics: T, qos: 1, stats, countError: (c, m) => errors.push([c, m]),
    client: () => state.client, up: () => state.up, publish: (t, obj) => published.push([t, obj]),
  });
  return { T, stats, errors, published, state, probes };
}

test('a slot\'s probes wait for its SUBACK, then go out in order; later ones go straight out', () => {
  const { T, published, state, probes } = rig();
  probes.probe(3, 1);
  probes.probe(3, 2);
  assert.equal(state.client.subs.length, 1, 'one subscription per slot');
  assert.equal(state.client.subs[0].topic, T.res(3));
  assert.equal(state.client.subs[0].opts.qos, 1);
  assert.deepEqual(published, [], 'no probe before its answer topic is granted');
  state.client.subs[0].cb(null);
  assert.deepEqual(published, [[T.req, { i: 3, v: 1 }], [T.req, { i: 3, v: 2 }]]);
  probes.probe(3, 3);
  assert.deepEqual(published[2], [T.req, { i: 3, v: 3 }]);
  assert.equal(state.client.subs.length, 1);
});

test('a refused subscription drops its probes; a probe while down is dropped', () => {
  const { T, stats, errors, published, state, probes } = rig();
  probes.probe(5, 1);
  probes.probe(5, 2);
  state.client.subs[0].cb(new Error('SUBACK 0x80'));
  assert.equal(stats.probesDropped, 2);
  assert.deepEqual(errors, [['E_MQTT_SUBSCRIBE', `${T.res(5)}: SUBACK 0x80`]]);
  state.up = false;
  probes.probe(5, 3);
  assert.equal(stats.probesDropped, 3);
  assert.deepEqual(published, []);
  assert.equal(state.client.subs.length, 1, 'nothing asked of a client that is down');
});

test('a new connection subscribes every slot again; an old connection\'s SUBACK is ignored', () => {
  const { T, stats, published, state, probes } = rig();
  probes.probe(1, 10);
  state.client.subs[0].cb(null); // slot 1 granted
  probes.probe(2, 20); // slot 2 waits for its SUBACK
  const old = state.client;
  state.client = fakeClient(); // reconnected
  probes.resubscribe();
  assert.equal(stats.probesDropped, 1, 'the probe that waited for the old SUBACK is lost');
  assert.deepEqual(state.client.subs.map((s) => s.topic), [T.res(1), T.res(2)]);
  old.subs[1].cb(null); // late SUBACK of the old connection
  assert.equal(published.length, 1, 'ignored');
  probes.probe(1, 11);
  assert.equal(published.length, 1, 'slot 1 waits for its new SUBACK');
  state.client.subs[0].cb(null);
  assert.deepEqual(published[1], [T.req, { i: 1, v: 11 }]);
});
