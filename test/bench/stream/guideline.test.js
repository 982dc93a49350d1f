'use strict';
/**
 * bench/stream/guideline.js: the study's Table 8 rerun with our numbers: per throughput, location
 * and objective, the best link for small streams sent often and large ones sent rarely, ties within
 * 10 % named too, a link that lost samples ranked after those that lost none.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { pickBest, rerun } = require('../../../bench/stream/guideline');

test('the best, its ties within 10 %, the lossy last', () => {
  const r = pickBest([{ transport: 'a', value: 10 }, { transport: 'b', value: 10.9 }, { transport: 'c', value: 12 }, { transport: 'd', value: 5, lost: 40 },
    { transport: 'e', value: null }]);
  assert.deepEqual(r.best, ['a', 'b']);
  assert.equal(r.value, 10);
  assert.deepEqual(r.ranked.map((x) => x.transport), ['a', 'b', 'c', 'd']);
  assert.deepEqual(pickBest([{ transport: 'd', value: 5, lost: 1 }, { transport: 'f', value: 9, lost: 2 }]).best, ['d'], 'all lost: the best of them');
  assert.deepEqual(pickBest([]).best, []);
});

test('cases per throughput, location, objective and regime', () => {
  const cells = [];
  const add = (profile, transport, kb, rate, latency, jitter) => cells.push({ profile, transport, mbps: 1, kb, rate, latency, jitter, lost: 0 });
  add('local', 'zmq', 25, 40, 2, 0.5); add('local', 'amqp', 25, 40, 3, 0.4);
  add('local', 'zmq', 50, 20, 1, 1); add('local', 'amqp', 50, 20, 1, 1);
  add('local', 'zmq', 100, 10, 5, 2); add('local', 'amqp', 100, 10, 4, 3);
  add('wan', 'zmq', 25, 40, 12, 1);
  add('other', 'zmq', 25, 40, 12, 1);
  const g = rerun(cells, { location: { local: 'edge', wan: 'cloud' } });
  const find = (loc, obj, regime) => g.find((x) => x.location === loc && x.objective === obj && x.regime === regime);
  assert.deepEqual(find('edge', 'latency', 'small-often').best, ['zmq']);
  assert.equal(find('edge', 'latency', 'small-often').kb, 25);
  assert.deepEqual(find('edge', 'jitter', 'small-often').best, ['amqp']);
  assert.deepEqual(find('edge', 'latency', 'large-rarely').best, ['amqp']);
  assert.deepEqual(find('edge', 'jitter', 'large-rarely').best, ['zmq']);
  assert.deepEqual(find('cloud', 'latency', 'small-often').best, ['zmq']);
  assert.equal(g.filter((x) => x.profile === 'other').length, 0, 'a profile the study has no location for');
  assert.equal(g.length, 4 + 4, 'a profile with one rate: both regimes are that rate');
});

test('cases come in the study\'s order: throughput, edge/fog then cloud, latency then jitter, small streams first', () => {
  const cells = [];
  for (const profile of ['wan', 'local']) {
    for (const mbps of [4, 1]) {
      for (const [kb, rate] of [[100, 10], [25, 40]]) cells.push({ profile, transport: 'zmq', mbps, kb, rate, latency: 1, jitter: 1, lost: 0 });
    }
  }
  const g = rerun(cells, { location: { local: 'edge', wan: 'cloud' } });
  assert.deepEqual(g.slice(0, 5).map((x) => `${x.mbps} ${x.location} ${x.objective} ${x.regime}`), [
    '1 edge latency small-often', '1 edge latency large-rarely', '1 edge jitter small-often', '1 edge jitter large-rarely', '1 cloud latency small-often',
  ]);
  assert.equal(g[8].mbps, 4);
});
