'use strict';
/**
 * The Modbus register map of an I/O table (nodes/lib/core/table/modbus.js makes it from the
 * table): which holding register carries which tag, as the virtual PLC, the cloud's Modbus server,
 * the edge's codec and the twins use it. For the edge flow's Modbus nodes (their addresses and
 * counts are the commands and states blocks) and for a SCADA that reads the same registers.
 *
 *   node scripts/modbus-map.js                     the demo plant's map, as a Markdown table
 *   node scripts/modbus-map.js --table tank.csv    another table's (JSON, CSV or a TIA .db source)
 *   node scripts/modbus-map.js --csv               as CSV (register,bit,words,short,name,type,dir,written by)
 *   node scripts/modbus-map.js --json              the map as the table gives it (table.modbusMap)
 */
const { demoTable, loadTable } = require('../nodes/lib/core/io-table');

/** Who writes a tag's registers on the cloud's server. */
const writer = (e) => (e.cloudWritable ? 'twin (cloud), edge (PLC)' : 'edge (cloud), PLC');

/** One register's text: HR4, HR0.3 (a bit), HR1–2 (several). */
function hr(e) {
  if (e.bit !== undefined) return `HR${e.reg}.${e.bit}`;
  return e.words > 1 ? `HR${e.reg}–${e.reg + e.words - 1}` : `HR${e.reg}`;
}

/**
 * The map as Markdown: one row per tag in register order, then the blocks and the probe slots.
 * @param {object} table
 * @returns {string}
 */
function markdown(table) {
  const m = table.modbusMap;
  const rows = [...m.entries].sort((a, b) => a.reg - b.reg || (a.bit ?? 0) - (b.bit ?? 0));
  const lines = ['| register | tag | short | type | dir | written by |', '| --- | --- | --- | --- | --- | --- |'];
  for (const e of rows) {
    const t = table.get(e.short);
    const note = t.modbus.words === 1 && t.size === 4 ? ' (low 16 bits)' : '';
    lines.push(`| ${hr(e)} | ${e.name} | \`${e.short}\` | ${e.type}${note} | ${e.dir} | ${writer(e)} |`);
  }
  const block = (b) => {
    if (!b) return 'none';
    return b.count === 1 ? `HR${b.address} (1 register)` : `HR${b.address}–${b.address + b.count - 1} (${b.count} registers)`;
  };
  const last = m.probeResponseBase + 2 * table.PROBE_SLOTS - 1;
  lines.push('', `Commands (inputs): ${block(m.commands)}. States (outputs): ${block(m.states)}.`,
    `Probe slot i: request HR${m.probeRequestBase}+2i, response HR${m.probeResponseBase}+2i (UDInt, high word first), `
    + `i < ${table.PROBE_SLOTS}; ${m.registers} registers in all (HR0–${last}).`,
    'Two registers: high word first (a REAL as its IEEE 754 bits). A STRING: its length, then two characters per register.');
  return lines.join('\n');
}

/** The map as CSV. */
function csv(table) {
  const lines = ['register,bit,words,short,name,type,dir,written by'];
  for (const e of table.modbusMap.entries) lines.push([e.reg, e.bit ?? '', e.words, e.short, e.name, e.type, e.dir, `"${writer(e)}"`].join(','));
  return `${lines.join('\r\n')}\r\n`;
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--table');
  const table = i >= 0 ? loadTable({ file: argv[i + 1] }) : demoTable();
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(table.modbusMap, null, 2)}\n`);
  else if (argv.includes('--csv')) process.stdout.write(csv(table));
  else process.stdout.write(`${markdown(table)}\n`);
}

module.exports = { markdown, csv };
