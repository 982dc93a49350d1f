'use strict';
/**
 * Render an I/O table as the Markdown table the README shows for the demo plant (its
 * nodes/lib/core/io-table.json), so the README never drifts from it: a test compares the two.
 *
 *   node scripts/io-table-md.js                   print the demo plant's table
 *   node scripts/io-table-md.js --table x.csv     print another table (JSON, CSV or a TIA .db source)
 */
const { demoTable, loadTable } = require('../nodes/lib/core/io-table');

/**
 * @param {object} [table] default: the demo plant's
 * @returns {string} the Markdown table, one row per tag
 */
function render(table = demoTable()) {
  const rows = [
    '| name | short | type | S7 address | Modbus | OPC UA node id (PLC) | dir | cloud-writable | timed as |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const t of table.tags) {
    const m = t.modbus;
    let mb = '–';
    if (m) mb = m.bit !== undefined ? `HR${m.reg}.${m.bit}` : `HR${m.reg}${m.words > 1 ? `–${m.reg + m.words - 1}` : ''}`;
    const withAlso = Object.entries((t.timed && t.timed.with) || {}).map(([k, v]) => ` + ${k}=${v}`).join('');
    const timed = t.timed ? `${t.timed.trigger}=${t.timed.value}${withAlso} → ${t.short}` : '';
    const writable = t.cloudWritable ? 'yes' : 'no';
    rows.push(`| ${t.name} | \`${t.short}\` | ${t.typeName} | \`${t.s7}\` | ${mb} | \`${t.opcua}\` | ${t.dir} | ${writable} | ${timed} |`);
  }
  return rows.join('\n');
}

if (require.main === module) {
  const i = process.argv.indexOf('--table');
  console.log(render(i > 0 ? loadTable({ file: process.argv[i + 1] }) : demoTable()));
}
module.exports = { render };
