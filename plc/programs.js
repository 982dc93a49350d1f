'use strict';
/**
 * What the virtual PLC runs each scan for its table: the box-sorting program (plc/program.js) for
 * a table that names it (the demo plant's), else the table's echo rules: an I/O image with no
 * program, where an output with `echo` takes, each scan, the value of the tag it names (a
 * setpoint copied to its actual value, a valve command to its feedback), so flows and twins can
 * be built and tested before the hardware arrives.
 */
const program = require('./program');
const { PlcError } = require('./errors');

/** The tags the box-sorting program reads and writes, with their types. */
const BOX_SORTING = {
  st: 'BOOL', sp: 'BOOL', se: 'BOOL', p1f: 'BOOL', p1b: 'BOOL', sd: 'BOOL', dmg: 'BOOL', p2f: 'BOOL', sk: 'BOOL', p3f: 'BOOL',
  c1: 'BOOL', p1fw: 'BOOL', p1bw: 'BOOL', p2fw: 'BOOL', c2: 'BOOL', p3fw: 'BOOL', red: 'BOOL', grn: 'BOOL',
  ng: 'INT', nr: 'INT', nb: 'DINT', scn: 'DINT',
};
const BOX_MARKERS = ['Running', 'RejectActive', 'PackActive', 'Piston1Cycle'];

/**
 * The box-sorting program over an image, its state kept here.
 * @param {object} table
 * @param {number} scanCountEvery refresh ScanCount every N scans (each is an S7 write)
 */
function boxSorting(table, scanCountEvery) {
  for (const [short, type] of Object.entries(BOX_SORTING)) {
    const t = table.get(short);
    if (!t || t.type !== type || t.dir !== (program.outputsOf(program.initialState())[short] === undefined ? 'in' : 'out')) {
      throw new PlcError('E_CONFIG',
        `the box-sorting program needs tag "${short}" (${type}) with its direction; the table has ${t ? `${t.type}, ${t.dir}` : 'none'}`);
    }
  }
  const names = table.TABLE.markers.map((m) => m.name);
  const missing = BOX_MARKERS.filter((m) => !names.includes(m));
  if (missing.length) throw new PlcError('E_CONFIG', `the box-sorting program needs the markers ${missing.join(', ')}`);
  let state = program.initialState();
  return {
    name: 'box-sorting',
    start(image) { image.writeOutputs(program.outputsOf(state)); },
    scan(image) {
      const res = program.scan(state, image.readInputs());
      state = res.state;
      if (state.scans % scanCountEvery !== 0) delete res.outputs.scn; // keep the last refreshed value
      image.writeOutputs(res.outputs);
      image.writeMarkers(program.markersOf(state));
    },
  };
}

/**
 * A value of one tag as another's: numbers rounded into whole-number types; refused (null) when
 * the target's type or range cannot hold it.
 */
function coerce(table, to, v) {
  let value = v;
  if (typeof v === 'number' && to.type !== 'REAL' && to.type !== 'LREAL' && to.type !== 'BOOL') value = Math.round(v);
  try {
    return table.normalise(to, value);
  } catch {
    return null;
  }
}

/**
 * The echo rules of a table: each output with `echo` follows the tag it names.
 * @param {object} table
 * @param {{echoRejected?: number}} counters echoRejected: copies the target could not hold
 */
function echoRules(table, counters) {
  const rules = table.tags.filter((t) => t.echo).map((t) => ({ to: t, from: table.get(t.echo) }));
  return {
    name: rules.length ? 'echo' : 'none',
    start() {},
    scan(image) {
      if (!rules.length) return;
      const values = image.values();
      const out = {};
      for (const r of rules) {
        const v = coerce(table, r.to, values[r.from.short]);
        if (v === null) counters.echoRejected = (counters.echoRejected || 0) + 1;
        else if (v !== values[r.to.short]) out[r.to.short] = v;
      }
      image.writeOutputs(out);
    },
  };
}

/**
 * The program a table's PLC runs.
 * @param {object} table
 * @param {{scanCountEvery: number, counters: object}} o
 * @returns {{name: string, start(image): void, scan(image): void}}
 * @throws {PlcError} E_CONFIG when the table names the box-sorting program but lacks its tags
 */
function programFor(table, o) {
  return table.program === 'box-sorting' ? boxSorting(table, o.scanCountEvery) : echoRules(table, o.counters);
}

module.exports = { programFor, BOX_SORTING };
