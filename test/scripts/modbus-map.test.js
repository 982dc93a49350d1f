'use strict';
/** scripts/modbus-map.js: the register map of a table, as Markdown and CSV, from the table's own map. */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { demoTable, loadTable } = require('../../nodes/lib/core/io-table');
const { markdown, csv } = require('../../scripts/modbus-map');

const TANK = path.join(__dirname, '..', '..', 'examples', 'tables', 'tank.csv');

test('the demo plant\'s map: packed commands and states, the counters, BoxesIn cut to 16 bits, the probe slots', () => {
  const md = markdown(demoTable());
  assert.match(md, /\| HR0\.0 \| StartButton \| `st` \| BOOL \| in \|/);
  assert.match(md, /\| HR4 \| BoxesIn \| `nb` \| DINT \(low 16 bits\) \| out \|/);
  assert.match(md, /Commands \(inputs\): HR0 \(1 register\)\. States \(outputs\): HR1–4 \(4 registers\)\./);
  assert.match(md, /request HR1000\+2i, response HR4000\+2i/);
});

test('the tank\'s map from its CSV, on the command line too', () => {
  const tank = loadTable({ file: TANK });
  assert.match(markdown(tank), /\| HR1–2 \| Setpoint \| `sp` \| REAL \| in \| twin \(cloud\), edge \(PLC\) \|/);
  const lines = csv(tank).trim().split('\r\n');
  assert.equal(lines.length, 1 + tank.tags.length);
  assert.ok(lines.includes('3,,9,rcp,Recipe,STRING[16],in,"twin (cloud), edge (PLC)"'));
  const out = execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'modbus-map.js'), '--json', '--table', TANK], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out).commands, { address: 0, count: 12 });
});
