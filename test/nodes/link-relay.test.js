'use strict';
/**
 * A relay as the cloud flow builds it (flows/parts/cloud-ws.json): link in on one endpoint wired
 * to link out on the same endpoint, in a real Node-RED runtime with raw ws twins. What a peer gets
 * is exactly the envelope that was sent: nothing Node-RED adds to a message (`_msgid`) leaks onto
 * the wire, and link out sees only the messages wired to it.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const { openClient, waitFor } = require('../helpers/nodes');

const nodes = [require('../../nodes/s7twin-link-server'), require('../../nodes/s7twin-link-in'), require('../../nodes/s7twin-link-out')];
const TOKEN = 'relay-secret';
const EDGE_TOKEN = 'relay-edge-secret';

helper.init(require.resolve('node-red'));

describe('s7twin link relay (real Node-RED runtime, raw ws peers)', () => {
  const clients = [];
  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await helper.unload();
  });

  it('relays envelopes between a twin and an edge endpoint unchanged; link out counts nothing invalid', async () => {
    await helper.load(nodes, [
      { id: 'tab', type: 'tab', label: 'relay' },
      { id: 'twins', type: 's7twin-link-server', role: 'twin', path: '/s7twin/twin', pingS: 10, maxPayloadKiB: 64, highWaterKiB: 16 },
      { id: 'edges', type: 's7twin-link-server', role: 'edge', path: '/s7twin/edge', pingS: 10, maxPayloadKiB: 64, highWaterKiB: 16 },
      { id: 'inT', type: 's7twin-link-in', z: 'tab', mode: 'server', server: 'twins', x: 100, y: 100, wires: [['outE']] },
      { id: 'outE', type: 's7twin-link-out', z: 'tab', mode: 'server', server: 'edges', x: 300, y: 100, wires: [] },
      { id: 'inE', type: 's7twin-link-in', z: 'tab', mode: 'server', server: 'edges', x: 100, y: 200, wires: [['outT']] },
      { id: 'outT', type: 's7twin-link-out', z: 'tab', mode: 'server', server: 'twins', x: 300, y: 200, wires: [] },
    ], { twins: { token: TOKEN }, edges: { token: EDGE_TOKEN } });
    const base = helper.url().replace('http', 'ws');
    const twin = await openClient(`${base}/s7twin/twin`, { token: TOKEN });
    const edge = await openClient(`${base}/s7twin/edge`, { token: EDGE_TOKEN });
    clients.push(twin, edge);
    // The edge endpoint relays requests to an edge once it has answered the edge's first sync.
    edge.send({ v: 1, k: 'sync', src: 'edge-link', seq: 1, ts: Date.now() });
    await edge.next((f) => f.k === 'sync-res');
    await waitFor(() => helper.getNode('edges').endpoint.edgeReady() && helper.getNode('twins').endpoint.counters.connections === 1);

    const cmd = { v: 1, k: 'cmd', src: 'twin-a', seq: 1, ts: Date.now(), d: { st: 1 } };
    twin.send(cmd);
    const relayed = await edge.next((f) => f.src === 'twin-a');
    assert.equal(typeof relayed.dl, 'number', 'the cloud stamped a deadline on its clock');
    const rest = { ...relayed };
    delete rest.dl;
    assert.deepEqual(rest, cmd, 'the edge gets the command as sent, plus its deadline');
    const state = { v: 1, k: 'state', src: 'edge-1', seq: 1, ts: Date.now(), d: { c1: 1 } };
    edge.send(state);
    assert.deepEqual(await twin.next((f) => f.src === 'edge-1' && f.k === 'state'), state, 'the twin gets the state exactly as sent');
    const ack = { v: 1, k: 'ack', src: 'edge-1', seq: 2, ts: Date.now(), ref: { src: 'twin-a', seq: 1 } };
    edge.send(ack);
    assert.deepEqual(await twin.next((f) => f.k === 'ack'), ack, 'the answer reaches the twin that asked');
    edge.send({ ...ack, seq: 3 }); // a second answer to the same command is dropped, never relayed
    await waitFor(() => helper.getNode('edges').endpoint.counters.lateAnswers === 1);
    for (const id of ['outE', 'outT']) assert.equal(helper.getNode(id).counters.invalid, 0, `${id} saw only what was wired to it`);
  });

  it('refuses to serve an edge endpoint whose token a twin endpoint also accepts', async () => {
    await helper.load(nodes, [
      { id: 'twins', type: 's7twin-link-server', role: 'twin', path: '/s7twin/twin' },
      { id: 'edges', type: 's7twin-link-server', role: 'edge', path: '/s7twin/edge' },
    ], { twins: { token: `${TOKEN},shared` }, edges: { token: 'shared' } });
    // Whichever of the two starts second refuses to open (config nodes start in flow order).
    const refused = ['twins', 'edges'].filter((id) => helper.getNode(id).endpoint === undefined);
    assert.deepEqual(refused, ['edges']);
    assert.equal(helper.getNode('edges').statusInfo().kind, 'error');
  });
});
