'use strict';
/**
 * nodes/lib/opcua/bridge.js: which tags the bridge relays and their node ids (the bridge itself
 * runs against real servers in server.test.js, pulses.test.js and probes.test.js).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();
const ot = require('../../../../nodes/lib/opcua/tags');
const { bridgeTags } = require('../../../../nodes/lib/opcua/bridge');

test('commands are the cloud-writable inputs, states the PLC outputs on the cloud; node ids both ways', () => {
  const b = bridgeTags('p2');
  const commands = tags.inputs.filter((t) => t.cloudWritable);
  assert.ok(commands.length > 0);
  assert.deepEqual(b.commandIds, commands.map((t) => `ns=1;s=p2.${t.name}`));
  const states = ot.cloudTags().filter((t) => t.dir === 'out');
  assert.deepEqual(b.stateIds, states.map((t) => t.opcua));
  for (const t of commands.concat(states)) {
    assert.equal(b.tagOfCloudId.get(b.cloudIdOf.get(t.short)).short, t.short);
  }
  for (const t of states) assert.equal(b.tagOfPlcId.get(t.opcua).short, t.short);
  assert.equal(b.tagOfPlcId.get(tags.get('st').opcua), undefined, 'inputs are not read from the PLC');
  assert.ok(!b.commandIds.includes(b.cloudIdOf.get('c1')), 'outputs are no commands');
});
