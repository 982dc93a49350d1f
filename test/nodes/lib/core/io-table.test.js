'use strict';
/**
 * The I/O table as a value: the demo plant's and the tank's tables, their checks (each refusal
 * naming the tag), the ranges the edge reads, the Modbus map, CSV and TIA Portal round trips,
 * loading a table from a file or S7T_IO_TABLE, the plants' registry, and the module running in a
 * browser-like sandbox with no Node built-ins.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const T = require('../../../../nodes/lib/core/io-table');

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const TANK_JSON = path.join(ROOT, 'examples', 'tables', 'tank.json');
const TANK_CSV = path.join(ROOT, 'examples', 'tables', 'tank.csv');
const tankDef = () => JSON.parse(fs.readFileSync(TANK_JSON, 'utf8'));
/** A one-tag definition plus `more` tags. */
const def = (...tags) => ({ tags: tags.map((t, i) => ({ name: `T${i}`, short: `t${i}`, type: 'INT', s7: `DB5,INT${2 * i}`, dir: 'out', ...t })) });
/** The errors validateTable finds, as [code, tag]. */
const found = (d) => T.validateTable(d).errors.map((e) => [e.code, e.tag]);

test('the demo plant\'s table: one data block of 16 bytes, read as one range, its Modbus map as before', () => {
  const d = T.demoTable();
  assert.equal(d, T.demoTable(), 'made once');
  assert.equal(d.program, 'box-sorting');
  assert.equal(d.tags.length, 22);
  assert.deepEqual(d.areas, [{ key: 'DB1', area: 'DB', db: 1, size: 16 }]);
  assert.equal(d.ioDbSize, 16);
  assert.deepEqual(d.readRanges(), [{ key: 'DB1', area: 'DB', db: 1, start: 0, length: 12 }], 'ScanCount (not streamed) is not read');
  assert.deepEqual(d.modbusMap.commands, { address: 0, count: 1 });
  assert.deepEqual(d.modbusMap.states, { address: 1, count: 4 });
  assert.equal(d.MODBUS_REGISTERS, 6048);
  assert.deepEqual(d.decodeRegisters(1, [0b1000001, 65534, 3, 70000 & 0xffff]), { c1: 1, p1fw: 0, p1bw: 0, p2fw: 0, c2: 0, p3fw: 0, red: 1, grn: 0, ng: -2,
    nr: 3, nb: 4464 });
  assert.deepEqual(d.encodeRegisters(1, 4, { red: 1, ng: -2, nb: 70000 }), [64, 65534, 0, 4464], 'BoxesIn: its low 16 bits on Modbus');
  assert.equal(d.get('StartButton'), d.get('st'));
  assert.equal(d.get('st').opcua, 'ns=3;s="DB1"."StartButton"');
  assert.equal(d.get('nb').tia, '%DB1.DBD8');
  assert.ok(Object.isFrozen(d) && Object.isFrozen(d.tags) && Object.isFrozen(d.get('st')) && Object.isFrozen(d.TABLE.plc));
  assert.match(d.fingerprint, /^[0-9a-f]{14}$/);
});

test('the tank: REAL, WORD, UDINT, STRING in two data blocks and the M area, each area read as one range', () => {
  const tank = T.createTable(tankDef());
  assert.equal(tank.name, 'tank');
  assert.equal(tank.program, null);
  assert.deepEqual(tank.areas.map((a) => [a.key, a.size]), [['DB10', 30], ['DB11', 24], ['M', 12]]);
  assert.deepEqual(tank.readRanges().map((r) => [r.key, r.start, r.length]), [['DB10', 0, 30], ['DB11', 0, 24], ['M', 2, 10]]);
  const areas = { DB10: Buffer.alloc(30), DB11: Buffer.alloc(24), M: Buffer.alloc(12) };
  const set = (short, v) => tank.writeTag(areas[tank.get(short).addr.key], tank.get(short), tank.normalise(tank.get(short), v));
  set('lvl', 42.5); set('cnt', 4294967295); set('rca', 'Milk'); set('sts', 0x8001); set('vo', true); set('sp', 0.1);
  const v = tank.decodeBlock(areas);
  assert.deepEqual(v, { lvl: 42.5, tmp: 0, cnt: 4294967295, rca: 'Milk', sp: 0.1, vlv: 0, rcp: '', sts: 0x8001, vo: 1 });
  assert.equal(areas.M[2], 1, 'M2.0');
  assert.equal(areas.M.readUInt16BE(10), 0x8001, 'MW10');
  assert.throws(() => tank.decodeBlock(areas.DB10), { code: 'E_AREA' }, 'one buffer cannot hold three areas');
  assert.deepEqual(tank.checkWrite('sp', 42.5), { tag: tank.get('sp'), value: 42.5 });
  assert.equal(tank.checkWrite('rcp', 'Beer').value, 'Beer');
  assert.throws(() => tank.checkWrite('sp', 101), { code: 'E_RANGE' });
  assert.throws(() => tank.checkWrite('rcp', 'x'.repeat(17)), { code: 'E_RANGE' });
  assert.throws(() => tank.checkWrite('lvl', 1), { code: 'E_NOT_WRITABLE' });
  assert.throws(() => tank.checkState({ lvl: 'high' }), { code: 'E_TYPE' });
  assert.deepEqual(tank.timedPairs(), [{ output: 'vo', name: 'ValveOpen', trigger: 'vlv', value: 1, with: {} }]);
  assert.notEqual(tank.fingerprint, T.demoTable().fingerprint);
});

test('the tank\'s Modbus map: inputs then outputs, BOOLs packed, 32-bit values high word first, STRING length then characters', () => {
  const tank = T.createTable(tankDef());
  const at = (s) => { const e = tank.modbusMap.entries.find((x) => x.short === s); return e.bit === undefined ? [e.reg, e.words] : [e.reg, e.bit]; };
  assert.deepEqual([at('vlv'), at('sp'), at('rcp'), at('vo'), at('lvl'), at('sts')], [[0, 0], [1, 2], [3, 9], [12, 0], [13, 2], [28, 1]]);
  assert.deepEqual(tank.modbusMap.commands, { address: 0, count: 12 });
  assert.deepEqual(tank.modbusMap.states, { address: 12, count: 17 });
  const words = tank.encodeRegisters(0, 12, { vlv: 1, sp: 42.5, rcp: 'Abc' });
  assert.deepEqual(words.slice(0, 6), [1, 0x422a, 0, 3, 0x4162, 0x6300]);
  assert.deepEqual(tank.decodeRegisters(0, words), { vlv: 1, sp: 42.5, rcp: 'Abc' });
  assert.equal(tank.decodeRegisters(17, [0xffff, 0xffff]).cnt, 4294967295);
});

test('a table with an overlap or a bad address is refused with a message that names the tag', () => {
  const overlap = def({ name: 'Flow', short: 'fl', type: 'DINT', s7: 'DB5,DINT0' }, { name: 'Pressure', short: 'pr', type: 'INT', s7: 'DB5,INT2' });
  assert.deepEqual(found(overlap), [['E_TAG_OVERLAP', 'Pressure']]);
  assert.throws(() => T.createTable(overlap), (e) => e.code === 'E_TABLE' && /tag "Pressure": "DB5,INT2" overlaps tag "Flow" \(DB5,DINT0\) at DB5 byte 2/.test(e.message) && e.errors.length === 1);
  const bad = def({ name: 'Level', short: 'lvl', type: 'REAL', s7: 'DB5,RAEL0' });
  assert.throws(() => T.createTable(bad), (e) => e.code === 'E_TABLE' && /tag "Level": address "DB5,RAEL0" is not an S7 address/.test(e.message));
  const bits = def({ name: 'A', short: 'a', type: 'BOOL', s7: 'DB5,X0.3' }, { name: 'B', short: 'b', type: 'BOOL', s7: 'DB5,X0.3' }, { name: 'C',
    short: 'c', type: 'BYTE', s7: 'DB5,BYTE0' });
  assert.deepEqual(found(bits), [['E_TAG_OVERLAP', 'B'], ['E_TAG_OVERLAP', 'C']]);
});

test('every check names its tag and field: types, addresses, alignment, sizes, names, ranges, links', () => {
  const cases = [
    [{ type: 'FLOAT' }, 'E_TAG_TYPE', 'type'],
    [{ type: 'STRING[300]', s7: 'DB5,S0' }, 'E_TAG_TYPE', 'type'],
    [{ s7: 'DB5,INT3' }, 'E_TAG_ALIGN', 's7'],
    [{ type: 'REAL', s7: 'DB5,INT0' }, 'E_TAG_WIDTH', 's7'],
    [{ type: 'BOOL', s7: 'DB5,BYTE0' }, 'E_TAG_WIDTH', 's7'],
    [{ type: 'STRING[8]', s7: 'DB5,S0.10' }, 'E_TAG_SIZE', 's7'],
    [{ type: 'STRING[8]', s7: 'MW0' }, 'E_TAG_WIDTH', 's7'],
    [{ s7: 'DB2,INT0' }, 'E_TAG_OVERLAP', 's7'],
    [{ s7: 'DB0,INT0' }, 'E_ADDRESS', 's7'],
    [{ s7: 'M1.8', type: 'BOOL' }, 'E_ADDRESS', 's7'],
    [{ name: '1st' }, 'E_TAG_NAME', 'name'],
    [{ short: 'a b' }, 'E_TAG_SHORT', 'short'],
    [{ max: 40000 }, 'E_TAG_RANGE', 'max'],
    [{ min: 5, max: 1 }, 'E_TAG_RANGE', 'max'],
    [{ min: 0.5 }, 'E_TAG_RANGE', 'min'],
    [{ type: 'BOOL', s7: 'DB5,X0.0', min: 0 }, 'E_TAG_RANGE', 'min'],
    [{ dir: 'both' }, 'E_TAG_DIR', 'dir'],
    [{ cloudWritable: 'yes' }, 'E_TAG_FLAG', 'cloudWritable'],
    [{ modbus: { reg: 2000 } }, 'E_TAG_MODBUS', 'modbus'],
    [{ modbus: { reg: 1, bit: 3 } }, 'E_TAG_MODBUS', 'modbus'],
    [{ timed: { trigger: 'nope', value: 1 } }, 'E_TAG_TIMED', 'timed'],
    [{ echo: 't0' }, 'E_TAG_ECHO', 'echo'],
    [{ opcua: 'DB1.Level' }, 'E_TAG_OPCUA', 'opcua'],
  ];
  for (const [t, code, field] of cases) {
    const { errors } = T.validateTable(def(t));
    assert.equal(errors.length, 1, `${JSON.stringify(t)}: ${JSON.stringify(errors)}`);
    assert.deepEqual([errors[0].code, errors[0].field, errors[0].index], [code, field, 0], JSON.stringify(t));
    assert.match(errors[0].message, new RegExp(`^tag "${t.name || 'T0'}": `), errors[0].message);
  }
  assert.deepEqual(found(def({}, { name: 'T0' })), [['E_TAG_DUPLICATE', 'T0']]);
  assert.deepEqual(found(def({}, { short: 'T0' })), [['E_TAG_DUPLICATE', 'T1']], 'a short id that is another tag\'s name');
  assert.deepEqual(found(def({ modbus: { reg: 3 } }, { modbus: { reg: 3 } })), [['E_TAG_MODBUS', 'T1']]);
  assert.deepEqual(found(def({ type: 'REAL', s7: 'DB5,REAL0' }, { type: 'BOOL', s7: 'DB5,X4.0', echo: 't0' })), [['E_TAG_ECHO', 'T1']]);
  assert.deepEqual(found(def({}, { s7: 'MW11' })), [], 'the M area has no alignment rule');
  assert.deepEqual(found({ tags: [] }), [['E_TABLE_SCHEMA', null]]);
  assert.deepEqual(found([1]), [['E_TABLE_SCHEMA', null]]);
  assert.deepEqual(found({ ...def({}), program: 'mixer' }), [['E_TABLE_SCHEMA', null]]);
  const { warnings } = T.validateTable(def({ cloudWritable: true }, { colour: 'red' }));
  assert.deepEqual(warnings.map((w) => [w.code, w.tag]), [['W_WRITABLE_OUTPUT', 'T0'], ['W_FIELD', 'T1']]);
});

test('addresses in nodes7\'s and TIA\'s notation', () => {
  const a = (s) => { const p = T.parseAddress(s); return p && [p.key, p.byte, p.bit, p.width]; };
  assert.deepEqual(a('DB5,REAL4'), ['DB5', 4, 0, 4]);
  assert.deepEqual(a('%DB5.DBD4'), ['DB5', 4, 0, 4]);
  assert.deepEqual(a('db1.dbx2.7'), ['DB1', 2, 7, 0]);
  assert.deepEqual(a('DB2,S10.16'), ['DB2', 10, 0, 18]);
  assert.deepEqual(a('MW10'), ['M', 10, 0, 2]);
  assert.deepEqual(a('%M2.0'), ['M', 2, 0, 0]);
  assert.deepEqual(a('MX0.3'), ['M', 0, 3, 0]);
  assert.deepEqual(a('MLR8'), ['M', 8, 0, 8]);
  for (const bad of ['DB1,X0', 'DB1,X0.8', 'DB1,INT4.2', 'DB1,FOO4', 'MQ3', 'IW0', 'DB70000,INT0', '']) assert.equal(T.parseAddress(bad), null, bad);
});

test('CSV: the demo and the tank tables round trip; tank.csv is the tank', () => {
  for (const t of [T.demoTable(), T.createTable(tankDef())]) {
    const back = T.createTable(T.parseCsv(T.toCsv(t)));
    assert.equal(back.fingerprint, t.fingerprint, t.name);
    assert.deepEqual(back.tags, t.tags, t.name);
  }
  const fromCsv = T.createTable(T.parseCsv(fs.readFileSync(TANK_CSV, 'utf8')));
  assert.equal(fromCsv.fingerprint, T.createTable(tankDef()).fingerprint, 'examples/tables/tank.csv matches tank.json (node -e: toCsv it again)');
});

test('CSV: a spreadsheet\'s semicolons and decimal commas, quoted cells, other header names, a BOM', () => {
  const text = '\uFEFFName;Short;Type;Address;Dir;Writable;Min;Max;Description\r\n'
    + 'Setpoint;sp;REAL;DB11,REAL0;in;yes;0;99,5;"Fill ""level"";\nsetpoint"\r\n\r\n'
    + 'Valve;vlv;BOOL;DB11,X4.0;in;x;;;\r\n';
  const d = T.parseCsv(text);
  assert.deepEqual(d.tags, [
    { name: 'Setpoint', short: 'sp', type: 'REAL', s7: 'DB11,REAL0', dir: 'in', cloudWritable: true, min: 0, max: 99.5, desc: 'Fill "level";\nsetpoint' },
    { name: 'Valve', short: 'vlv', type: 'BOOL', s7: 'DB11,X4.0', dir: 'in', cloudWritable: true },
  ]);
  assert.equal(T.createTable(d).get('sp').max, 99.5);
  assert.throws(() => T.parseCsv('name,short,colour\n'), { code: 'E_CSV', message: /unknown column "colour"/ });
  assert.throws(() => T.parseCsv('name,type,s7\n'), { code: 'E_CSV', message: /no "short" column/ });
  assert.throws(() => T.parseCsv('name,short,type,s7,cloudWritable\nA,a,INT,"DB5,INT0,maybe\n'), { code: 'E_CSV', message: /never closed/ });
  assert.throws(() => T.parseCsv('name,short,type,s7,cloudWritable\nA,a,INT,"DB5,INT0",maybe\n'), { code: 'E_CSV', message: /line 2, cloudWritable: "maybe"/ });
  assert.throws(() => T.parseCsv(''), { code: 'E_CSV' });
  const refused = T.validateTable(T.parseCsv('name,short,type,s7,max\nA,a,INT,"DB5,INT0",lots\n'));
  assert.deepEqual(refused.errors.map((e) => [e.code, e.tag]), [['E_TAG_RANGE', 'A']], 'a cell that is no number reaches the check, which names the tag');
});

test('TIA: the demo table\'s external source (plc/tia/s7twin-blocks.db) reads back at the same offsets', () => {
  const demo = T.demoTable();
  for (const text of [T.toTiaSource(demo), fs.readFileSync(path.join(ROOT, 'plc', 'tia', 's7twin-blocks.db'), 'utf8')]) {
    const d = T.fromTiaSource(text);
    assert.deepEqual(d.skipped.map((s) => s.member), ['Req', 'Res'], 'the probe arrays are laid out, not tags');
    const back = T.createTable(d);
    assert.deepEqual(back.tags.map((t) => [t.name, t.short, t.address, t.dir, t.cloudWritable, t.min, t.max]),
      demo.tags.map((t) => [t.name, t.short, t.address, t.dir, t.cloudWritable, t.min, t.max]));
  }
});

test('TIA: the tank round trips, the M area through the tag list in the source\'s comments', () => {
  const tank = T.createTable(tankDef());
  const back = T.createTable(T.fromTiaSource(T.toTiaSource(tank)));
  assert.deepEqual(back.tags.map((t) => [t.name, t.short, t.typeName, t.address, t.dir, t.cloudWritable, t.min, t.max, t.unit, t.desc]),
    tank.tags.map((t) => [t.name, t.short, t.typeName, t.address, t.dir, t.cloudWritable, t.min, t.max, t.unit, t.desc]));
});

test('TIA: a block as TIA Portal exports it, laid out as TIA does with optimized access off', () => {
  const source = [
    'DATA_BLOCK "Tank"', "{ S7_Optimized_Access := 'FALSE' }", 'VERSION : 0.1', 'NON_RETAIN', '   STRUCT ',
    '      Level : Real;   // Tank level in %',
    "      Temperature { ExternalAccessible := 'False'; ExternalVisible := 'False'} : Real := 20.0;",
    '      Running : Bool;', '      Alarm : Bool;', '      Mode : Byte;', '      Counter : UDInt;',
    '      Motor : Struct   // the pump', '         Speed : Int;', '         On : Bool;', '      END_STRUCT;',
    '      History : Array[0..4] of Real;', "      Recipe : String[10] := 'none';", '      Flag : Bool;',
    '      Stamp : DTL;', '      Code : Char;', '      (* a comment *) Total : LReal;',
    '   END_STRUCT;', '', '', 'BEGIN', '   Level := 0.0;', '', 'END_DATA_BLOCK', '',
  ].join('\r\n');
  assert.throws(() => T.fromTiaSource(source), { code: 'E_TIA', message: /"Tank": a source does not say its number/ });
  const d = T.fromTiaSource(source, { numbers: { Tank: 10 } });
  const t = T.createTable(d);
  assert.deepEqual(t.tags.map((x) => [x.name, x.address]), [
    ['Level', 'DB10,REAL0'], ['Temperature', 'DB10,REAL4'], ['Running', 'DB10,X8.0'], ['Alarm', 'DB10,X8.1'], ['Mode', 'DB10,BYTE9'],
    ['Counter', 'DB10,UDINT10'], ['Motor_Speed', 'DB10,INT14'], ['Motor_On', 'DB10,X16.0'], ['Recipe', 'DB10,S38.10'],
    ['Flag', 'DB10,X50.0'], ['Total', 'DB10,LREAL66'],
  ]);
  assert.deepEqual(d.skipped.map((s) => [s.member, s.type]), [['History', 'Array of Real'], ['Stamp', 'DTL'], ['Code', 'Char']]);
  assert.equal(t.get('Motor_Speed').opcua, 'ns=3;s="Tank"."Motor"."Speed"');
  assert.equal(t.get('Level').desc, 'Tank level in %');
  assert.deepEqual([t.get('Level').short, t.get('Level').dir, t.get('Level').cloudWritable], ['level', 'out', false]);
  assert.throws(() => T.fromTiaSource(source.replace("'FALSE'", "'TRUE'"), { numbers: { Tank: 10 } }), { code: 'E_TIA', message: /optimized access/ });
  assert.throws(() => T.fromTiaSource(source.replace('Mode : Byte', 'Mode : "MyUdt"'), { numbers: { Tank: 10 } }), { code: 'E_TIA', message: /line 10 \(Tank.Mode\)/ });
  assert.throws(() => T.fromTiaSource('FUNCTION "x" : Void\nEND_FUNCTION'), { code: 'E_TIA' });
});

test('loadTable: a JSON, CSV or TIA file, S7T_IO_TABLE, else the demo plant\'s; a bad file says which', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7twin-table-'));
  try {
    assert.equal(T.loadTable({ env: {} }), T.demoTable());
    assert.equal(T.loadTable({ file: TANK_JSON }).name, 'tank');
    assert.equal(T.loadTable({ env: { S7T_IO_TABLE: TANK_CSV } }).fingerprint, T.loadTable({ file: TANK_JSON }).fingerprint);
    const db = path.join(dir, 'demo.db');
    fs.writeFileSync(db, T.toTiaSource(T.demoTable()));
    assert.equal(T.loadTable({ file: db }).tags.length, 22);
    assert.throws(() => T.loadTable({ file: path.join(dir, 'none.json') }), { code: 'E_TABLE_FILE' });
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '{"tags": [');
    assert.throws(() => T.loadTable({ file: broken }), { code: 'E_TABLE_JSON' });
    const refused = path.join(dir, 'refused.json');
    fs.writeFileSync(refused, JSON.stringify(def({}, { s7: 'DB5,INT0' })));
    assert.throws(() => T.loadTable({ file: refused }), (e) => e.code === 'E_TABLE' && e.message.startsWith(`${refused}: I/O table refused: tag "T1"`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the plants\' registry: configured tables win, an edge teaches the rest, a different table is refused', () => {
  const tank = T.createTable(tankDef());
  const reg = T.createTableRegistry({ fallback: T.demoTable, createTable: T.createTable });
  const seen = [];
  reg.onChange((p) => seen.push(p));
  assert.equal(reg.get('p1'), T.demoTable());
  assert.equal(reg.source('p1'), 'default');
  assert.equal(reg.learn('p1', { fingerprint: T.demoTable().fingerprint }), T.demoTable(), 'the fallback matches: nothing to learn');
  assert.equal(reg.learn('tank1', { fingerprint: tank.fingerprint, definition: tank.definition }).fingerprint, tank.fingerprint);
  assert.equal(reg.source('tank1'), 'edge');
  assert.throws(() => reg.learn('tank2', { fingerprint: tank.fingerprint }), { code: 'E_TABLE_MISMATCH' }, 'no definition to learn from');
  assert.throws(() => reg.learn('tank2', { fingerprint: 'abc', definition: tank.definition }), { code: 'E_TABLE_MISMATCH' },
    'a definition that is not what the fingerprint says');
  reg.set('p2', tank, 'node-a');
  assert.throws(() => reg.learn('p2', { fingerprint: T.demoTable().fingerprint, definition: T.demoTable().definition }), { code: 'E_TABLE_MISMATCH', message: /plant "p2"/ });
  reg.delete('p2', 'node-b');
  assert.equal(reg.get('p2'), tank, 'only its owner removes it');
  reg.delete('p2', 'node-a');
  reg.forget('tank1');
  assert.equal(reg.get('tank1'), T.demoTable());
  assert.deepEqual(seen, ['tank1', 'p2', 'p2', 'tank1']);
});

test('tableOf and processTable: the demo plant\'s where none is given, S7T_IO_TABLE for the process', (t) => {
  assert.equal(T.tableOf(undefined), T.demoTable());
  const tank = T.createTable(tankDef());
  assert.equal(T.tableOf(tank), tank);
  assert.equal(T.tableOf(tankDef()).fingerprint, tank.fingerprint);
  const before = process.env.S7T_IO_TABLE;
  t.after(() => { if (before === undefined) delete process.env.S7T_IO_TABLE; else process.env.S7T_IO_TABLE = before; });
  delete process.env.S7T_IO_TABLE;
  assert.equal(T.processTable(), T.demoTable());
  process.env.S7T_IO_TABLE = TANK_JSON;
  assert.equal(T.processTable().fingerprint, tank.fingerprint);
  assert.equal(T.plantTables.get('anything').fingerprint, tank.fingerprint);
});

test('the checks, CSV and TIA parts run in a browser: bundled, with no Node built-in, no Buffer, no process', () => {
  const { bundle } = require('../../../../nodes/lib/web/page-bundle');
  const { text, modules } = bundle({ root: ROOT, entries: ['nodes/lib/core/io-table.js'] });
  assert.ok(modules.every((m) => !m.startsWith('node:')), modules.join(', '));
  const sandbox = { console };
  vm.createContext(sandbox);
  vm.runInContext(text, sandbox);
  const B = sandbox.S7Twin.require('nodes/lib/core/io-table.js');
  assert.equal(B.validateTable(def({}, { s7: 'DB5,INT0' })).errors[0].tag, 'T1');
  const tank = B.createTable(B.parseCsv(fs.readFileSync(TANK_CSV, 'utf8')));
  assert.equal(tank.fingerprint, T.createTable(tankDef()).fingerprint, 'the same fingerprint in the browser');
  assert.equal(B.createTable(B.fromTiaSource(B.toTiaSource(tank))).tags.length, 9);
  const area = new Uint8Array(30);
  tank.writeTag(area, tank.get('lvl'), 12.5);
  assert.equal(tank.readTag(area, tank.get('lvl')), 12.5, 'the codec on a Uint8Array');
  assert.throws(() => B.loadTable({ file: 'x.json' }), /not available|not in the page bundle|node:fs/);
});
