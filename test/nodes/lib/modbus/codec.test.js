'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const codec = require('../../../../nodes/lib/modbus/codec');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();

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

test('probeBlocks covers probe slots in blocks of 61 slots (122 registers, one FC3 read and one FC16 write)', () => {
  assert.equal(codec.PROBE_SLOTS_PER_BLOCK, 61);
  assert.deepEqual(codec.probeBlocks(0, 1000), []);
  assert.deepEqual(codec.probeBlocks(1, 1000), [{ address: 1000, quantity: 2 }]);
  assert.deepEqual(codec.probeBlocks(81, 1000), [{ address: 1000, quantity: 122 }, { address: 1122, quantity: 40 }]);
  assert.deepEqual(codec.probeBlocks(122, 4000), [{ address: 4000, quantity: 122 }, { address: 4122, quantity: 122 }]);
  const all = codec.probeBlocks(codec.PROBE_SLOTS, codec.PROBE_RESPONSE_BASE);
  assert.equal(all.length, 17);
  assert.equal(all.reduce((n, b) => n + b.quantity, 0), 2 * 1024);
  assert.ok(all.every((b) => b.quantity <= codec.MAX_WRITE && b.quantity % 2 === 0));
});

test('block relays keep one relay per block address: probe registers pass untouched, no tags decoded', () => {
  const r = codec.createBlockRelays({ refreshMs: 0 });
  const a = new Array(122).fill(0).map((_, i) => (i * 997) & 0xffff);
  a[0] = 0xffff; // all 16 bits pass (the packed-word mask is for HR0/HR1 only)
  const first = r.update(1000, a, 0);
  assert.deepEqual(first.words, a);
  assert.equal(first.address, 1000);
  assert.deepEqual(first.changed, {}, 'probe registers are no table tags');
  assert.deepEqual(r.update(1122, [1, 2], 0).words, [1, 2], 'a second block has its own relay');
  assert.equal(r.update(1000, a, 1).words, null, 'unchanged');
  assert.equal(r.update(1122, [1, 2], 1).words, null);
  const b = [...a]; b[121] = 5;
  assert.deepEqual(r.update(1000, b, 2).words, b, 'changed');
  assert.equal(r.size, 2);
  r.reset();
  assert.deepEqual(r.update(1122, [1, 2], 3).words, [1, 2], 'whole again after reset');
});

test('block relays refuse blocks longer than one FC16 write, bad addresses and too many blocks', () => {
  const r = codec.createBlockRelays({ maxBlocks: 2 });
  assert.throws(() => r.update(1000, new Array(124).fill(0)), { code: 'E_MODBUS_WORDS' });
  assert.throws(() => r.update(-1, [0]), { code: 'E_MODBUS_ADDRESS' });
  assert.throws(() => r.update(65535, [0, 0]), { code: 'E_MODBUS_ADDRESS' });
  assert.throws(() => r.update(1000, 'x'), { code: 'E_MODBUS_WORDS' });
  r.update(1, [0]);
  r.update(2, [0]);
  assert.throws(() => r.update(3, [0]), { code: 'E_MODBUS_BLOCKS' });
  assert.equal(r.counters.rejected, 5);
});

test('the edge flow\'s probe loops use the I/O table\'s probe bases, slot count and block size', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'flows', 'parts', 'edge-modbus.json'), 'utf8'));
  const loops = flow.find((n) => n.id === 'mb.edge.ptick');
  assert.ok(loops, 'probe loops node');
  assert.match(loops.initialize, new RegExp(`const BASES = \\[${codec.PROBE_REQUEST_BASE}, ${codec.PROBE_RESPONSE_BASE}\\]`));
  assert.match(loops.initialize, new RegExp(`const MAX_SLOTS = ${codec.PROBE_SLOTS};`));
  assert.match(loops.initialize, new RegExp(`const PER_BLOCK = ${codec.PROBE_SLOTS_PER_BLOCK};`));
  const env = flow.find((n) => n.type === 'tab').env.find((e) => e.name === 'MB_PROBE_SLOTS');
  assert.match(env.value, /S7T_MODBUS_PROBE_SLOTS/);
});

test('baseline relay (towards a PLC): the first read and the first after rebase() pass nothing; only later changes pass', () => {
  const r = codec.createRelay({ address: 0, count: 1, baseline: true });
  assert.equal(r.baseline, true);
  const stale = tags.packRegister(0, { st: 1, sd: 1 }); // what the cloud's HR0 held when the edge started
  let out = r.update([stale]);
  assert.equal(out.words, null, 'the first read is a baseline, not a command');
  assert.deepEqual(out.changed, {}, 'no envelope either: nobody wrote it now');
  assert.equal(out.baseline, true);
  assert.equal(r.update([stale]).words, null, 'unchanged');
  const fresh = tags.packRegister(0, { st: 1, sd: 0, dmg: 1 });
  out = r.update([fresh | 0x8000]);
  assert.deepEqual(out.words, [fresh], 'a twin changed it after the baseline: passed on, masked');
  assert.deepEqual(out.changed, { sd: 0, dmg: 1 });
  // The source reconnected (a restarted cloud server: every register 0): a new baseline.
  r.rebase();
  out = r.update([0]);
  assert.equal(out.words, null, 'zeros after a cloud restart are not a command');
  assert.deepEqual(out.changed, {});
  out = r.update([tags.packRegister(0, { sp: 1 })]);
  assert.deepEqual(out.words, [tags.packRegister(0, { sp: 1 })], 'compared with the new baseline');
  assert.deepEqual(out.changed, { sp: 1 });
  assert.equal(r.counters.baselines, 2);
  assert.equal(r.counters.passed, 2);
  // Nothing is ever sent again: no reset, no timed resend.
  assert.throws(() => r.reset(), { code: 'E_BASELINE' });
  assert.throws(() => codec.createRelay({ address: 0, count: 1, baseline: true, refreshMs: 1000 }), { code: 'E_CONFIG' });
  // rebase() on a relay without baseline changes nothing.
  const plain = codec.createRelay({ address: 0, count: 1 });
  plain.update([0]);
  plain.rebase();
  assert.equal(plain.update([0]).words, null);
});

test('baseline block relays: each block\'s first read is its baseline, rebase() starts a new one for every block', () => {
  const r = codec.createBlockRelays({ baseline: true });
  assert.equal(r.baseline, true);
  const old = [0, 7, 0, 9]; // probe requests left on the cloud server: slots 0 and 1
  assert.equal(r.update(1000, old).words, null, 'block 1000: baseline');
  assert.equal(r.update(1122, [0, 5]).words, null, 'block 1122: its own baseline on its first read');
  assert.equal(r.update(1000, old).words, null);
  const probe = [0, 8, 0, 9];
  assert.deepEqual(r.update(1000, probe).words, probe, 'a fresh request after the baseline');
  assert.equal(r.baselines, 2);
  r.rebase(); // the cloud probe client reconnected
  assert.equal(r.update(1000, [0, 0, 0, 0]).words, null, 'zeros of a restarted cloud: baseline');
  assert.equal(r.update(1122, [0, 6]).words, null, 'every block rebased');
  assert.deepEqual(r.update(1122, [0, 7]).words, [0, 7]);
  assert.equal(r.baselines, 4);
  assert.throws(() => r.reset(), { code: 'E_BASELINE' });
  assert.throws(() => codec.createBlockRelays({ baseline: true, refreshMs: 1000 }), { code: 'E_CONFIG' });
});
