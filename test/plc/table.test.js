'use strict';
/**
 * The virtual PLC runs any I/O table: the tank (two data blocks and the M area, REAL, WORD,
 * UDINT, STRING) as an I/O image whose echo rules copy a setpoint, a valve command and a recipe
 * to their outputs, on S7, OPC UA and Modbus with each value of its type. A table it cannot run
 * is refused before anything listens.
 */
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const ModbusRTU = require('modbus-serial');
const { AttributeIds, DataType, StatusCodes } = require('node-opcua');
const { loadTable, demoTable } = require('../../nodes/lib/core/io-table');
const { createPlc } = require('../../plc');
const { parse, describe } = require('../../plc/cli');
const { startPlc, waitFor, s7Connect, opcuaSession } = require('../helpers/plc');

const TANK = path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json');
const tank = loadTable({ file: TANK });

let plc;
let s7;
let mb;
let client;
let session;

before(async () => {
  plc = await startPlc({ table: tank });
  s7 = await s7Connect(plc.ports.s7);
  mb = new ModbusRTU();
  await mb.connectTCP('127.0.0.1', { port: plc.ports.modbus });
  mb.setID(1);
  mb.setTimeout(5000);
  ({ client, session } = await opcuaSession(plc.ports.opcua));
});

after(async () => {
  if (session) await session.close().catch(() => {});
  if (client) await client.disconnect();
  if (mb) await new Promise((resolve) => mb.close(resolve));
  if (s7) await s7.close();
  if (plc) await plc.stop();
});

test('S7: a REAL setpoint, a BOOL valve and a STRING recipe written into DB11 come back from DB10 and the M area', async () => {
  assert.equal(plc.table, tank);
  await s7.write({ 'DB11,REAL0': 42.5, 'DB11,X4.0': true, 'DB11,S6.16': 'Milk' });
  await waitFor(() => plc.values().lvl === 42.5 && plc.values().vo === 1 && plc.values().rca === 'Milk', 10000, 'echoed');
  // The scan's outputs reach the S7 server through the PLC's own client (plc/s7.js), a write that
  // lands shortly after the scan that made them: wait for it, then read everything at once.
  const items = ['DB10,REAL0', 'M2.0', 'DB10,S12.16', 'MW10', 'DB10,DWORD8'];
  const v = await waitFor(async () => {
    const r = await s7.read(items);
    return r['DB10,REAL0'] === 42.5 && r['M2.0'] === true && r['DB10,S12.16'].trimEnd() === 'Milk' && r;
  }, 10000, 'the echo over S7');
  assert.equal(v['DB10,REAL0'], 42.5);
  assert.equal(v['M2.0'], true);
  assert.equal(v['DB10,S12.16'].trimEnd(), 'Milk');
  assert.deepEqual([v.MW10, v['DB10,DWORD8']], [0, 0]);
  const block = Buffer.from((await s7.read(['DB10,BYTE0.30']))['DB10,BYTE0.30']);
  assert.deepEqual(tank.decodeBlock({ DB10: block, DB11: Buffer.alloc(24), M: Buffer.alloc(12) }, (t) => t.addr.key === 'DB10'),
    { lvl: 42.5, tmp: 0, cnt: 0, rca: 'Milk' }, 'DB10 as the table lays it out');
});

test('OPC UA: each tag with its type, the setpoint written as a Float, the STRING as a String', async () => {
  const read = (id) => session.read({ nodeId: id, attributeId: AttributeIds.Value });
  const lvl = await read('ns=3;s="DB10"."Level"');
  assert.equal(lvl.value.dataType, DataType.Float);
  assert.equal((await read('ns=3;s="ValveOpen"')).value.dataType, DataType.Boolean);
  assert.equal((await read('ns=3;s="Status"')).value.dataType, DataType.UInt16);
  assert.equal((await read('ns=3;s="DB10"."Batches"')).value.dataType, DataType.UInt32);
  const write = (id, dataType, value) => session.write({ nodeId: id, attributeId: AttributeIds.Value, value: { value: { dataType, value } } });
  assert.equal(await write('ns=3;s="DB11"."Setpoint"', DataType.Float, 12.25), StatusCodes.Good);
  assert.equal(await write('ns=3;s="DB11"."Recipe"', DataType.String, 'Beer'), StatusCodes.Good);
  await waitFor(() => plc.values().lvl === 12.25 && plc.values().rca === 'Beer', 10000, 'echoed');
  assert.equal((await read('ns=3;s="DB10"."RecipeActive"')).value.value, 'Beer');
  assert.equal(await write('ns=3;s="DB11"."Setpoint"', DataType.Float, 150), StatusCodes.BadOutOfRange, 'beyond the tag\'s max');
  assert.equal(await write('ns=3;s="DB10"."Level"', DataType.Float, 1), StatusCodes.BadNotWritable);
});

test('Modbus: the table\'s map, REAL high word first, the recipe as length and characters', async () => {
  const m = tank.modbusMap;
  const sp = m.entries.find((e) => e.short === 'sp');
  await mb.writeRegisters(sp.reg, tank.encodeRegisters(sp.reg, 2, { sp: 33.5 }));
  await waitFor(() => plc.values().lvl === 33.5, 10000, 'level follows');
  const states = (await mb.readHoldingRegisters(m.states.address, m.states.count)).data;
  const v = tank.decodeRegisters(m.states.address, states);
  assert.equal(v.lvl, 33.5);
  assert.equal(v.rca, 'Beer');
  await assert.rejects(mb.writeRegister(m.states.address + 1, 1), (err) => err.modbusCode === 2, 'outputs are read-only');
  await assert.rejects(mb.writeRegister(0, 0b10), (err) => err.modbusCode === 3, 'a bit no input defines');
  await assert.rejects(mb.writeRegisters(sp.reg, tank.encodeRegisters(sp.reg, 2, { sp: 300 })), (err) => err.modbusCode === 3, 'beyond the setpoint\'s max');
  await mb.writeRegister(0, 0); // the valve off
  await waitFor(() => plc.values().vo === 0, 10000, 'valve feedback off');
});

test('a table the PLC cannot run is refused before anything listens', async () => {
  await assert.rejects(createPlc({ table: { tags: [{ name: 'A', short: 'a', type: 'INT', s7: 'DB5,INT3' }] }, s7: false, opcua: false, modbus: false }),
    (e) => e.code === 'E_TABLE' && /tag "A"/.test(e.message));
  const def = JSON.parse(JSON.stringify(demoTable().definition));
  def.tags = def.tags.filter((t) => t.short !== 'red');
  await assert.rejects(createPlc({ table: def, s7: false, opcua: false, modbus: false }), { code: 'E_CONFIG', message: /needs tag "red"/ });
});

test('npm run plc -- --table: the tank from a file, S7T_IO_TABLE as the default, the demo plant\'s without either', () => {
  assert.equal(parse(['--table', TANK], {}).opts.table.fingerprint, tank.fingerprint);
  assert.equal(parse([], { S7T_IO_TABLE: TANK }).opts.table.fingerprint, tank.fingerprint);
  assert.equal(parse([], {}).opts.table, demoTable());
  assert.throws(() => parse(['--table', path.join(__dirname, 'nope.json')], {}), { code: 'E_TABLE_FILE' });
  assert.match(describe(plc, { host: '127.0.0.1', scanMs: 10 }), /an I\/O image with echo rules for table "tank" \(9 tags, DB10 DB11 M\)/);
});
