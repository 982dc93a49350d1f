'use strict';
/**
 * Render the I/O table (nodes/lib/core/io-table.json) as the Markdown table the README shows, so the
 * README never drifts from the one source of truth: a test compares the two.
 *
 *   node scripts/io-table-md.js          print the table
 */
const tags = require('../nodes/lib/core/tags');

/** @returns {string} the Markdown table, one row per tag */
function render() {
  const rows = [
    '| name | short | type | S7 address | Modbus | OPC UA node id (PLC) | dir | cloud-writable | timed as |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const t of tags.tags) {
    const mb = !t.modbus ? '–' : t.modbus.bit === undefined ? `HR${t.modbus.reg}` : `HR${t.modbus.reg}.${t.modbus.bit}`;
    const withAlso = Object.entries((t.timed && t.timed.with) || {}).map(([k, v]) => ` + ${k}=${v}`).join('');
    const timed = t.timed ? `${t.timed.trigger}=${t.timed.value}${withAlso} → ${t.short}` : '';
    rows.push(`| ${t.name} | \`${t.short}\` | ${t.type} | \`${t.s7}\` | ${mb} | \`${t.opcua}\` | ${t.dir} | ${t.cloudWritable ? 'yes' : 'no'} | ${timed} |`);
  }
  return rows.join('\n');
}

if (require.main === module) console.log(render());
module.exports = { render };
