'use strict';
/**
 * nodes/lib/stream/block.js and the `samples` envelope (nodes/lib/core/envelope.js): a block of
 * DINT samples in and out of a frame unchanged, a frame that is not a valid block refused with
 * E_SCHEMA, the same JSON text whatever the encoding (the compact codec carries it as text), and
 * the cloud's edge endpoint takes it from an edge.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createCodec, COMPACT_PROTOCOL } = require('../../../../nodes/lib/core/codec');
const { blockField, samplesEnvelope, readSamples, sampleTime } = require('../../../../nodes/lib/stream/block');
const { edgeRefusal } = require('../../../../nodes/lib/link/edge-endpoint');

const values = Int32Array.from([0, 1, -1, 2147483647, -2147483648, 123456789, -98765]);
const frame = () => samplesEnvelope(envelope.createSender('edge-1'), { sig: 'vib', i: 4200, t: 1764316800123.25, hz: 1000, values });

test('a block out of a frame as it went in, its samples big-endian DINTs in base64', () => {
  const env = frame();
  assert.equal(env.k, 'samples');
  assert.deepEqual(Object.keys(env.b), ['sig', 'i', 't', 'hz', 'n', 'x']);
  assert.equal(Buffer.from(env.b.x, 'base64').readInt32BE(12), 2147483647, 'the PLC\'s byte order');
  const back = readSamples(envelope.parse(JSON.stringify(env)));
  assert.deepEqual([...back.values], [...values]);
  assert.deepEqual({ ...back, values: undefined }, { sig: 'vib', i: 4200, t: 1764316800123.25, hz: 1000, n: 7, values: undefined });
  assert.equal(sampleTime(back, 3), 1764316800126.25);
  assert.deepEqual([...readSamples({ b: blockField({ sig: 's', i: 0, t: 1, hz: 1, values: [5, -6] }) }).values], [5, -6], 'from a plain array too');
});

test('a samples frame that is not a valid block is refused with E_SCHEMA, naming the field', () => {
  const ok = frame();
  const bad = [
    [{ b: undefined }, /b\.\{sig/], [{ b: { ...ok.b, sig: 'a b' } }, /b\.sig/], [{ b: { ...ok.b, i: -1 } }, /b\.i/], [{ b: { ...ok.b, i: 1.5 } }, /b\.i/],
    [{ b: { ...ok.b, t: 'now' } }, /b\.t/], [{ b: { ...ok.b, hz: 0 } }, /b\.hz/], [{ b: { ...ok.b, n: 0 } }, /b\.n/],
    [{ b: { ...ok.b, n: 8 } }, /b\.x/], [{ b: { ...ok.b, x: `${ok.b.x.slice(0, -4)}!!!!` } }, /b\.x/],
  ];
  for (const [change, re] of bad) {
    assert.throws(() => envelope.validate({ ...ok, ...change }), (err) => err.code === 'E_SCHEMA' && re.test(err.message), JSON.stringify(change).slice(0, 60));
  }
  // x of the right length and characters that is not n samples' worth is caught when read.
  const five = { ...ok, b: { ...ok.b, n: 1, x: 'AAAAAAA=' } }; // 8 characters, as 4 bytes take, but 5 bytes
  assert.doesNotThrow(() => envelope.validate(five));
  assert.throws(() => readSamples(five), { code: 'E_SCHEMA' });
});

test('the same JSON text on the compact encoding, and the edge endpoint takes it from an edge', () => {
  const env = frame();
  const compact = createCodec(COMPACT_PROTOCOL);
  const wire = compact.encode(env);
  assert.equal(typeof wire, 'string', 'text, not a MessagePack frame');
  assert.equal(wire, JSON.stringify(env));
  assert.deepEqual(readSamples(compact.decode(wire, false)).values, readSamples(env).values);
  assert.equal(edgeRefusal(env), null);
  assert.equal(edgeRefusal({ ...env, k: 'nope' }).err.code, 'E_KIND');
});
