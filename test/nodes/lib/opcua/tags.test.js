'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const ot = require('../../../../nodes/lib/opcua/tags');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();

test('cloud node ids follow ns=1;s=<plant>.<Name>; PLC node ids come from the table', () => {
  assert.equal(ot.cloudNodeId('c1'), 'ns=1;s=plant1.ConveyorBelt');
  assert.equal(ot.cloudNodeId('StartButton', { plant: 'line-2' }), 'ns=1;s=line-2.StartButton');
  assert.equal(ot.plcNodeId('c1'), 'ns=3;s="DB1"."ConveyorBelt"');
  assert.equal(ot.cloudNamespaceUri('plant1'), 'urn:s7twin:plant1:cloud');
  assert.throws(() => ot.cloudNodeId('nope'), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => ot.cloudNodeId('c1', { plant: 'a b' }), { code: 'E_PLANT' });
});

test('the cloud server mirrors every streamed tag; commands are written by twins, states by the edge', () => {
  const shorts = ot.cloudTags().map((t) => t.short);
  assert.ok(!shorts.includes('scn'), 'ScanCount is a diagnostic, not mirrored');
  assert.equal(ot.cloudTags().filter((t) => t.dir === 'in').length, 10);
  assert.equal(ot.cloudTags().filter((t) => t.dir === 'out').length, 11);
  assert.equal(ot.writerRole(tags.get('st')), 'twin');
  assert.equal(ot.writerRole(tags.get('c1')), 'edge');
});

test('values convert between the dictionary and OPC UA variants, with range checks', () => {
  assert.deepEqual(ot.toVariant(tags.get('st'), 1), { dataType: 'Boolean', value: true });
  assert.deepEqual(ot.toVariant(tags.get('st'), false), { dataType: 'Boolean', value: false });
  assert.deepEqual(ot.toVariant(tags.get('ng'), 7), { dataType: 'Int16', value: 7 });
  assert.deepEqual(ot.toVariant(tags.get('nb'), -1), { dataType: 'Int32', value: -1 });
  assert.throws(() => ot.toVariant(tags.get('ng'), 40000), { code: 'E_RANGE' });
  assert.throws(() => ot.toVariant(tags.get('st'), 'yes'), { code: 'E_TYPE' });
  assert.equal(ot.fromVariant(tags.get('st'), true), 1);
  assert.equal(ot.fromVariant(tags.get('st'), false), 0);
  assert.equal(ot.fromVariant(tags.get('nr'), 3), 3);
});

test('node properties left empty by unset env vars fall back to defaults', () => {
  assert.equal(ot.numberOr('', 10), 10);
  assert.equal(ot.numberOr('${S7T_X}', 10), 10);
  assert.equal(ot.numberOr('0', 10), 0);
  assert.equal(ot.numberOr('25', 10), 25);
  assert.equal(ot.numberOr('-3', 10), 10);
  assert.equal(ot.endpointUrl('opc.tcp://:', '127.0.0.1', 4840), 'opc.tcp://127.0.0.1:4840');
  assert.equal(ot.endpointUrl('', '127.0.0.1', 4841), 'opc.tcp://127.0.0.1:4841');
  assert.equal(ot.endpointUrl('opc.tcp://10.0.0.5:', 'h', 4840), 'opc.tcp://10.0.0.5:4840');
  assert.equal(ot.endpointUrl('opc.tcp://plc:4000', 'h', 4840), 'opc.tcp://plc:4000');
  assert.throws(() => ot.endpointUrl('http://x', 'h', 1), { code: 'E_CONFIG' });
});

test('probe node ids: the PLC style on both servers, parsed back; probe values must be UInt32', () => {
  const o = ot;
  assert.equal(o.probeNodeId('req', 80), 'ns=1;s="Probe"."Req"[80]');
  assert.equal(o.probeNodeId('res', 0, { ns: 2 }), 'ns=2;s="Probe"."Res"[0]');
  assert.equal(o.plcProbeNodeId('req', 5), 'ns=3;s="Probe"."Req"[5]');
  assert.deepEqual(o.parseProbeNodeId('ns=3;s="Probe"."Res"[1023]'), { kind: 'res', slot: 1023 });
  assert.equal(o.parseProbeNodeId('ns=1;s=plant1.ConveyorBelt'), null);
  assert.throws(() => o.probeNodeId('req', -1), { code: 'E_PROBE_SLOT' });
  assert.throws(() => o.probeNodeId('foo', 1), { code: 'E_CONFIG' });
  assert.equal(o.checkProbeValue(4294967295), 4294967295);
  for (const bad of [-1, 1.5, 2 ** 32, '5', null, NaN]) assert.throws(() => o.checkProbeValue(bad), { code: 'E_PROBE_VALUE' });
});
