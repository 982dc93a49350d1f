'use strict';
/**
 * Every check of an I/O table definition, each finding naming the tag it is about: what the
 * config node's editor shows as the user types, what a refused table's error says, what
 * `S7T_IO_TABLE` gets when it points at a bad file. No exceptions here: findings are collected,
 * so the editor can show all of them at once.
 *
 * A finding: `{ tag, index, field, code, message }` (tag: the tag's name, or `#3` for a row without
 * one, or null for the table as a whole; index: the row, 0-based; field: the property at fault).
 * Errors refuse the table; warnings do not.
 *
 * Browser-safe: plain CommonJS, no Node built-ins.
 */
const { TYPES, STRING_MAX, parseType, typeName } = require('./types');
const { parseAddress } = require('./address');
const { layoutModbus } = require('./modbus');
const { sectionsOf } = require('./sections');

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const SHORT_RE = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
const MAX_TAGS = 4096;
const TAG_FIELDS = new Set([
  'name', 'short', 'type', 's7', 'dir', 'cloudWritable', 'min', 'max', 'unit', 'desc', 'modbus', 'opcua', 'timed', 'noStream', 'echo',
]);
const TABLE_FIELDS = new Set(['$comment', 'version', 'name', 'program', 'plc', 'mqtt', 'modbus', 'probe', 'markers', 'tags']);
/** The programs the virtual PLC knows (plc/program.js); any other table runs as an I/O image. */
const PROGRAMS = ['box-sorting'];

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;

/** A findings list with helpers that fill in the tag's label and row. */
function findings() {
  const errors = [];
  const warnings = [];
  const at = (list) => (t, index, field, code, text) => {
    const tag = t === null ? null : (typeof t.name === 'string' && t.name ? t.name : `#${index + 1}`);
    list.push({ tag, index, field, code, message: tag === null ? text : `tag "${tag}": ${text}` });
  };
  return { errors, warnings, error: at(errors), warn: at(warnings) };
}

/**
 * The parsed form of one tag, as far as it parses: type, address and the facts later checks need.
 * @returns {{type?: object, addr?: object}}
 */
function parseTag(t, i, f) {
  const out = {};
  if (typeof t.name !== 'string' || !NAME_RE.test(t.name)) {
    f.error(t, i, 'name', 'E_TAG_NAME',
      `name ${JSON.stringify(t.name)} must be 1-64 letters, digits or _ starting with a letter or _ (it names the tag on OPC UA and in TIA)`);
  }
  if (typeof t.short !== 'string' || !SHORT_RE.test(t.short)) {
    f.error(t, i, 'short', 'E_TAG_SHORT',
      `short id ${JSON.stringify(t.short)} must be 1-32 letters, digits or _ starting with a letter (it keys the tag in every envelope)`);
  }
  for (const k of Object.keys(t)) if (!TAG_FIELDS.has(k)) f.warn(t, i, k, 'W_FIELD', `unknown field "${k}" is ignored`);
  out.type = parseType(t.type);
  if (!out.type) {
    f.error(t, i, 'type', 'E_TAG_TYPE', `type ${JSON.stringify(t.type)} is not one of ${Object.keys(TYPES).join(', ')} (STRING[n] with n 1..${STRING_MAX})`);
  }
  const addr = parseAddress(t.s7);
  if (!addr) {
    f.error(t, i, 's7', 'E_ADDRESS', `address ${JSON.stringify(t.s7)} is not an S7 address (DB5,REAL4 · DB1,X0.6 · DB2,S10.16 · MW10 · M2.0 · DB5.DBD4)`);
  } else if (out.type) {
    out.addr = addressFits(t, i, f, out.type, addr);
  }
  return out;
}

/** The address checked against the type: width, area, alignment. @returns {object|undefined} */
function addressFits(t, i, f, type, addr) {
  const isBit = type.type === 'BOOL';
  const name = typeName(type.type, type.length);
  if (isBit !== (addr.width === 0)) {
    f.error(t, i, 's7', 'E_TAG_WIDTH', isBit ? `a BOOL needs a bit address (DB1,X0.0 or M2.0), not "${t.s7}"`
      : `"${t.s7}" is a bit address; a ${name} needs a byte address (${addr.area === 'M' ? 'MB, MW, MD' : 'DB1,BYTE4 / INT4 / REAL4'})`);
    return undefined;
  }
  if (type.type === 'STRING') {
    if (addr.area !== 'DB' || !/^S(TRING)?$/.test(addr.hint)) {
      f.error(t, i, 's7', 'E_TAG_WIDTH', `a STRING lives in a data block at an S address (DB2,S10.${type.length}), not "${t.s7}"`);
      return undefined;
    }
    if (addr.length !== undefined && addr.length !== type.length) {
      f.error(t, i, 's7', 'E_TAG_SIZE', `address "${t.s7}" says ${addr.length} characters, the type ${name} says ${type.length}`);
      return undefined;
    }
  } else if (!isBit && addr.width !== type.size) {
    f.error(t, i, 's7', 'E_TAG_WIDTH', `address "${t.s7}" names ${addr.width} byte${addr.width > 1 ? 's' : ''}; a ${name} takes ${type.size}`);
    return undefined;
  }
  if (addr.area === 'DB' && TYPES[type.type].align === 2 && addr.byte % 2) {
    f.error(t, i, 's7', 'E_TAG_ALIGN',
      `a ${name} at byte ${addr.byte} of ${addr.key}: a non-optimized data block places it on an even byte (${addr.byte - 1} or ${addr.byte + 1})`);
    return undefined;
  }
  return { ...addr, size: type.size };
}

/** Direction, writability, range, texts, flags. */
function checkFields(t, i, f, type) {
  if (t.dir !== undefined && t.dir !== 'in' && t.dir !== 'out') {
    f.error(t, i, 'dir', 'E_TAG_DIR',
      `dir ${JSON.stringify(t.dir)} must be "in" (written into the PLC: a sensor, a button, a setpoint) or "out" (written by the PLC program)`);
  }
  for (const k of ['cloudWritable', 'noStream']) {
    if (t[k] !== undefined && typeof t[k] !== 'boolean') f.error(t, i, k, 'E_TAG_FLAG', `${k} must be true or false, not ${JSON.stringify(t[k])}`);
  }
  if (t.cloudWritable === true && t.dir !== 'in') f.warn(t, i, 'cloudWritable', 'W_WRITABLE_OUTPUT',
    'is written by the PLC program (dir out) and writable from the cloud: the two will overwrite each other');
  if (t.cloudWritable === true && t.noStream === true) f.error(t, i, 'noStream', 'E_TAG_FLAG',
    'a tag the cloud writes must be streamed back (noStream false), or no twin sees its command land');
  for (const k of ['unit', 'desc', 'opcua']) {
    if (t[k] !== undefined && (typeof t[k] !== 'string' || t[k].length > 500)) f.error(t, i, k, k === 'opcua' ? 'E_TAG_OPCUA' : 'E_TAG_TEXT',
      `${k} must be text (at most 500 characters)`);
  }
  if (typeof t.opcua === 'string' && !/^ns=\d+;[isgb]=.+$/.test(t.opcua)) f.error(t, i, 'opcua', 'E_TAG_OPCUA', `OPC UA node id ${JSON.stringify(t.opcua)} is not ns=<n>;s=<id> (or i=, g=, b=)`);
  if (type) checkRange(t, i, f, type);
  // A write request of one item carries 16 bytes besides its data; an S7-1200 offers a 240-byte PDU.
  if (type && type.type === 'STRING' && type.size > 240 - 16 - 14) {
    f.warn(t, i, 'type', 'W_STRING_PDU',
      `a ${typeName(type.type, type.length)} takes ${type.size} bytes: more than one write request of a PLC with a 240-byte PDU (S7-1200) carries; `
      + 'an S7-1500 (960) takes it');
  }
}

/** min and max: numbers of the type, inside it, min ≤ max; none for BOOL and STRING. */
function checkRange(t, i, f, type) {
  const lim = TYPES[type.type];
  for (const k of ['min', 'max']) {
    if (t[k] === undefined || t[k] === null || t[k] === '') continue;
    if (lim.kind === 'bool' || lim.kind === 'string') {
      f.error(t, i, k, 'E_TAG_RANGE', `a ${typeName(type.type, type.length)} has no ${k}`);
    } else if (typeof t[k] !== 'number' || !Number.isFinite(t[k]) || (lim.kind === 'int' && !Number.isInteger(t[k]))) {
      f.error(t, i, k, 'E_TAG_RANGE', `${k} ${JSON.stringify(t[k])} is not ${lim.kind === 'int' ? 'a whole number' : 'a number'}`);
    } else if (t[k] < lim.min || t[k] > lim.max) {
      f.error(t, i, k, 'E_TAG_RANGE', `${k} ${t[k]} is outside what a ${type.type} holds (${lim.min}..${lim.max})`);
    }
  }
  if (typeof t.min === 'number' && typeof t.max === 'number' && t.min > t.max) f.error(t, i, 'max', 'E_TAG_RANGE', `min ${t.min} is above max ${t.max}`);
}

/** Names and short ids unique, and no short id that is another tag's name (lookups take either). */
function checkNames(list, f) {
  const seen = new Map(); // name or short -> [tag, index, field]
  list.forEach((t, i) => {
    for (const field of ['name', 'short']) {
      const key = t[field];
      if (typeof key !== 'string' || !key) continue;
      const prev = seen.get(key);
      if (prev && prev[0] !== t) {
        f.error(t, i, field, 'E_TAG_DUPLICATE', `${field} "${key}" is already the ${prev[2]} of tag "${prev[0].name}" (row ${prev[1] + 1})`);
      } else if (!prev) {
        seen.set(key, [t, i, field]);
      }
    }
  });
}

/** Bits each parsed tag occupies in its area: [area key, first bit, bits]. */
const spanOf = (addr) => [addr.key, addr.byte * 8 + (addr.width === 0 ? addr.bit : 0), addr.width === 0 ? 1 : 8 * addr.size];

/**
 * No two tags share a bit; no tag in a probe block; the program's markers apart from the tags.
 * @param {Array<{t: object, i: number, addr: object}>} placed
 */
function checkOverlaps(placed, def, f) {
  const plc = isObj(def.plc) ? def.plc : {};
  const probeDbs = new Map([[plc.probeRequestDb ?? 2, 'probe request'], [plc.probeResponseDb ?? 3, 'probe response']]);
  const byArea = new Map();
  for (const p of placed) {
    if (p.addr.area === 'DB' && probeDbs.has(p.addr.db)) {
      f.error(p.t, p.i, 's7', 'E_TAG_OVERLAP',
        `${p.addr.key} is the ${probeDbs.get(p.addr.db)} block of the load-test probes: use another data block `
        + '(or move the probes: plc.probeRequestDb / probeResponseDb)');
      continue;
    }
    const [key, from, bits] = spanOf(p.addr);
    if (!byArea.has(key)) byArea.set(key, []);
    byArea.get(key).push({ ...p, from, to: from + bits });
  }
  for (const [key, list] of byArea) {
    list.sort((a, b) => a.from - b.from || a.i - b.i);
    const open = []; // spans that reach past the current one's start
    const named = new Set(); // tags already reported
    for (const p of list) {
      for (let k = open.length - 1; k >= 0; k--) if (open[k].to <= p.from) open.splice(k, 1);
      for (const q of open) {
        // The later row (or a tag rather than a program marker) is the one at fault.
        const [late, early] = (q.t.marker || (!p.t.marker && p.i > q.i)) ? [p, q] : [q, p];
        if (named.has(late.t)) continue;
        named.add(late.t);
        const other = early.t.marker ? `marker "${early.t.name}"` : `tag "${early.t.name}" (${early.t.s7})`;
        f.error(late.t, late.i, 's7', 'E_TAG_OVERLAP', `"${late.t.s7}" overlaps ${other} at ${key} byte ${Math.floor(Math.max(p.from, q.from) / 8)}`);
      }
      open.push(p);
    }
  }
}

/** timed: {trigger, value, with}; echo: the short id of a tag this output follows. */
function checkLinks(list, parsed, f) {
  const byShort = new Map(list.map((t, i) => [t.short, i]));
  list.forEach((t, i) => {
    if (t.timed !== undefined && t.timed !== null) {
      const tm = t.timed;
      const ok = isObj(tm) && byShort.has(tm.trigger) && (tm.with === undefined || (isObj(tm.with) && Object.keys(tm.with).every((k) => byShort.has(k))));
      if (!ok) f.error(t, i, 'timed', 'E_TAG_TIMED', `timed must be {trigger, value, with?} naming tags of this table (${JSON.stringify(tm)})`);
      else if (list[byShort.get(tm.trigger)].dir !== 'in') f.error(t, i, 'timed', 'E_TAG_TIMED',
        `timed trigger "${tm.trigger}" must be an input (dir in): a round trip starts with a write`);
    }
    if (t.echo === undefined || t.echo === null || t.echo === '') return;
    const j = byShort.get(t.echo);
    const src = parsed[j] && parsed[j].type;
    const dst = parsed[i].type;
    if (j === undefined || j === i) f.error(t, i, 'echo', 'E_TAG_ECHO', `echo ${JSON.stringify(t.echo)} must be the short id of another tag of this table`);
    else if ((t.dir ?? 'out') !== 'out') f.error(t, i, 'echo', 'E_TAG_ECHO', 'only an output (dir out) follows another tag: the virtual PLC writes it');
    else if (src && dst && !echoFits(src, dst)) f.error(t, i, 'echo', 'E_TAG_ECHO', `cannot follow "${t.echo}": a ${typeName(src.type,
      src.length)} into a ${typeName(dst.type, dst.length)}`);
  });
}

/** Whether a value of type `src` can be copied into a tag of type `dst`. */
function echoFits(src, dst) {
  const a = TYPES[src.type].kind;
  const b = TYPES[dst.type].kind;
  if (a === 'string' || b === 'string') return a === b;
  if (a === 'bool' || b === 'bool') return a === b;
  return true; // numbers: the value is checked against the target's range at each copy
}

/** The sections besides the tags. */
function checkSections(def, f) {
  for (const k of Object.keys(def)) if (!TABLE_FIELDS.has(k)) f.warn(null, null, k, 'W_FIELD', `unknown table field "${k}" is ignored`);
  if (def.version !== undefined && def.version !== 1) f.error(null, null, 'version', 'E_TABLE_SCHEMA', `table version ${JSON.stringify(def.version)} is not 1`);
  if (def.name !== undefined && (typeof def.name !== 'string' || def.name.length > 100)) f.error(null, null, 'name', 'E_TABLE_SCHEMA',
    'the table\'s name must be text (at most 100 characters)');
  if (def.program !== undefined && !PROGRAMS.includes(def.program)) {
    f.error(null, null, 'program', 'E_TABLE_SCHEMA',
      `program ${JSON.stringify(def.program)} is not one the virtual PLC runs (${PROGRAMS.join(', ')}); leave it out for an I/O image`);
  }
  for (const k of ['plc', 'mqtt', 'modbus', 'probe']) {
    if (def[k] !== undefined && !isObj(def[k])) f.error(null, null, k, 'E_TABLE_SCHEMA', `${k} must be an object`);
  }
  const plc = isObj(def.plc) ? def.plc : {};
  for (const k of ['probeRequestDb', 'probeResponseDb', 'ioDb']) {
    if (plc[k] !== undefined && !isInt(plc[k], 1, 65535)) f.error(null, null, `plc.${k}`, 'E_TABLE_SCHEMA', `plc.${k} must be a data block number 1..65535`);
  }
  if (plc.probeRequestDb !== undefined && plc.probeRequestDb === plc.probeResponseDb) f.error(null, null, 'plc.probeResponseDb', 'E_TABLE_SCHEMA',
    'the probe request and response blocks must differ');
  if (plc.probeSlots !== undefined && !isInt(plc.probeSlots, 1, 16384)) f.error(null, null, 'plc.probeSlots', 'E_TABLE_SCHEMA',
    'plc.probeSlots must be 1..16384');
  for (const k of ['rack', 'slot']) if (plc[k] !== undefined && !isInt(plc[k], 0, 31)) f.error(null, null, `plc.${k}`, 'E_TABLE_SCHEMA',
    `plc.${k} must be 0..31`);
  if (def.markers !== undefined && !Array.isArray(def.markers)) f.error(null, null, 'markers', 'E_TABLE_SCHEMA', 'markers must be a list');
}

/** The program's markers, parsed like tags, for the overlap check. */
function markerSpans(def, f) {
  const out = [];
  (Array.isArray(def.markers) ? def.markers : []).forEach((m, i) => {
    const addr = isObj(m) ? parseAddress(m.s7) : null;
    if (!addr || addr.area !== 'M' || addr.width !== 0) {
      f.error(null, null, `markers[${i}]`, 'E_ADDRESS',
        `marker ${JSON.stringify(isObj(m) ? m.name : m)}: address ${JSON.stringify(isObj(m) ? m.s7 : m)} is not an M bit (M0.3)`);
      return;
    }
    out.push({ t: { name: m.name, s7: m.s7, marker: true }, i: -1, addr: { ...addr, size: 1 } });
  });
  return out;
}

/**
 * Check a table definition.
 * @param {*} def what a user wrote (JSON, or what parseCsv / fromTiaSource made)
 * @returns {{errors: object[], warnings: object[], parsed: Array<{type?: object, addr?: object}>,
 *   sections?: object, modbus?: Map<object, object|null>}} parsed: per tag, its type and address
 *   as far as they parse; sections: the non-tag sections with defaults; modbus: each tag's
 *   registers (createTable uses them)
 */
function checkTable(def) {
  const f = findings();
  if (!isObj(def)) {
    f.error(null, null, null, 'E_TABLE_SCHEMA', 'an I/O table must be an object with a "tags" list');
    return { errors: f.errors, warnings: f.warnings, parsed: [] };
  }
  checkSections(def, f);
  const list = Array.isArray(def.tags) ? def.tags : [];
  if (!Array.isArray(def.tags) || !list.length) f.error(null, null, 'tags', 'E_TABLE_SCHEMA', 'the table needs a "tags" list with at least one tag');
  if (list.length > MAX_TAGS) f.error(null, null, 'tags', 'E_TABLE_SCHEMA', `the table has ${list.length} tags; at most ${MAX_TAGS}`);
  const parsed = list.map((t, i) => {
    if (!isObj(t)) {
      f.error({}, i, null, 'E_TABLE_SCHEMA', 'each tag must be an object');
      return {};
    }
    const p = parseTag(t, i, f);
    checkFields(t, i, f, p.type);
    return p;
  });
  const tagsOk = list.filter(isObj);
  checkNames(tagsOk, f);
  const placed = list.map((t, i) => ({ t, i, addr: parsed[i].addr })).filter((p) => p.addr);
  checkOverlaps([...placed, ...markerSpans(def, f)], def, f);
  if (tagsOk.length === list.length) checkLinks(list, parsed, f);
  const sections = sectionsOf(def);
  const rows = list.map((t, i) => ({ t, i, tag: parsed[i].type && { ...parsed[i].type, dir: t.dir ?? 'out' } })).filter((r) => r.tag);
  const modbus = layoutModbus(rows, { ...sections.modbus, probeSlots: sections.plc.probeSlots }, f);
  const byRow = (a, b) => (a.index ?? -1) - (b.index ?? -1); // the table's own findings first, then row by row
  return { errors: f.errors.sort(byRow), warnings: f.warnings.sort(byRow), parsed, sections, modbus };
}

/**
 * Check a table definition: every finding names its tag.
 * @param {*} def
 * @returns {{errors: Array<{tag: string|null, index: number|null, field: string|null, code: string, message: string}>,
 *   warnings: Array<object>}} the same shape for both; no errors = the table can be used
 */
function validateTable(def) {
  const { errors, warnings } = checkTable(def);
  return { errors, warnings };
}

module.exports = { validateTable, checkTable, PROGRAMS, NAME_RE, SHORT_RE, MAX_TAGS };
