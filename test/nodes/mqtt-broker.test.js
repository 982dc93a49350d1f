'use strict';
/**
 * The s7twin-mqtt-broker node in a real Node-RED runtime (node-red-node-test-helper) with real
 * mqtt.js clients on ephemeral ports.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const mqtt = require('mqtt');
const brokerNode = require('../../nodes/s7twin-mqtt-broker');
const { freePort, waitFor } = require('../helpers/nodered');

helper.init(require.resolve('node-red'));

const TAB = 'tab';
const USERS = 'twin:twin-pw:twin,plc:plc-pw:plc,monitor:mon-pw:monitor';

function flow(props) {
  return [
    { id: TAB, type: 'tab', label: 'mqtt' },
    { id: 'b', type: 's7twin-mqtt-broker', z: TAB, host: '127.0.0.1', wsPath: '/mqtt', x: 100, y: 100, wires: [['events']], ...props },
    { id: 'events', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
  ];
}

function connect(url, opts = {}) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 10000, ...opts });
    c.once('connect', () => resolve(c));
    c.once('error', (e) => { c.end(true); reject(e); });
  });
}
const end = (c) => new Promise((r) => c.end(true, {}, () => r()));

describe('s7twin-mqtt-broker node (real Node-RED runtime, real mqtt.js clients)', () => {
  const clients = [];
  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map(end));
    await helper.unload();
  });

  it('serves TCP and WebSocket with credentials, reports refusals on its output, and frees its ports on redeploy', async () => {
    const port = await freePort();
    const wsPort = await freePort();
    await helper.load(brokerNode, flow({ port: String(port), wsPort: String(wsPort) }), { b: { users: USERS } });
    const b = helper.getNode('b');
    const events = [];
    helper.getNode('events').on('input', (msg) => events.push(msg));
    await waitFor(() => b.ports, 20000, 'the broker to listen');
    assert.deepEqual(b.ports, { tcp: port, ws: wsPort });

    clients.push(await connect(`mqtt://127.0.0.1:${port}`, { username: 'plc', password: 'plc-pw' }));
    clients.push(await connect(`ws://127.0.0.1:${wsPort}/mqtt`, { username: 'twin', password: 'twin-pw' }));
    await assert.rejects(connect(`mqtt://127.0.0.1:${port}`, { username: 'twin', password: 'wrong-pw-123' }));
    await waitFor(() => events.length === 1, 20000, 'the refusal on the output');
    assert.equal(events[0].topic, 'refused');
    assert.equal(events[0].payload.code, 'E_MQTT_AUTH');
    assert.ok(!JSON.stringify(events[0].payload).includes('wrong-pw-123'));
    assert.equal(b.counters.clients, 2);
    assert.equal(b.counters.authFailures, 1);

    // Redeploy (stop and start the same flow): clients are dropped and the ports are free again.
    const dropped = Promise.all(clients.map((c) => new Promise((r) => c.once('close', r))));
    await helper.unload();
    await dropped;
    await Promise.all(clients.splice(0).map(end));
    await helper.load(brokerNode, flow({ port: String(port), wsPort: String(wsPort) }), { b: { users: USERS } });
    const b2 = helper.getNode('b');
    await waitFor(() => b2.ports, 20000, 'the broker to listen again');
    clients.push(await connect(`mqtt://127.0.0.1:${port}`, { username: 'monitor', password: 'mon-pw' }));
  });

  it('takes its users from S7T_MQTT_USERS and falls back to defaults for unset ${ENV} references', async () => {
    const port = await freePort();
    process.env.S7T_MQTT_USERS_NODE_TEST = 'plc:env-pw:plc';
    try {
      await helper.load(brokerNode, flow({ port: String(port), wsPort: 'off', host: '${S7T_UNSET_HOST_FOR_TEST}', usersEnv: 'S7T_MQTT_USERS_NODE_TEST' }));
      const b = helper.getNode('b');
      await waitFor(() => b.ports, 20000, 'the broker to listen');
      assert.equal(b.ports.ws, null);
      clients.push(await connect(`mqtt://127.0.0.1:${port}`, { username: 'plc', password: 'env-pw' }));
    } finally {
      delete process.env.S7T_MQTT_USERS_NODE_TEST;
    }
  });

  it('without users, or on a port in use, reports an error status and does not crash', async () => {
    const port = await freePort();
    await helper.load(brokerNode, flow({ port: String(port), wsPort: 'off', usersEnv: 'S7T_NO_SUCH_VAR' }));
    const b = helper.getNode('b');
    const statuses = [];
    b.on('call:status', (call) => statuses.push(call.args[0]));
    await waitFor(() => statuses.some((s) => s.fill === 'red' && s.shape === 'dot'), 20000, 'the error status');
    assert.equal(b.ports, undefined);
    await helper.unload();

    const net = require('node:net');
    const blocker = net.createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      await helper.load(brokerNode, flow({ port: String(port), wsPort: 'off' }), { b: { users: USERS } });
      const b2 = helper.getNode('b');
      const st = [];
      b2.on('call:status', (call) => st.push(call.args[0]));
      await waitFor(() => st.some((s) => s.fill === 'red' && /port in use/.test(s.text)), 20000, 'port in use');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    assert.equal(brokerNode.portSetting('off', 1883), null);
    assert.equal(brokerNode.portSetting('${X}', 1883), 1883);
    assert.throws(() => brokerNode.portSetting('99999', 1883), (e) => e.code === 'E_MQTT_CONFIG');
  });
});

describe('examples/s7twin-mqtt-broker.json', () => {
  before(() => helper.startServer());
  after(() => helper.stopServer());
  afterEach(() => helper.unload());

  it('loads in a real Node-RED, serves MQTT and reports a refused login on its debug node', async () => {
    const core = ['21-debug.js', '90-comment.js'].map((f) => require(`@node-red/nodes/core/common/${f}`));
    const flow = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', '..', 'examples', 's7twin-mqtt-broker.json'), 'utf8'));
    const port = await freePort();
    for (const n of flow) if (n.type === 's7twin-mqtt-broker') Object.assign(n, { host: '127.0.0.1', port: String(port), wsPort: 'off' });
    await helper.load([brokerNode, ...core], flow, { 'ex.mqtt.broker': { users: USERS } });
    const b = helper.getNode('ex.mqtt.broker');
    await waitFor(() => b.ports, 20000, 'the example broker');
    const debug = helper.getNode('ex.mqtt.debug');
    const got = [];
    debug.on('input', (msg) => got.push(msg));
    const c = await connect(`mqtt://127.0.0.1:${port}`, { username: 'twin', password: 'twin-pw' });
    await end(c);
    await assert.rejects(connect(`mqtt://127.0.0.1:${port}`, { username: 'nobody', password: 'x-y-z' }));
    await waitFor(() => got.length === 1, 20000, 'the refusal at the debug node');
    assert.equal(got[0].payload.code, 'E_MQTT_AUTH');
  });
});
