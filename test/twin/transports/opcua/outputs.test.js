'use strict';
/** The OPC UA transport's reading side (twin/transports/opcua/outputs.js), on a stand-in session. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createOutputs } = require('../../../../twin/transports/opcua/outputs');
const ot = require('../../../../nodes/lib/opcua/tags');

const id = (short) => ot.cloudNodeId(short, { plant: 'plant1' });
const good = { isGood: () => true };
const bad = { isGood: () => false };

function rig(server) {
  const side = {
    connected: true, reads: 0,
    async read(ids) {
      this.reads += 1;
      if (server.fail) throw Object.assign(new Error('no session'), { code: 'E_NOT_CONNECTED' });
      return ids.map((nodeId) => (nodeId in server ? { nodeId, good: true, value: server[nodeId] } : { nodeId, good: false, value: null }));
    },
  };
  const stats = { received: 0, polls: 0, pollErrors: 0 };
  const errors = [];
  const probeValues = [];
  const probes = { slots: () => server.slots || [], resIdOf: (s) => `res${s}`, value: (slot, v) => probeValues.push([slot, v]) };
  const values = [];
  const out = createOutputs({ side, plant: 'plant1', stats, countError: (c) => errors.push(c), probes, valueCbs: [(v, kind) => values.push([kind, v])] });
  return { side, stats, errors, probeValues, values, out };
}

test('a snapshot goes whole; a poll reports what changed, and the probe responses in the same Read', async () => {
  const server = { [id('grn')]: true, [id('nb')]: 3 };
  const { side, stats, values, probeValues, out } = rig(server);
  assert.ok(out.stateIds.includes(id('c1')) && !out.stateIds.includes(id('st')), 'the outputs only');
  await out.snapshot();
  assert.deepEqual(values, [['snap', { grn: 1, nb: 3 }]]);
  await out.snapshot();
  assert.equal(values.length, 2, 'a snapshot goes whole even when nothing changed');
  server[id('nb')] = 4;
  server.slots = [6];
  server.res6 = 99;
  await out.poll();
  assert.deepEqual(values[2], ['state', { nb: 4 }]);
  assert.deepEqual(probeValues, [[6, 99]]);
  await out.poll();
  assert.equal(values.length, 3, 'nothing changed: nothing reported');
  assert.equal(stats.polls, 2);
  assert.equal(side.reads, 4);
  side.connected = false;
  await out.poll();
  assert.equal(stats.polls, 2, 'no poll without a session');
});

test('one poll at a time; failed Reads are counted', async () => {
  const server = { [id('grn')]: false };
  const { side, stats, errors, out } = rig(server);
  await Promise.all([out.poll(), out.poll()]);
  assert.equal(side.reads, 1, 'the second poll found the first in flight');
  server.fail = true;
  await out.poll();
  await out.snapshot();
  assert.equal(stats.pollErrors, 1);
  assert.deepEqual(errors, ['E_NOT_CONNECTED', 'E_NOT_CONNECTED']);
});

test('notifications: good output values and probe responses', () => {
  const { values, probeValues, out } = rig({});
  out.notified([
    { nodeId: id('c1'), value: true, status: good },
    { nodeId: id('red'), value: true, status: bad },
    { nodeId: ot.probeNodeId('res', 4), value: 12, status: good },
    { nodeId: ot.probeNodeId('res', 5), value: 13, status: bad },
    { nodeId: ot.probeNodeId('req', 6), value: 14, status: good },
  ]);
  assert.deepEqual(values, [['state', { c1: 1 }]]);
  assert.deepEqual(probeValues, [[4, 12]]);
});
