'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const codec = require('../../nodes/lib/modbus-codec');
const tags = require('../../nodes/lib/tags');

test('decode unpacks the command and state words and the counters by the I/O table', () => {
  const cmd = tags.packRegister(0, { st: 1, sk: 1 });
  assert.deepEqual(codec.decode(0, [cmd]), { st: 1, sp: 0, se: 0, p1f: 0, p1b: 0, sd: 0, dmg: 0, p2f: 0, sk: 1, p3f: 0 });
  const state = tags.packRegister(1, { c1: 1, grn: 1, red: 1 });
  const v = codec.decode(1, [state, 65535, 7, 40000]);
  assert.equal(v.c1, 1); assert.equal(v.grn, 1); assert.equal(v.red, 1); assert.equal(v.p2fw, 0);
  assert.equal(v.ng, -1, 'GoodCount is an INT: 0xffff reads -1');
  assert.equal(v.nr, 7);
  assert.equal(v.nb, 40000, 'BoxesIn is the low 16 bits, unsigned');
  assert.equal('st' in v, false);
});

test('decode accepts a big-endian Buffer and refuses non-words', () => {
  const buf = Buffer.alloc(4); buf.writeUInt16BE(tags.packRegister(1, { c2: 1 }), 0); buf.writeUInt16BE(3, 2);
  assert.deepEqual({ c2: codec.decode(1, buf).c2, ng: codec.decode(1, buf).ng }, { c2: 1, ng: 3 });
  for (const bad of [[-1], [65536], [1.5], ['1'], [], null, Buffer.alloc(3)]) {
    assert.throws(() => codec.decode(0, bad), { code: 'E_MODBUS_WORDS' });
  }
  assert.throws(() => codec.decode(-1, [0]), { code: 'E_MODBUS_ADDRESS' });
});

test('encode packs values, checks them with the tag dictionary, round-trips with decode', () => {
  const words = codec.encode(1, 4, { c1: 1, p3fw: true, ng: -2, nr: 5, nb: 70000 });
  assert.equal(words[0], tags.packRegister(1, { c1: 1, p3fw: 1 }));
  assert.equal(words[1], 0xfffe);
  assert.equal(words[3], 70000 & 0xffff);
  const back = codec.decode(1, words);
  assert.equal(back.ng, -2); assert.equal(back.nr, 5); assert.equal(back.c1, 1); assert.equal(back.p3fw, 1);
  assert.throws(() => codec.encode(0, 1, { nope: 1 }), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => codec.encode(0, 1, { st: 2 }), { code: 'E_TYPE' });
  assert.throws(() => codec.encode(0, 1, { c1: 1 }), { code: 'E_MODBUS_NOT_MAPPED' });
  assert.throws(() => codec.encode(0, 1, { scn: 1 }), { code: 'E_MODBUS_NOT_MAPPED' });
});

test('mask clears the bits the table does not define', () => {
  assert.equal(codec.mask(0, 0xffff), codec.MASKS.get(0));
  assert.equal(codec.MASKS.get(0), 0x03ff, 'ten inputs in HR0');
  assert.equal(codec.MASKS.get(1), 0x00ff, 'eight outputs in HR1');
  assert.equal(codec.mask(2, 0xffff), 0xffff, 'counters pass');
});

test('relay passes a block only when it changed, masked, and again after reset', () => {
  const r = codec.createRelay({ address: 0, count: 1 });
  const st = tags.packRegister(0, { st: 1 });
  let out = r.update([0]);
  assert.deepEqual(out.words, [0], 'first read is passed on');
  assert.equal(out.changed.st, 0);
  out = r.update([0]);
  assert.equal(out.words, null);
  assert.deepEqual(out.changed, {});
  out = r.update([st | 0x8000]);
  assert.deepEqual(out.words, [st], 'undefined bit 15 masked off');
  assert.deepEqual(out.changed, { st: 1 });
  out = r.update([st]);
  assert.equal(out.words, null, 'a change only in undefined bits is no change');
  r.reset();
  out = r.update([st]);
  assert.deepEqual(out.words, [st], 'after reset the block goes out again');
  assert.throws(() => r.update([1, 2]), { code: 'E_MODBUS_WORDS' });
  assert.equal(r.counters.rejected, 1);
  assert.equal(r.counters.passed, 3);
});

test('relay resends an unchanged block once refreshMs has passed since it last went out', () => {
  const r = codec.createRelay({ address: 1, count: 4, refreshMs: 1000 });
  const block = [tags.packRegister(1, { c1: 1 }), 3, 1, 4];
  assert.deepEqual(r.update(block, 0).words, block, 'first read');
  assert.equal(r.update(block, 999).words, null, 'unchanged, too soon');
  const again = r.update(block, 1000);
  assert.deepEqual(again.words, block, 'unchanged, resent after refreshMs');
  assert.deepEqual(again.changed, {}, 'a resend is no change: no timer starts');
  assert.equal(r.update(block, 1500).words, null, 'the clock restarts at the resend');
  const moved = [block[0], 4, 1, 4];
  assert.deepEqual(r.update(moved, 1600).words, moved, 'a change goes out at once');
  assert.equal(r.update(moved, 2599).words, null);
  assert.deepEqual(r.update(moved, 2600).words, moved);
  assert.equal(r.counters.refreshed, 2);
  assert.equal(r.counters.passed, 4);

  const never = codec.createRelay({ address: 0, count: 1, refreshMs: 0 });
  never.update([0], 0);
  assert.equal(never.update([0], 1e9).words, null, 'refreshMs 0: only on change');
});

test('STATE_BLOCK covers the states word and the three counters', () => {
  assert.deepEqual(codec.STATE_BLOCK, { address: 1, count: 4 });
  const v = codec.decode(codec.STATE_BLOCK.address, [0, 0, 0, 0]);
  for (const t of tags.outputs.filter((x) => x.modbus)) assert.ok(t.short in v, t.short);
});
