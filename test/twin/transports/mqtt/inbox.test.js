'use strict';
/** What the MQTT transport receives (twin/transports/mqtt/inbox.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createInbox, STREAMED } = require('../../../../twin/transports/mqtt/inbox');
const { topicsOf } = require('../../../../nodes/lib/mqtt/topics');

function rig() {
  const T = topicsOf('plant1');
  const stats = { received: 0, payloadBytesIn: 0, badFrames: 0, snapshots: 0, resyncs: 0 };
  const errors = [];
  const resent = [];
  const values = [];
  const probes = [];
  const image = {};
  const state = { up: true };
  const onMessage = createInbox({
    topics: T, plant: 'plant1', stats, countError: (c) => errors.push(c), image, up: () => state.up,
    resendImage: (d) => resent.push(d), valueCbs: [(v, kind) => values.push([kind, v])], probeCbs: [(slot, v) => probes.push([slot, v])],
  });
  return { T, stats, errors, resent, values, probes, image, state, onMessage };
}

const buf = (obj) => Buffer.from(JSON.stringify(obj));
const WHOLE = Object.fromEntries(STREAMED.map((k) => [k, 0]));

test('the retained state is a snap, a live one a state; a bad payload is counted and dropped', () => {
  const { T, stats, errors, values, onMessage } = rig();
  onMessage(T.state, buf({ c1: 1 }), { retain: true });
  onMessage(T.state, buf({ c1: 0 }), { retain: false });
  onMessage(T.state, Buffer.from('{not json'), {});
  assert.deepEqual(values, [['snap', { c1: 1 }], ['state', { c1: 0 }]]);
  assert.equal(stats.snapshots, 1);
  assert.equal(stats.received, 3);
  assert.equal(stats.badFrames, 1);
  assert.equal(errors.length, 1);
  assert.ok(stats.payloadBytesIn > 20);
});

test('the PLC\'s whole image (it reconnected) is answered with the twin\'s whole input image', () => {
  const { T, stats, resent, values, image, state, onMessage } = rig();
  onMessage(T.state, buf(WHOLE), {});
  assert.deepEqual(resent, [], 'nothing to answer with before the twin sent anything');
  Object.assign(image, { st: 0, se: 1 });
  onMessage(T.state, buf({ c1: 1 }), {});
  assert.deepEqual(resent, [], 'a change is not a whole image');
  onMessage(T.state, buf(WHOLE), { retain: true });
  assert.deepEqual(resent, [], 'nor is the broker\'s retained snapshot');
  onMessage(T.state, buf(WHOLE), {});
  assert.deepEqual(resent, [{ st: 0, se: 1 }]);
  assert.equal(stats.resyncs, 1);
  state.up = false;
  onMessage(T.state, buf(WHOLE), {});
  assert.equal(resent.length, 1, 'not while disconnected');
  assert.equal(values.length, 5, 'every state still goes to the twin');
});

test('probe answers on this plant\'s response topics; other topics are ignored', () => {
  const { T, probes, values, onMessage } = rig();
  onMessage(T.res(4), buf({ i: 4, v: 99 }), {});
  onMessage('s7twin/plant2/probe/res/4', buf({ i: 4, v: 1 }), {});
  onMessage('s7twin/plant1/something', buf({}), {});
  assert.deepEqual(probes, [[4, 99]]);
  assert.deepEqual(values, []);
});
