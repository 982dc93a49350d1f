'use strict';
/**
 * The s7twin-io-table config node in a real Node-RED runtime: the PLC connection and the s7 node
 * that use it read and write the tank's tags on the tank's virtual PLC (REAL, BOOL, STRING; two
 * data blocks and the M area), the plants it names get it in the plant registry, and a refused
 * table stops the connection with a message that names the tag.
 */
const { describe, it, before, after, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const helper = require('node-red-node-test-helper');
const { plantTables, demoTable } = require('../../nodes/lib/core/io-table');
const { startPlc } = require('../helpers/plc');
const { waitFor } = require('../helpers/nodes');

const nodes = [require('../../nodes/s7twin-io-table'), require('../../nodes/s7twin-plc'), require('../../nodes/s7twin-s7')];
helper.init(require.resolve('node-red'));

const TANK_JSON = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json'), 'utf8');
const TAB = 'tab';
let seq = 0;
const cmd = (d) => ({ v: 1, k: 'cmd', src: 'twin-1', seq: ++seq, ts: Date.now(), d });

function flow(port, table) {
  return [
    { id: TAB, type: 'tab', label: 'tank' },
    { id: 'tbl', type: 's7twin-io-table', name: 'tank', plants: 'tank1, tank2', table },
    { id: 'plc', type: 's7twin-plc', table: 'tbl', host: '127.0.0.1', port, rack: 0, slot: 1, cycleMs: 10, timeoutMs: 1000, backoffMaxMs: 300 },
    { id: 's7', type: 's7twin-s7', z: TAB, plc: 'plc', src: 'edge-tank', probeTimeoutMs: 3000, x: 100, y: 100, wires: [['out']] },
    { id: 'out', type: 'helper', z: TAB, x: 300, y: 100, wires: [] },
  ];
}

describe('s7twin-io-table with the PLC connection and the s7 node', () => {
  let plc;
  before(async () => {
    await helper.startServer();
    plc = await startPlc({ table: JSON.parse(TANK_JSON), opcua: false, modbus: false });
  });
  after(async () => {
    await helper.stopServer();
    await plc.stop();
  });
  afterEach(() => helper.unload());

  it('the tank\'s tags over S7: a snap of them, a command of its types written, the echoes streamed back', async () => {
    await helper.load(nodes, flow(plc.ports.s7, TANK_JSON));
    const got = [];
    helper.getNode('out').on('input', (m) => got.push(m.payload));
    const snap = await waitFor(() => got.find((e) => e.k === 'snap'), 20000, 'the first snapshot');
    assert.deepEqual(Object.keys(snap.d).sort(), ['cnt', 'lvl', 'rca', 'rcp', 'sp', 'sts', 'tmp', 'vlv', 'vo']);
    assert.equal(plantTables.get('tank2').name, 'tank', 'the plants it names have it');
    assert.equal(plantTables.source('tank1'), 'config');
    helper.getNode('s7').receive({ payload: cmd({ sp: 42.5, vlv: true, rcp: 'Milk' }) });
    await waitFor(() => got.some((e) => e.k === 'ack'), 10000, 'ack');
    await waitFor(() => plc.values().lvl === 42.5 && plc.values().vo === 1 && plc.values().rca === 'Milk', 10000, 'on the PLC');
    await waitFor(() => got.some((e) => e.k === 'state' && e.d.lvl === 42.5), 10000, 'the level streamed back');
    helper.getNode('s7').receive({ payload: cmd({ sp: 'full' }) });
    const err = await waitFor(() => got.find((e) => e.k === 'err'), 10000, 'an answer');
    assert.equal(err.e.code, 'E_TYPE');
  });

  it('the plants leave the registry when the node goes', async () => {
    await helper.load(nodes, flow(plc.ports.s7, TANK_JSON));
    await helper.unload();
    assert.equal(plantTables.get('tank1'), demoTable(), 'back to the fallback (no S7T_IO_TABLE here)');
  });

  it('a refused table stops the connection; the s7 node says why and writes nothing', async () => {
    const bad = JSON.parse(TANK_JSON);
    bad.tags.push({ name: 'Pressure', short: 'pr', type: 'INT', s7: 'DB10,INT2', dir: 'out' });
    await helper.load(nodes, flow(plc.ports.s7, JSON.stringify(bad)));
    const tbl = helper.getNode('tbl');
    assert.equal(tbl.table, null);
    assert.equal(tbl.tableError.code, 'E_TABLE');
    assert.match(tbl.tableError.message, /tag "Pressure": "DB10,INT2" overlaps tag "Level"/);
    assert.equal(helper.getNode('plc').conn, undefined, 'no connection to the PLC');
    assert.equal(plantTables.source('tank1'), 'default');
    const s7 = helper.getNode('s7');
    const done = new Promise((resolve) => { s7.receive({ payload: cmd({ sp: 1 }) }); s7.on('call:error', resolve); });
    await Promise.race([done, new Promise((r) => setTimeout(r, 200))]);
    assert.ok(s7.counters && s7.counters.cmds === 0, 'nothing written');
  });
});
