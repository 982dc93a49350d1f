'use strict';
/**
 * s7twin-modbus-codec in a real Node-RED runtime (node-red-node-test-helper): change-only relay,
 * the whole block again after a failed write of it, and the optional timed resend (`refreshMs`):
 * a write refused while the client stayed connected must not be lost for good.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const tags = require('../../nodes/lib/tags');
const { waitFor } = require('../helpers/nodes');

const codecNode = require('../../nodes/s7twin-modbus-codec');

helper.init(require.resolve('node-red'));

function flow(refreshMs) {
  return [
    { id: 'c', type: 's7twin-modbus-codec', address: '1', count: '4', kind: 'auto', target: '', refreshMs, wires: [['env'], ['write']] },
    { id: 'env', type: 'helper' },
    { id: 'write', type: 'helper' },
  ];
}

describe('s7twin-modbus-codec node', () => {
  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(() => helper.unload());

  async function load(refreshMs) {
    await helper.load(codecNode, flow(refreshMs));
    const got = { env: [], write: [] };
    helper.getNode('env').on('input', (m) => got.env.push(m));
    helper.getNode('write').on('input', (m) => got.write.push(m));
    return got;
  }

  const block = [tags.packRegister(1, { c1: 1 }), 2, 0, 2];

  it('passes a changed block once, then resends it unchanged after refreshMs, without a new envelope', async () => {
    const got = await load('1000');
    const c = helper.getNode('c');
    c.receive({ payload: block });
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 1 && got.env.length === 1, 5000, 'first block out');
    assert.deepEqual(got.write[0].payload, block);
    assert.equal(got.write[0].address, 1);
    assert.equal(got.env[0].payload.k, 'state');
    await new Promise((r) => setTimeout(r, 1100));
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 2, 5000, 'resent after refreshMs');
    assert.deepEqual(got.write[1].payload, block);
    assert.equal(got.env.length, 1, 'a resend is not a change: no envelope, no timer');
    assert.equal(c.relay.counters.refreshed, 1);
  });

  it('a failed write of its block (the Write node wired back) makes the next read pass the block on again', async () => {
    const got = await load('');
    const c = helper.getNode('c');
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 1, 5000, 'first block out');
    // What node-red-contrib-modbus's Write node sends back: on success the written message,
    // on failure with "empty message on fail" an empty payload and msg.error, both with our topic.
    c.receive({ topic: 'hr1', payload: block });
    c.receive({ payload: block });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(got.write.length, 1, 'a write that went through: nothing resent');
    c.receive({ topic: 'hr1', payload: '', error: new Error('Queue full') });
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 2, 5000, 'the block again after the failed write');
    assert.deepEqual(got.write[1].payload, block);
    assert.equal(c.failedWrites, 1);
    assert.equal(c.relay.counters.refreshed, 0, 'no timed resend by default');
  });

  it('refreshMs 0 passes a block only when it changed', async () => {
    const got = await load('0');
    const c = helper.getNode('c');
    c.receive({ payload: block });
    await new Promise((r) => setTimeout(r, 50));
    c.receive({ payload: block });
    c.receive({ payload: [block[0], 3, 0, 3] });
    await waitFor(() => got.write.length === 2, 5000, 'the change');
    assert.deepEqual(got.write.map((m) => m.payload[1]), [2, 3]);
    assert.equal(c.relay.counters.refreshed, 0);
  });
});
