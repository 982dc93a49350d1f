'use strict';
/**
 * An I/O table's tags as CSV, one row per tag, for a spreadsheet or a PLC programmer's tag list:
 *
 *   name,short,type,s7,dir,cloudWritable,min,max,unit,desc,modbus,opcua,timed,noStream,echo
 *   Setpoint,sp,REAL,"DB11,REAL0",in,true,0,100,%,Fill level setpoint,,,,,
 *
 * Cells: `cloudWritable` and `noStream` true/false (yes/no, x, 1/0 too); `modbus` empty = placed
 * by the map, `none` = not on Modbus, `4` = register 4, `0.3` = bit 3 of register 0, `4:1` = register
 * 4 holding the low 16 bits; `timed` `sd=1&dmg=1` = trigger sd=1 with dmg=1; `min`, `max` numbers.
 * The reader takes `,` or `;` between cells (what a spreadsheet with a decimal comma writes, and
 * then 0,5 for a number), quoted cells with "" for a quote and line breaks inside, a header in
 * any order with a few other names for a column (address for s7, writable for cloudWritable,
 * description or comment for desc).
 *
 * A small RFC 4180 reader of our own rather than a CSV package: a tag list is a few hundred rows
 * of one shape, and the reader must run unchanged in the editor's browser bundle; the 50 lines
 * below are all the format needs. Browser-safe.
 */
const { codedError } = require('../errors');

/** Error with a stable `code` (E_CSV), naming the line. */
const CsvError = codedError('CsvError');

/** Columns in the order toCsv writes them. */
const COLUMNS = ['name', 'short', 'type', 's7', 'dir', 'cloudWritable', 'min', 'max', 'unit', 'desc', 'modbus', 'opcua', 'timed', 'noStream', 'echo'];
/** Other headers a column is known by (lower case). */
const ALIASES = {
  address: 's7', s7address: 's7', writable: 'cloudWritable', cloudwritable: 'cloudWritable', description: 'desc', comment: 'desc',
  nostream: 'noStream', direction: 'dir', datatype: 'type', 'data type': 'type', shortid: 'short', id: 'short', symbol: 'name',
};

/**
 * The rows of a CSV text (RFC 4180: quoted cells, "" inside them, CRLF or LF).
 * @param {string} text
 * @param {string} sep
 * @returns {Array<{cells: string[], line: number}>} line: where the row starts (1-based)
 * @throws {CsvError} E_CSV for a quote left open
 */
function readRows(text, sep) {
  const rows = [];
  let cells = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 1; } else if (c === '"') quoted = false;
      else { if (c === '\n') line += 1; cell += c; }
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === sep) { cells.push(cell); cell = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      cells.push(cell);
      rows.push({ cells, line: start });
      cells = []; cell = ''; line += 1; start = line;
    } else cell += c;
  }
  if (quoted) throw new CsvError('E_CSV', `CSV line ${start}: a quoted cell is never closed`);
  if (cell !== '' || cells.length) { cells.push(cell); rows.push({ cells, line: start }); }
  return rows.filter((r) => r.cells.some((x) => x.trim() !== ''));
}

/** A yes/no cell. */
function flag(v, where) {
  const s = v.trim().toLowerCase();
  if (s === '') return undefined;
  if (['true', 'yes', 'y', 'x', '1'].includes(s)) return true;
  if (['false', 'no', 'n', '-', '0'].includes(s)) return false;
  throw new CsvError('E_CSV', `${where}: "${v}" is not true or false`);
}

/** A number cell (a decimal comma taken when the cells are separated by ;). Not a number: kept as text for the table check to name. */
function num(v, sep) {
  const s = v.trim();
  if (s === '') return undefined;
  const n = Number(sep === ';' ? s.replace(/^(-?\d+),(\d+)$/, '$1.$2') : s);
  return Number.isFinite(n) ? n : s;
}

/** A modbus cell: '' (placed by the map), none, 4, 0.3, 4:1. */
function modbusCell(v, where) {
  const s = v.trim().toLowerCase().replace(/^hr/, '');
  if (s === '') return undefined;
  if (s === 'none' || s === '-') return null;
  let m = /^(\d+)\.(\d+)$/.exec(s);
  if (m) return { reg: Number(m[1]), bit: Number(m[2]) };
  m = /^(\d+)(?::(\d+))?$/.exec(s);
  if (m) return m[2] === undefined ? { reg: Number(m[1]) } : { reg: Number(m[1]), words: Number(m[2]) };
  throw new CsvError('E_CSV', `${where}: modbus "${v}" is not a register (4), a bit (0.3), 4:1 or none`);
}

/** A timed cell: trigger=value&other=value. */
function timedCell(v, sep, where) {
  const s = v.trim();
  if (s === '') return undefined;
  const pairs = s.split('&').map((p) => /^\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(\S+)\s*$/.exec(p));
  if (pairs.some((p) => !p)) throw new CsvError('E_CSV', `${where}: timed "${v}" is not trigger=value (with &other=value)`);
  const val = (x) => num(x, sep);
  const out = { trigger: pairs[0][1], value: val(pairs[0][2]) };
  if (pairs.length > 1) out.with = Object.fromEntries(pairs.slice(1).map((p) => [p[1], val(p[2])]));
  return out;
}

/** The header's cells as column names. @throws {CsvError} for a column we do not know */
function headerOf(cells, line) {
  return cells.map((h) => {
    const raw = h.trim().replace(/^\uFEFF/, '');
    const k = raw.toLowerCase();
    const col = COLUMNS.find((c) => c.toLowerCase() === k) || ALIASES[k];
    if (!col) throw new CsvError('E_CSV', `CSV line ${line}: unknown column "${raw}" (columns: ${COLUMNS.join(', ')})`);
    return col;
  });
}

/** One tag from one row. */
function tagOf(header, cells, line, sep) {
  const t = {};
  header.forEach((col, k) => {
    const v = cells[k] ?? '';
    const where = `CSV line ${line}, ${col}`;
    let val;
    if (col === 'cloudWritable' || col === 'noStream') val = flag(v, where);
    else if (col === 'min' || col === 'max') val = num(v, sep);
    else if (col === 'modbus') val = modbusCell(v, where);
    else if (col === 'timed') val = timedCell(v, sep, where);
    else val = v.trim() === '' ? undefined : v.trim();
    if (val !== undefined) t[col] = val;
  });
  return t;
}

/**
 * A table definition (its tags) from CSV text.
 * @param {string} text
 * @returns {{version: 1, tags: object[]}} check it with validateTable / createTable
 * @throws {CsvError} E_CSV naming the line: no header, an unknown column, a cell that is no flag,
 *   register or timing
 */
function parseCsv(text) {
  const src = String(text ?? '').replace(/^\uFEFF/, '');
  const first = src.split(/\r?\n/, 1)[0];
  const sep = first.includes(';') && !first.includes(',') ? ';' : ',';
  const rows = readRows(src, sep);
  if (!rows.length) throw new CsvError('E_CSV', 'the CSV is empty: it needs a header (name,short,type,s7,dir,…) and a row per tag');
  const header = headerOf(rows[0].cells, rows[0].line);
  for (const need of ['name', 'short', 'type', 's7']) {
    if (!header.includes(need)) throw new CsvError('E_CSV', `CSV line ${rows[0].line}: the header has no "${need}" column`);
  }
  return { version: 1, tags: rows.slice(1).map((r) => tagOf(header, r.cells, r.line, sep)) };
}

/** One cell, quoted when it must be. */
function cell(v) {
  if (v === undefined || v === null) return '';
  const s = String(v);
  return /[",\r\n;]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A tag's modbus as a cell. */
function modbusText(m) {
  if (m === undefined) return '';
  if (m === null || m === false) return 'none';
  if (m.bit !== undefined) return `${m.reg}.${m.bit}`;
  return m.words === 1 ? `${m.reg}:1` : String(m.reg);
}

/** A tag's timed as a cell. */
const timedText = (tm) => (tm ? [[tm.trigger, tm.value], ...Object.entries(tm.with || {})].map(([k, v]) => `${k}=${v}`).join('&') : '');

/**
 * The tags of a table (or a definition) as CSV, the columns of COLUMNS, CRLF line ends (as RFC
 * 4180 and spreadsheets write them). What each tag's definition says is written, not the defaults
 * the table filled in, so parseCsv(toCsv(x)) gives the same tags.
 * @param {{tags: object[]}|{definition: {tags: object[]}}} table
 * @returns {string}
 */
function toCsv(table) {
  const list = (table.definition || table).tags;
  const lines = [COLUMNS.join(',')];
  for (const t of list) {
    lines.push(COLUMNS.map((c) => {
      if (c === 'modbus') return cell(modbusText(t.modbus));
      if (c === 'timed') return cell(timedText(t.timed));
      return cell(t[c]);
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

module.exports = {
  parseCsv, toCsv, readRows, CsvError, COLUMNS,
  // One cell each, for the table editor's Modbus and Timed fields (the same syntax as a CSV's).
  modbusCell, timedCell, modbusText, timedText,
};
