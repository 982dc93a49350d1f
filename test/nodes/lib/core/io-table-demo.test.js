'use strict';
/** The demo box-sorting plant's table (nodes/lib/core/io-table.json) through the table API. */
const test = require('node:test');
const assert = require('node:assert/strict');
const T = require('../../../../nodes/lib/core/io-table').demoTable();

test('every tag has a unique short and long name and a parseable address', () => {
  assert.equal(new Set(T.tags.map((t) => t.short)).size, T.tags.length);
  assert.equal(new Set(T.tags.map((t) => t.name)).size, T.tags.length);
  for (const t of T.tags) assert.equal(t.addr.db, T.TABLE.plc.ioDb, t.name);
  assert.equal(T.ioDbSize, 16);
});

test('no two tags overlap in the data block', () => {
  const used = new Set();
  for (const t of T.tags) {
    const bits = t.type === 'BOOL' ? [t.addr.byte * 8 + t.addr.bit]
      : Array.from({ length: T.TYPES[t.type].bytes * 8 }, (_, i) => t.addr.byte * 8 + i);
    for (const b of bits) { assert.ok(!used.has(b), `${t.name} overlaps at bit ${b}`); used.add(b); }
  }
});

test('checkWrite accepts writable inputs and normalises booleans', () => {
  assert.deepEqual(T.checkWrite('st', true).value, 1);
  assert.deepEqual(T.checkWrite('se', 0).value, 0);
});

test('checkWrite refuses unknown, non-writable, mistyped values with stable codes', () => {
  assert.throws(() => T.checkWrite('nope', 1), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => T.checkWrite('c1', 1), { code: 'E_NOT_WRITABLE' });
  assert.throws(() => T.checkWrite('st', 2), { code: 'E_TYPE' });
  assert.throws(() => T.checkWrite('st', 'on'), { code: 'E_TYPE' });
  assert.throws(() => T.normalise(T.get('ng'), 40000), { code: 'E_RANGE' });
  assert.throws(() => T.normalise(T.get('ng'), 1.5), { code: 'E_TYPE' });
});

test('readTag and writeTag round-trip every type big-endian', () => {
  const buf = Buffer.alloc(T.ioDbSize);
  T.writeTag(buf, T.get('red'), 1);
  assert.equal(buf[2], 0x40);
  T.writeTag(buf, T.get('ng'), -2);
  assert.equal(buf.readInt16BE(4), -2);
  T.writeTag(buf, T.get('nb'), 123456);
  assert.equal(T.readTag(buf, T.get('nb')), 123456);
  T.writeTag(buf, T.get('red'), 0);
  assert.equal(buf[2], 0);
  const all = T.decodeBlock(buf);
  assert.equal(all.ng, -2);
  assert.deepEqual(T.diff(all, { ...all, st: 1 }), { st: 1 });
});

test('Modbus packing puts each BOOL on its documented bit', () => {
  const word = T.packRegister(1, { c1: 1, red: 1, grn: 0 });
  assert.equal(word, 0b1000001);
  assert.deepEqual(T.unpackRegister(1, word).red, 1);
  assert.equal(T.unpackRegister(0, 1 << 8).sk, 1);
});

test('timed pairs name the five outputs the study timed', () => {
  assert.deepEqual(T.timedPairs().map((p) => p.name).sort(),
    ['ConveyorBelt', 'Piston1Backward', 'Piston2Forward', 'Piston3Forward', 'RedLamp']);
});

test('template fills plant and probe placeholders', () => {
  assert.equal(T.template(T.TABLE.mqtt.stateTopic, { plant: 'p1' }), 's7twin/p1/state');
  assert.equal(T.template(T.TABLE.probe.request, { i: 3 }), 'DB2,UDINT12');
});

test('the table owns the probe numbers: slot count, UDInt range, Modbus registers derived from them', () => {
  assert.equal(T.PROBE_SLOTS, T.TABLE.plc.probeSlots);
  assert.equal(T.UDINT_MAX, 2 ** 32 - 1);
  assert.equal(T.MODBUS_REGISTERS, T.TABLE.modbus.probeResponseBase + 2 * T.PROBE_SLOTS);
  for (const ok of [0, 1, T.PROBE_SLOTS - 1]) assert.equal(T.isProbeSlot(ok), true, String(ok));
  for (const bad of [-1, T.PROBE_SLOTS, 1.5, '1', null, undefined, Number.NaN]) assert.equal(T.isProbeSlot(bad), false, String(bad));
  assert.equal(T.isProbeSlot(4, 5), true);
  assert.equal(T.isProbeSlot(5, 5), false);
  for (const ok of [0, 1, T.UDINT_MAX]) assert.equal(T.isProbeValue(ok), true, String(ok));
  for (const bad of [-1, T.UDINT_MAX + 1, 0.5, '1', null, true]) assert.equal(T.isProbeValue(bad), false, String(bad));
});

test('the flows and the node form give the Modbus server the table\'s register count', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const root = path.join(__dirname, '..', '..', '..', '..');
  const servers = JSON.parse(fs.readFileSync(path.join(root, 'flows', 'parts', 'cloud-modbus.json'), 'utf8')).filter((n) => n.type === 's7twin-modbus-server');
  assert.ok(servers.length);
  for (const n of servers) assert.equal(Number(n.registers), T.MODBUS_REGISTERS);
  const html = fs.readFileSync(path.join(root, 'nodes', 's7twin-modbus-server.html'), 'utf8');
  assert.match(html, new RegExp(`registers: \\{ value: '${T.MODBUS_REGISTERS}' \\}`));
});
