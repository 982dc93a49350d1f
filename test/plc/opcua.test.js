'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const {
  AttributeIds, DataType, StatusCodes, ClientMonitoredItem, TimestampsToReturn,
} = require('node-opcua');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { startPlc, waitFor, opcuaSession } = require('../helpers/plc');

let plc;
let client;
let session;
let subscription;

const value = (nodeId) => ({ nodeId, attributeId: AttributeIds.Value });
const write = (nodeId, dataType, v) => session.write({ nodeId, attributeId: AttributeIds.Value, value: { value: { dataType, value: v } } });
const readValue = async (nodeId) => (await session.read(value(nodeId))).value.value;

/** Monitor a node; returns the list of values seen (it grows as notifications arrive). */
function monitor(nodeId) {
  const seen = [];
  const item = ClientMonitoredItem.create(subscription, value(nodeId),
    { samplingInterval: plc.scanMs, discardOldest: true, queueSize: 100 }, TimestampsToReturn.Both);
  item.on('changed', (dv) => seen.push(dv.value.value));
  return seen;
}

before(async () => {
  plc = await startPlc({ s7: false, modbus: false });
  ({ client, session } = await opcuaSession(plc.ports.opcua));
  subscription = await session.createSubscription2({
    requestedPublishingInterval: 10, requestedMaxKeepAliveCount: 20, requestedLifetimeCount: 600, publishingEnabled: true,
  });
});

after(async () => {
  if (subscription) await subscription.terminate().catch(() => {});
  if (session) await session.close().catch(() => {});
  if (client) await client.disconnect();
  if (plc) await plc.stop();
});

test('the S7-1500 namespace has index 3', async () => {
  const ns = await session.readNamespaceArray();
  assert.equal(ns[3], 'http://www.siemens.com/simatic-s7-opcua');
});

test('every tag of the I/O table reads with its table node id and data type', async () => {
  const results = await session.read(tags.tags.map((t) => value(t.opcua)));
  const types = { BOOL: DataType.Boolean, INT: DataType.Int16, DINT: DataType.Int32 };
  results.forEach((dv, k) => {
    assert.equal(dv.statusCode, StatusCodes.Good, tags.tags[k].opcua);
    assert.equal(dv.value.dataType, types[tags.tags[k].type], tags.tags[k].opcua);
  });
  const probes = await session.read([value('ns=3;s="Probe"."Req"[0]'), value('ns=3;s="Probe"."Res"[1023]')]);
  probes.forEach((dv) => assert.equal(dv.statusCode, StatusCodes.Good));
});

test('writing an input starts the plant; a subscription sees the output change', async () => {
  const c1 = monitor('ns=3;s="DB1"."ConveyorBelt"');
  await waitFor(() => c1.length > 0, 10000, 'initial notification');
  assert.equal(c1[0], false);
  const sc = await write('ns=3;s="DB1"."StartButton"', DataType.Boolean, true);
  assert.equal(sc, StatusCodes.Good);
  await waitFor(() => c1.includes(true), 10000, 'ConveyorBelt true notified');
  assert.equal(plc.values().grn, 1);
  assert.equal(await readValue('ns=3;s="DB1"."StartButton"'), true, 'input reads back after the scan');
  await write('ns=3;s="DB1"."StartButton"', DataType.Boolean, false);
});

test('counters are served and follow the program', async () => {
  const nb = monitor('ns=3;s="DB1"."BoxesIn"');
  await write('ns=3;s="DB1"."Piston1Back"', DataType.Boolean, true);
  await write('ns=3;s="DB1"."EntrySensor"', DataType.Boolean, true);
  await waitFor(() => nb.includes(1), 10000, 'BoxesIn 1 notified');
  assert.equal(await readValue('ns=3;s="DB1"."Piston1Forward"'), true);
  await write('ns=3;s="DB1"."EntrySensor"', DataType.Boolean, false);
});

test('writing an output is refused with BadNotWritable and changes nothing', async () => {
  const before = plc.values().red;
  assert.equal(await write('ns=3;s="DB1"."RedLamp"', DataType.Boolean, true), StatusCodes.BadNotWritable);
  assert.equal(await write('ns=3;s="DB1"."GoodCount"', DataType.Int16, 5), StatusCodes.BadNotWritable);
  assert.equal(await write('ns=3;s="Probe"."Res"[3]', DataType.UInt32, 5), StatusCodes.BadNotWritable);
  await plc.waitScans(2);
  assert.equal(plc.values().red, before);
  assert.equal(plc.values().ng, 0);
  assert.equal(plc.probeResponse(3), 0);
});

test('unknown node ids get BadNodeIdUnknown for reads and writes', async () => {
  const dv = await session.read(value('ns=3;s="DB1"."NoSuchTag"'));
  assert.equal(dv.statusCode, StatusCodes.BadNodeIdUnknown);
  assert.equal(await write('ns=3;s="DB9"."X"', DataType.Boolean, true), StatusCodes.BadNodeIdUnknown);
  assert.equal((await session.read(value('ns=3;s="Probe"."Req"[1024]'))).statusCode, StatusCodes.BadNodeIdUnknown);
});

test('a write of the wrong data type is refused and not applied', async () => {
  const rejectedBefore = plc.counters.inputRejected;
  const sc = await write('ns=3;s="DB1"."DamageSensor"', DataType.Int32, 1);
  assert.notEqual(sc, StatusCodes.Good);
  await plc.waitScans(2);
  assert.equal(plc.values().dmg, 0);
  assert.equal(plc.counters.inputRejected, rejectedBefore, 'refused by the server before reaching the image');
});

test('a probe request written over OPC UA comes back in its response slot', async () => {
  const res = monitor('ns=3;s="Probe"."Res"[7]');
  await waitFor(() => res.length > 0, 10000, 'initial notification');
  assert.equal(await write('ns=3;s="Probe"."Req"[7]', DataType.UInt32, 4000000000), StatusCodes.Good);
  await waitFor(() => res.includes(4000000000), 10000, 'response notified');
  assert.equal(plc.probeResponse(7), 4000000000);
  assert.equal(await readValue('ns=3;s="Probe"."Req"[7]'), 4000000000);
});

test('the variables advertise the scan time as their minimum sampling interval', async () => {
  const dv = await session.read({ nodeId: 'ns=3;s="DB1"."ConveyorBelt"', attributeId: AttributeIds.MinimumSamplingInterval });
  assert.equal(dv.value.value, plc.scanMs);
});

test('the S7 namespace gets index 3 after padding (the DI namespace at 2), or whatever comes next when more exist', () => {
  const { registerS7Namespace, refusal, NS_S7 } = require('../../plc/opcua');
  const space = (uris) => ({
    uris,
    getNamespaceArray() { return this.uris; },
    registerNamespace(uri) { this.uris.push(uri); return { index: this.uris.length - 1, uri }; },
  });
  const fresh = space(['http://opcfoundation.org/UA/', 'urn:server']);
  assert.deepEqual(registerS7Namespace(fresh), { index: 3, uri: NS_S7 });
  assert.equal(fresh.uris[2], 'http://opcfoundation.org/UA/DI/');
  const bare = space(['http://opcfoundation.org/UA/']);
  assert.equal(registerS7Namespace(bare).index, 3);
  assert.deepEqual(bare.uris.slice(1, 3), ['urn:s7twin:pad:1', 'http://opcfoundation.org/UA/DI/']);
  assert.equal(registerS7Namespace(space(['a', 'b', 'c', 'd'])).index, 4, 'the caller refuses to start then');
  // A write the PLC refuses: out of range, else the wrong type.
  assert.equal(refusal({ code: 'E_RANGE' }, StatusCodes), StatusCodes.BadOutOfRange);
  assert.equal(refusal({ code: 'E_TYPE' }, StatusCodes), StatusCodes.BadTypeMismatch);
});
