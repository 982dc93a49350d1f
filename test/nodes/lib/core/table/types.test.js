'use strict';
/**
 * The codec of every S7 type the table carries, checked against what others make of the same
 * bytes: a real snap7 server's memory read and written by nodes7's own typed items (REAL, LREAL,
 * INT, DINT, WORD, DWORD, BYTE, bits, STRING with its header), Node's Buffer methods for the types
 * nodes7 has no name for (SINT, USINT, UINT, UDINT), and known byte patterns.
 */
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const snap7 = require('node-snap7');
const { freePort } = require('../../../../../plc/net');
const { s7Connect } = require('../../../../helpers/plc');
const T = require('../../../../../nodes/lib/core/table/types');

const K = snap7.S7Server.prototype;
const tag = (type, byte, extra = {}) => ({ short: 'x', type, addr: { byte, bit: extra.bit || 0 }, ...extra });

let srv;
let s7;
before(async () => {
  srv = new snap7.S7Server();
  const port = await freePort();
  assert.ok(srv.SetParam(K.LocalPort, port));
  assert.ok(srv.RegisterArea(K.srvAreaDB, 7, Buffer.alloc(64)));
  assert.ok(srv.StartTo('127.0.0.1'));
  s7 = await s7Connect(port);
});
after(async () => {
  if (s7) await s7.close();
  if (srv) { srv.Stop(); srv.UnregisterArea(K.srvAreaDB, 7); }
});

/** [nodes7 address, tag, value] for every type nodes7 names itself. */
const CASES = [
  ['DB7,REAL0', tag('REAL', 0), -12.5],
  ['DB7,REAL0', tag('REAL', 0), 0.1],
  ['DB7,LREAL4', tag('LREAL', 4), 1234567.891011],
  ['DB7,INT12', tag('INT', 12), -32768],
  ['DB7,DINT14', tag('DINT', 14), -2147483648],
  ['DB7,WORD18', tag('WORD', 18), 0xbeef],
  ['DB7,DWORD20', tag('DWORD', 20), 0xfeedf00d],
  ['DB7,BYTE24', tag('BYTE', 24), 200],
  ['DB7,X25.5', tag('BOOL', 25, { bit: 5 }), 1],
  ['DB7,S26.16', tag('STRING', 26, { length: 16 }), 'Milk 3.5%'],
];

test('what nodes7 writes into a snap7 data block, the codec reads back, type by type', async () => {
  for (const [addr, t, value] of CASES) {
    const v = T.normalise(t, value);
    await s7.write({ [addr]: t.type === 'BOOL' ? v === 1 : v });
    const area = srv.GetArea(K.srvAreaDB, 7);
    assert.deepEqual(T.readValue(area, t), v, `${t.type} at ${addr}`);
  }
});

test('what the codec writes into a snap7 data block, nodes7 reads back, type by type', async () => {
  for (const [addr, t, value] of CASES) {
    const area = srv.GetArea(K.srvAreaDB, 7);
    const v = T.normalise(t, value);
    T.writeValue(area, t, v);
    srv.SetArea(K.srvAreaDB, 7, area);
    const got = (await s7.read([addr]))[addr];
    if (t.type === 'REAL') assert.equal(Math.fround(got), Math.fround(v), addr);
    else if (t.type === 'STRING') assert.equal(got.trimEnd(), v, addr); // nodes7 pads a read STRING with its declared room
    else assert.deepEqual(got, t.type === 'BOOL' ? v === 1 : v, addr);
  }
});

test('a STRING is max length, actual length, characters, as S7 stores it', () => {
  const t = tag('STRING', 0, { length: 8 });
  const buf = new Uint8Array(10).fill(0xee);
  T.writeValue(buf, t, 'ab');
  assert.deepEqual([...buf], [8, 2, 0x61, 0x62, 0, 0, 0, 0, 0, 0]);
  assert.equal(T.readValue(buf, t), 'ab');
  buf[1] = 200; // a corrupt actual length never reads past the declared room
  assert.equal(T.readValue(buf, t).length, 8);
  assert.deepEqual([...T.encode(t, 'é')], [8, 1, 0xe9, 0, 0, 0, 0, 0, 0, 0], 'one byte per character (Latin-1)');
});

test('the types nodes7 has no name for match Node\'s Buffer methods at their extremes', () => {
  const buf = Buffer.alloc(12);
  for (const [type, write, read, values] of [
    ['SINT', 'writeInt8', 'readInt8', [-128, -1, 0, 127]],
    ['USINT', 'writeUInt8', 'readUInt8', [0, 255]],
    ['UINT', 'writeUInt16BE', 'readUInt16BE', [0, 0x8000, 0xffff]],
    ['UDINT', 'writeUInt32BE', 'readUInt32BE', [0, 0x80000000, 0xffffffff]],
    ['LREAL', 'writeDoubleBE', 'readDoubleBE', [-1e300, 3.141592653589793]],
  ]) {
    for (const v of values) {
      buf.fill(0)[write](v, 2);
      assert.equal(T.readValue(buf, tag(type, 2)), v, `${type} ${v} read`);
      const mine = Buffer.alloc(12);
      T.writeValue(mine, tag(type, 2), v);
      assert.equal(mine[read](2), v, `${type} ${v} written`);
    }
  }
  assert.deepEqual([...T.encode(tag('REAL', 0), 1)], [0x3f, 0x80, 0, 0], 'REAL 1.0 as IEEE 754 single');
  assert.deepEqual([...T.encode(tag('INT', 0), -2)], [0xff, 0xfe], 'INT big-endian two\'s complement');
});

test('normalise takes each type\'s own values and refuses the rest, naming the tag', () => {
  const ok = [['BOOL', true, 1], ['BOOL', 0, 0], ['SINT', -128, -128], ['UDINT', 4294967295, 4294967295], ['REAL', 0.1, 0.1], ['LREAL', 1e300, 1e300]];
  for (const [type, v, want] of ok) assert.equal(T.normalise({ short: 'x', type }, v), want, `${type} ${v}`);
  const bad = [['BOOL', 2, 'E_TYPE'], ['SINT', 128, 'E_RANGE'], ['USINT', -1, 'E_RANGE'], ['UINT', 1.5, 'E_TYPE'], ['INT', '3', 'E_TYPE'],
    ['REAL', 4e38, 'E_RANGE'], ['REAL', Number.NaN, 'E_TYPE'], ['LREAL', Infinity, 'E_TYPE'], ['DWORD', -1, 'E_RANGE']];
  for (const [type, v, code] of bad) assert.throws(() => T.normalise({ short: 'lvl', type }, v), (e) => e.code === code && /tag "lvl"/.test(e.message), `${type} ${v}`);
  assert.throws(() => T.normalise({ short: 'sp', type: 'REAL', min: 0, max: 100 }, 100.5), { code: 'E_RANGE', message: /tag "sp" value 100.5 outside 0..100/ });
  assert.throws(() => T.normalise({ short: 'rcp', type: 'STRING', length: 4 }, 'abcde'), { code: 'E_RANGE' });
  assert.throws(() => T.normalise({ short: 'rcp', type: 'STRING', length: 4 }, '€'), { code: 'E_TYPE' });
  assert.throws(() => T.normalise({ short: 'rcp', type: 'STRING', length: 4 }, 4), { code: 'E_TYPE' });
  assert.equal(T.normalise({ short: 'x', type: 'REAL' }, 1 / 3), 0.33333334, 'a REAL as the PLC holds it, in its shortest decimal');
});

test('parseType knows every type and STRING[n] up to 254 characters', () => {
  for (const t of ['BOOL', 'BYTE', 'WORD', 'DWORD', 'SINT', 'INT', 'DINT', 'USINT', 'UINT', 'UDINT', 'REAL',
    'LREAL']) assert.equal(T.parseType(t.toLowerCase()).type, t);
  assert.deepEqual(T.parseType('String[16]'), { type: 'STRING', length: 16, size: 18 });
  assert.deepEqual(T.parseType('STRING'), { type: 'STRING', length: 254, size: 256 });
  for (const bad of ['STRING[0]', 'STRING[255]', 'REAL[2]', 'FLOAT', '', null]) assert.equal(T.parseType(bad), null, String(bad));
});
