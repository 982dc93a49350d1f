'use strict';
/** nodes/lib/mqtt/snapshot.js: each plant's merged state handed, retained, to new subscribers. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSnapshots } = require('../../../../nodes/lib/mqtt/snapshot');

const pkt = (plant, values) => ({ topic: `s7twin/${plant}/state`, payload: Buffer.from(JSON.stringify(values)) });
function fakeClient() {
  const got = [];
  return { got, publish: (p, cb) => { got.push({ topic: p.topic, retain: p.retain, values: JSON.parse(p.payload) }); cb(); } };
}

test('states merge per plant; a payload that is not a state changes nothing', () => {
  const s = createSnapshots({ cluster: null, counters: { snapshots: 0 }, isClosed: () => false });
  s.merge(pkt('p1', { c1: 0, red: 1 }));
  s.merge(pkt('p1', { c1: 1 }));
  s.merge({ topic: 's7twin/p1/state', payload: Buffer.from('not json') });
  s.merge(pkt('p2', { grn: 1 }));
  assert.deepEqual(s.get('p1'), { c1: 1, red: 1 });
  assert.deepEqual(s.get('p2'), { grn: 1 });
  assert.equal(s.get('p3'), undefined);
  const copy = s.get('p1');
  copy.c1 = 9;
  assert.equal(s.get('p1').c1, 1, 'get hands out a copy');
});

test('a new subscriber gets the merge of every plant its filter matches, retained; refused filters get nothing', () => {
  const counters = { snapshots: 0 };
  const s = createSnapshots({ cluster: null, counters, isClosed: () => false });
  s.merge(pkt('p1', { c1: 1 }));
  s.merge(pkt('p2', { c1: 0 }));
  const c = fakeClient();
  s.onSubscribe([{ topic: 's7twin/+/state', qos: 0 }, { topic: 's7twin/p1/state', qos: 128 }, { topic: 's7twin/p1/probe/res/+', qos: 0 }], c);
  assert.deepEqual(c.got, [
    { topic: 's7twin/p1/state', retain: true, values: { c1: 1 } },
    { topic: 's7twin/p2/state', retain: true, values: { c1: 0 } },
  ]);
  assert.equal(counters.snapshots, 2);
});

test('in a fleet: states are stored, a plant not seen here is loaded, the emitter\'s states merge without storing again', async () => {
  const stored = [];
  let onState = null;
  const cluster = {
    store: { merge: (plant, v) => stored.push([plant, v]), load: async (plant) => (plant === 'far' ? { grn: 1 } : {}) },
  };
  let closed = false;
  const s = createSnapshots({ cluster, counters: { snapshots: 0 }, isClosed: () => closed });
  s.attach({ mq: { on: (filter, fn) => { assert.equal(filter, 's7twin/+/state'); onState = fn; } } });
  s.merge(pkt('p1', { c1: 1 }));
  assert.deepEqual(stored, [['p1', { c1: 1 }]]);
  await new Promise((r) => onState(pkt('p1', { red: 1 }), r));
  assert.equal(stored.length, 1, 'the emitter\'s copy is not stored again');
  assert.deepEqual(s.get('p1'), { c1: 1, red: 1 });
  const c = fakeClient();
  s.onSubscribe([{ topic: 's7twin/far/state', qos: 0 }, { topic: 's7twin/none/state', qos: 0 }], c);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(c.got, [{ topic: 's7twin/far/state', retain: true, values: { grn: 1 } }]);
  const late = fakeClient();
  cluster.store.load = async () => { closed = true; return { grn: 1 }; }; // the broker closes meanwhile
  s.onSubscribe([{ topic: 's7twin/far2/state', qos: 0 }], late);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(late.got, [], 'nothing sent once closing');
});
