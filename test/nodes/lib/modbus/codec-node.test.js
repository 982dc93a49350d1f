'use strict';
/** nodes/lib/modbus/codec-node.js: the codec node's settings and its two outputs per relayed read. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { codecSettings, createCodecRelay, relayRead, codecOutputs } = require('../../../../nodes/lib/modbus/codec-node');

test('settings: HR0 is a command block with fresh changes only; other blocks are states and resend', () => {
  const cmd = codecSettings({ address: '0' });
  assert.deepEqual([cmd.kind, cmd.baseline, cmd.src, cmd.ownTopic, cmd.perMessage], ['cmd', true, 'modbus-hr0', 'hr0', false]);
  const state = codecSettings({ address: '1', count: '1' });
  assert.deepEqual([state.kind, state.baseline, state.count], ['state', false, 1]);
  assert.equal(codecSettings({ address: '1', baseline: 'on' }).baseline, true);
  assert.equal(codecSettings({ address: '0', baseline: 'off' }).baseline, false);
  assert.equal(codecSettings({ address: '0', kind: 'state' }).kind, 'state');
  assert.equal(codecSettings({ block: 'message' }).perMessage, true);
});

test('a fixed state block: an envelope of what changed and the block to write, both only on change', () => {
  const s = codecSettings({ address: '1', count: '1' });
  const relay = createCodecRelay(s);
  const [env, write] = codecOutputs(s, relayRead(relay, s, { payload: [1] }), { topic: 'x' }, 7);
  assert.equal(env.topic, 'state');
  assert.equal(env.payload.k, 'state');
  assert.equal(env.payload.src, 'modbus-hr1');
  assert.equal(env.payload.seq, 7);
  assert.ok(Object.keys(env.payload.d).length > 0);
  assert.deepEqual(write, { topic: 'hr1', address: 1, payload: 1 });
  assert.deepEqual(codecOutputs(s, relayRead(relay, s, { payload: [1] }), {}, 8), [null, null], 'unchanged: nothing');
});

test('per message: the block\'s address from the Flex Getter\'s request, the write as a Flex Write', () => {
  const s = codecSettings({ block: 'message' }); // towards a PLC: the first read is a baseline
  const relay = createCodecRelay(s);
  const first = relayRead(relay, s, { modbusRequest: { address: 1000 }, payload: [0, 5, 0, 5] });
  assert.deepEqual(codecOutputs(s, first, { topic: 'probes' }, 1), [null, null]);
  const out = relayRead(relay, s, { address: 1000, payload: [0, 5, 0, 6] });
  const [env, write] = codecOutputs(s, out, { topic: 'probes' }, 1);
  assert.equal(env, null, 'probe registers are no tags');
  assert.deepEqual(write, { topic: 'probes', address: 1000, payload: { fc: 16, unitid: '', address: 1000, quantity: 4, value: [0, 5, 0, 6] } });
});

test('a bad configuration or block is refused by the codec', () => {
  assert.throws(() => createCodecRelay(codecSettings({ address: '0', refreshMs: '100' })), { code: 'E_CONFIG' });
  const s = codecSettings({ address: '1', count: '1' });
  assert.throws(() => relayRead(createCodecRelay(s), s, { payload: 'x' }), (e) => /^E_/.test(e.code));
});
