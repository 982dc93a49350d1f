'use strict';
/** The OPC UA transport's probe slots and answers (twin/transports/opcua/probes.js), on a stand-in session. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createProbes, resIdOf } = require('../../../../twin/transports/opcua/probes');
const { createWrites } = require('../../../../twin/transports/opcua/writes');
const ot = require('../../../../nodes/lib/opcua/tags');

function rig(mode, response = { good: true, value: 41 }) {
  const side = {
    connected: true, reads: [], writes: [], monitors: [],
    async read(ids) { this.reads.push(ids); return ids.map(() => (typeof response === 'function' ? response() : response)); },
    async write(items) { this.writes.push(items); return items.map(() => ({ good: true })); },
    async addMonitor(ids, opts) { this.monitors.push([ids, opts]); },
  };
  const stats = { sent: 0, probes: 0, probeAnswers: 0 };
  const errors = [];
  const countError = (code) => errors.push(code);
  const writes = createWrites({ side, plant: 'plant1', stats, countError });
  const probes = createProbes({ side, mode, maxProbeSlot: 9, stats, countError, writes });
  const answers = [];
  probes.onProbe((slot, v) => answers.push([slot, v]));
  return { side, stats, errors, writes, probes, answers };
}

test('the first probe of a slot reads its response first; only a change of it is an answer', async () => {
  const { side, stats, writes, probes, answers } = rig('poll');
  probes.probe(2, 7);
  probes.probe(2, 8);
  await writes.settled();
  assert.deepEqual(side.reads, [[resIdOf(2)]], 'one baseline Read per slot');
  assert.deepEqual(side.writes.map((w) => [w[0].nodeId, w[0].value]), [[ot.probeNodeId('req', 2), 7], [ot.probeNodeId('req', 2), 8]]);
  assert.deepEqual(side.monitors, [], 'mode poll: the poll reads the responses');
  assert.deepEqual(probes.slots(), [2]);
  probes.value(2, 41);
  assert.deepEqual(answers, [], 'the value left from before is no answer');
  probes.value(2, 7);
  probes.value(2, 7);
  probes.value(5, 7);
  assert.deepEqual(answers, [[2, 7]], 'a change of a slot probed, once');
  assert.equal(stats.probes, 2);
  assert.equal(stats.probeAnswers, 1);
});

test('mode subscribe monitors a slot\'s response (exception-based); a slot the server lacks is retried next time', async () => {
  let good = false;
  const { side, errors, writes, probes } = rig('subscribe', () => (good ? { good: true, value: 0 } : { good: false, status: 'BadNodeIdUnknown' }));
  probes.probe(3, 1);
  await writes.settled();
  assert.deepEqual(errors, ['E_PROBE_SLOT']);
  assert.equal(side.writes.length, 0, 'no request written to a slot without a response');
  good = true;
  probes.probe(3, 2);
  await writes.settled();
  assert.deepEqual(side.monitors, [[[resIdOf(3)], { samplingIntervalMs: 0 }]]);
  assert.equal(side.writes.length, 1);
});

test('bad slots, bad values and a closed session are counted, never thrown', () => {
  const { side, errors, stats, probes } = rig('poll');
  probes.probe(10, 1);
  probes.probe(1, -1);
  side.connected = false;
  probes.probe(1, 1);
  assert.deepEqual(errors, ['E_PROBE_SLOT', 'E_PROBE_VALUE', 'E_NOT_CONNECTED']);
  assert.equal(stats.probes, 0);
});
