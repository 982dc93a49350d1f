'use strict';
/**
 * s7twin-modbus-codec in a real Node-RED runtime (node-red-node-test-helper): change-only relay,
 * the whole block again after a failed write of it, and the optional timed resend (`refreshMs`):
 * a write refused while the client stayed connected must not be lost for good. Towards a PLC
 * ("Fresh only", the default for commands): baselines at start and after the source client's
 * reconnects, and nothing sent again after the target's reconnect or a failed write (a command written late could move the plant);
 * the clients are node-red-contrib-modbus's own config nodes on real TCP connections.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const helper = require('node-red-node-test-helper');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { waitFor } = require('../helpers/nodes');
const { createModbusServer } = require('../../nodes/lib/modbus/server');
const { freePort } = require('../helpers/nodered');

const codecNode = require('../../nodes/s7twin-modbus-codec');
const modbusNodes = ['modbus-client', 'modbus-getter', 'modbus-write'].map((n) => require(`node-red-contrib-modbus/modbus/${n}`));

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
    const t0 = Date.now();
    c.receive({ payload: block });
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 1 && got.env.length === 1, 5000, 'first block out');
    assert.deepEqual(got.write[0].payload, block);
    assert.equal(got.write[0].address, 1);
    assert.equal(got.env[0].payload.k, 'state');
    // The same block read again and again (as a Modbus Read node polls) until refreshMs has passed
    // and the relay resends it, once.
    await waitFor(() => { if (!c.relay.counters.refreshed) c.receive({ payload: block }); return got.write.length === 2; }, 10000, 'resent after refreshMs');
    assert.ok(Date.now() - t0 >= 1000, `resent ${Date.now() - t0} ms after the first pass, not before refreshMs`);
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
    // The relay judged that read (synchronously, on input): unchanged, so nothing was sent.
    await waitFor(() => c.relay.counters.unchanged >= 1, 5000, 'the read after the write judged');
    assert.equal(c.relay.counters.passed, 1, 'a write that went through: nothing resent');
    assert.equal(got.write.length, 1);
    c.receive({ topic: 'hr1', payload: '', error: new Error('Queue full') });
    c.receive({ payload: block });
    await waitFor(() => got.write.length === 2, 5000, 'the block again after the failed write');
    assert.deepEqual(got.write[1].payload, block);
    assert.equal(c.counters.failedWrites, 1);
    assert.equal(c.relay.counters.refreshed, 0, 'no timed resend by default');
  });

  it('refreshMs 0 passes a block only when it changed', async () => {
    const got = await load('0');
    const c = helper.getNode('c');
    c.receive({ payload: block });
    await waitFor(() => c.relay.counters.passed === 1, 5000, 'the first block passed');
    c.receive({ payload: block });
    c.receive({ payload: [block[0], 3, 0, 3] });
    await waitFor(() => got.write.length === 2, 5000, 'the change');
    assert.deepEqual(got.write.map((m) => m.payload[1]), [2, 3]);
    assert.equal(c.relay.counters.refreshed, 0);
  });

  const client = (id, port) => ({
    id, type: 'modbus-client', name: `${id} client`, clienttype: 'tcp', bufferCommands: true, tcpHost: '127.0.0.1', tcpPort: String(port), tcpType: 'DEFAULT',
    unit_id: '1', commandDelay: '1', clientTimeout: '1000', reconnectOnTimeout: true, reconnectTimeout: '200', parallelUnitIdsAllowed: true,
    maxQueueDepth: '8', showErrors: false, showWarnings: false, showLogs: false,
  });

  /** A real Modbus TCP server (the cloud's) on a fixed port; a restart is a new one, every register 0. */
  async function modbusServer(port) {
    const srv = createModbusServer({ port, registers: 16 });
    await srv.start();
    return srv;
  }

  it('towards a PLC (cmd, Fresh only by default): baselines at start and after the source reconnects, ' +
    'nothing resent after the target reconnects or a failed write', async (t) => {
    const ports = { cloud: await freePort(), plc: await freePort() };
    const srv = { cloud: await modbusServer(ports.cloud), plc: await modbusServer(ports.plc) };
    t.after(() => Promise.allSettled([srv.cloud.close(), srv.plc.close()]));
    const word = (v) => tags.packRegister(0, v);
    srv.cloud.write(0, [word({ st: 1, sd: 1 })]); // what the cloud's HR0 holds when the edge starts
    await helper.load([...modbusNodes, codecNode], [
      { id: 'f', type: 'tab', label: 'f' },
      client('src', ports.cloud), client('dst', ports.plc),
      // The edge's "commands → PLC" chain: read cloud HR0 → codec → write PLC HR0, the Write wired back.
      {
        id: 'g', type: 'modbus-getter', z: 'f', x: 100, y: 100, name: '', unitid: '', dataType: 'HoldingRegister', adr: '0', quantity: '1', server: 'src',
        emptyMsgOnFail: true, wires: [['c'], []],
      },
      {
        id: 'c', type: 's7twin-modbus-codec', z: 'f', x: 300, y: 100, address: '0', count: '1', kind: 'auto', target: 'dst', source: 'src', refreshMs: '0',
        wires: [['env'], ['w', 'write']],
      },
      {
        id: 'w', type: 'modbus-write', z: 'f', x: 500, y: 100, name: '', unitid: '', dataType: 'HoldingRegister', adr: '0', quantity: '1', server: 'dst',
        emptyMsgOnFail: true, wires: [['c'], []],
      },
      // The PLC client also polls (as the edge's state loop does), so it notices a dropped connection.
      {
        id: 'g2', type: 'modbus-getter', z: 'f', x: 100, y: 200, name: '', unitid: '', dataType: 'HoldingRegister', adr: '1', quantity: '1', server: 'dst',
        emptyMsgOnFail: true, wires: [[], []],
      },
      { id: 'env', type: 'helper', z: 'f', x: 500, y: 200 },
      { id: 'write', type: 'helper', z: 'f', x: 500, y: 300 },
    ]);
    const got = { env: [], write: [] };
    helper.getNode('env').on('input', (m) => got.env.push(m));
    helper.getNode('write').on('input', (m) => got.write.push(m));
    let plcConnects = 0;
    helper.getNode('dst').on('mbconnected', () => { plcConnects += 1; });
    const c = helper.getNode('c');
    // Poll both clients every 20 ms (the edge's loops) until cond() holds.
    const poll = (cond, what) => waitFor(() => {
      helper.getNode('g').receive({ topic: 'poll0', payload: Date.now() });
      helper.getNode('g2').receive({ topic: 'poll1', payload: Date.now() });
      return cond();
    }, 15000, what, 20);
    const reads = () => c.relay.counters.updates;

    await poll(() => reads() >= 3, 'three reads of the cloud');
    assert.equal(c.relay.counters.baselines, 1);
    assert.deepEqual(srv.plc.read(0), [0], 'the stale image at start reached the PLC');
    assert.equal(got.write.length + got.env.length, 0, 'nothing passed on, no envelope for a baseline');

    // A twin's fresh command reaches the PLC.
    srv.cloud.write(0, [word({ st: 1, sd: 0 })]);
    await poll(() => srv.plc.read(0)[0] === word({ st: 1, sd: 0 }), 'the fresh command in the PLC');
    assert.deepEqual(got.env[0].payload.d, { sd: 0 });

    // A failed write (the Write node's "empty message on fail", wired back): counted, dropped.
    c.receive({ topic: 'hr0', payload: '', error: new Error('Modbus exception 4') });
    let n = reads();
    await poll(() => reads() >= n + 3, 'three more reads');
    assert.equal(got.write.length, 1, 'a failed write was sent again (late)');
    assert.equal(c.counters.failedWrites, 1);

    // The PLC restarts (its inputs were set since by another path, e.g. the WebSocket one): the
    // PLC client reconnects, and nothing is resent to it.
    await srv.plc.close();
    srv.plc = await modbusServer(ports.plc);
    srv.plc.write(0, [word({ p1f: 1 })]);
    await poll(() => plcConnects >= 2, 'the PLC client reconnected');
    n = reads();
    await poll(() => reads() >= n + 3, 'three reads after the PLC reconnect');
    assert.deepEqual(srv.plc.read(0), [word({ p1f: 1 })], 'the block was resent after the target reconnected');
    assert.equal(got.write.length, 1);

    // The cloud restarts (its registers 0): the source reconnects, its first read is a baseline.
    await srv.cloud.close();
    srv.cloud = await modbusServer(ports.cloud);
    await poll(() => c.counters.sourceConnects >= 2 && c.relay.counters.baselines === 2, 'the baseline after the cloud restart');
    n = reads();
    await poll(() => reads() >= n + 3, 'three reads after the cloud restart');
    assert.deepEqual(srv.plc.read(0), [word({ p1f: 1 })], 'the restarted cloud\'s zeros reached the PLC');
    srv.cloud.write(0, [word({ sp: 1 })]);
    await poll(() => srv.plc.read(0)[0] === word({ sp: 1 }), 'a fresh command after the new baseline');
    assert.equal(c.relay.counters.resets, 0);
    assert.equal(got.write.length, 2);
  });

  it('Fresh only off (towards a cloud server) keeps passing the first read; on with a resend is a config error', async () => {
    await helper.load(codecNode, [
      { id: 'c', type: 's7twin-modbus-codec', address: '0', count: '1', kind: 'cmd', baseline: 'off', target: '', wires: [['env'], ['write']] },
      {
        id: 'p', type: 's7twin-modbus-codec', block: 'message', address: '1000', kind: 'state', baseline: 'on', target: '', refreshMs: '1000',
        wires: [[], []],
      },
      { id: 'env', type: 'helper' },
      { id: 'write', type: 'helper' },
    ]);
    const got = [];
    helper.getNode('write').on('input', (m) => got.push(m));
    helper.getNode('c').receive({ payload: [0] });
    await waitFor(() => got.length === 1, 5000, 'the first read passed on');
    const p = helper.getNode('p');
    // The misconfigured node built no relay; a read reaching it is refused with its config error.
    assert.equal(p.relay, undefined, 'no relay was built');
    const errors = [];
    p.on('call:error', (call) => errors.push(String(call.args[0])));
    p.receive({ payload: [0, 0], modbusRequest: { address: 1000 } });
    await waitFor(() => errors.length >= 1, 5000, 'the read refused');
    assert.match(errors[0], /E_CONFIG|Fresh only|baseline/i);
  });
});
