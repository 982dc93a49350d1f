'use strict';
/**
 * The PLC side a real S7-1500 (or S7-1200, or PLCSIM Advanced) needs, as a TIA Portal external
 * source: the non-optimized data blocks of an I/O table at exactly the offsets the virtual PLC
 * and the edge use, the probe blocks, and a function that echoes the probe slots each scan as the
 * virtual PLC does (nodes/lib/core/table/tia.js makes it; it reads such a source back too). In
 * TIA Portal: Project tree → the CPU → External source files → Add new external file → this file
 * → right click → Generate blocks from source. docs/deploy.md ("A real S7-1500") has the checklist.
 *
 *   node scripts/tia-source.js                      write plc/tia/s7twin-blocks.db (the demo plant's)
 *   node scripts/tia-source.js --stdout             print it
 *   node scripts/tia-source.js --table tank.csv     print the source of another table (JSON, CSV)
 *   node scripts/tia-source.js --table x.json --out x.db
 */
const fs = require('node:fs');
const path = require('node:path');
const { demoTable, loadTable, toTiaSource } = require('../nodes/lib/core/io-table');

const OUT = path.join(__dirname, '..', 'plc', 'tia', 's7twin-blocks.db');

/**
 * The external source of a table.
 * @param {object} [table] default: the demo plant's
 * @returns {string}
 */
function generate(table = demoTable()) {
  return toTiaSource(table);
}

/** The value after `--name` in argv, or undefined. */
function arg(argv, name) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const file = arg(argv, '--table');
  const text = generate(file ? loadTable({ file }) : demoTable());
  const out = arg(argv, '--out') || (file ? null : OUT);
  if (argv.includes('--stdout') || !out) process.stdout.write(text);
  else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
    process.stderr.write(`wrote ${path.relative(process.cwd(), out)}\n`);
  }
}

module.exports = { generate, OUT };
