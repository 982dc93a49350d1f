'use strict';
/**
 * The TIA Portal external source (scripts/tia-source.js, committed as plc/tia/s7twin-blocks.db)
 * read back as TIA would lay it out: members of a non-optimized block in declaration order, BOOLs
 * bit after bit, BYTE on the next byte, WORD/INT/DINT/UDINT and arrays on the next even byte. Every
 * tag of the I/O table must land on its own address and type, the probe arrays on slot i at 4*i.
 * The layout rules are written out here on their own, from the S7 documentation, not taken from
 * the generator, so a generator that places a member wrongly fails.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { demoTable, loadTable, parseAddress } = require('../../nodes/lib/core/io-table');
const { generate, OUT } = require('../../scripts/tia-source');

const tags = demoTable();
const SIZE = { Bool: 0, Byte: 1, USInt: 1, SInt: 1, Word: 2, Int: 2, UInt: 2, DInt: 4, UDInt: 4, DWord: 4, Real: 4, LReal: 8 };
const SCL = { BOOL: 'Bool', INT: 'Int', DINT: 'DInt', REAL: 'Real', UDINT: 'UDInt', WORD: 'Word', STRING: 'String' };

/** Parse the DATA_BLOCKs of an external source: name → {optimized, members: [{name, type, byte, bit, count}]}. */
function parse(source) {
  const blocks = {};
  const re = /DATA_BLOCK "([^"]+)"\n([\s\S]*?)END_DATA_BLOCK/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const body = m[2];
    const attr = /\{\s*S7_Optimized_Access := '(TRUE|FALSE)'\s*\}/.exec(body);
    const struct = /STRUCT\s*\n([\s\S]*?)END_STRUCT;/.exec(body)[1];
    let bit = 0;
    const members = [];
    for (const line of struct.split('\n')) {
      const d = /^\s*(\w+) : (?:Array\[(\d+)\.\.(\d+)\] of )?(\w+)(?:\[(\d+)\])?;/.exec(line);
      if (!d) { assert.equal(line.replace(/\/\/.*/, '').trim(), '', `unparsed line: ${line}`); continue; }
      const [, name, lo, hi, type, len] = d;
      const size = type === 'String' ? Number(len) + 2 : SIZE[type];
      assert.ok(size !== undefined, `type ${type}`);
      if (lo !== undefined || type !== 'Bool') bit = Math.ceil(bit / 8) * 8; // next byte
      if (lo !== undefined || size >= 2) bit = Math.ceil(bit / 16) * 16; // next even byte (a STRING too)
      const count = lo === undefined ? 1 : Number(hi) - Number(lo) + 1;
      members.push({ name, type, byte: bit >> 3, bit: bit & 7, count, first: lo === undefined ? undefined : Number(lo) });
      bit += type === 'Bool' ? count : 8 * size * count;
    }
    blocks[m[1]] = { optimized: attr && attr[1] === 'TRUE', members, bytes: Math.ceil(bit / 8) };
  }
  return blocks;
}

test('every I/O table tag lands on its own address and type in the non-optimized DB1', () => {
  const blocks = parse(generate());
  const db1 = blocks.DB1;
  assert.equal(db1.optimized, false, 'S7_Optimized_Access FALSE');
  for (const t of tags.tags) {
    const m = db1.members.find((x) => x.name === t.name);
    assert.ok(m, `${t.name} declared`);
    assert.equal(m.type, SCL[t.type], `${t.name} type`);
    assert.deepEqual([m.byte, t.type === 'BOOL' ? m.bit : 0], [t.addr.byte, t.addr.bit], `${t.name} at ${t.s7}`);
  }
  assert.equal(db1.bytes, tags.ioDbSize, 'the block is as long as the edge reads');
  for (const m of db1.members.filter((x) => !tags.get(x.name))) assert.match(m.name, /^Spare_/, 'only spares besides the tags');
});

test('the probe blocks hold one UDInt per slot at byte 4*i, as many slots as the virtual PLC', () => {
  const blocks = parse(generate());
  const plc = tags.TABLE.plc;
  for (const [db, name] of [[plc.probeRequestDb, 'Req'], [plc.probeResponseDb, 'Res']]) {
    const b = blocks[`DB${db}`];
    assert.equal(b.optimized, false);
    assert.deepEqual(b.members, [{ name, type: 'UDInt', byte: 0, bit: 0, count: plc.probeSlots, first: 0 }]);
    // slot i of tags.TABLE.probe ("DB2,UDINT{4*i}") is element i
    const addr = parseAddress(tags.template(tags.TABLE.probe[name === 'Req' ? 'request' : 'response'], { i: 7 }));
    assert.deepEqual([addr.db, addr.width, addr.byte], [db, 4, b.members[0].byte + 4 * 7]);
  }
  assert.match(generate(), /"DB3"\.Res := "DB2"\.Req;/, 'the echo the virtual PLC does each scan');
});

test('the tank\'s two data blocks: REAL, UDInt, STRING, BOOL each on its own address', () => {
  const tank = loadTable({ file: path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.json') });
  const blocks = parse(generate(tank));
  for (const t of tank.tags.filter((x) => x.addr.area === 'DB')) {
    const m = blocks[t.addr.key].members.find((x) => x.name === t.name);
    assert.ok(m, `${t.name} declared`);
    assert.equal(m.type, SCL[t.type], `${t.name} type`);
    assert.deepEqual([m.byte, m.bit], [t.addr.byte, t.addr.bit], `${t.name} at ${t.s7}`);
  }
  assert.match(generate(tank), /\/\/ {3}ValveOpen : Bool AT %M2\.0;/, 'the M area\'s tags listed for a PLC tag table');
});

test('the committed plc/tia/s7twin-blocks.db is what the generator makes from the table', () => {
  assert.equal(fs.readFileSync(OUT, 'utf8'), generate(), 'run: node scripts/tia-source.js');
});
