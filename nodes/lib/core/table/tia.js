'use strict';
/**
 * An I/O table to and from a TIA Portal external source of non-optimized data blocks:
 *
 *   DATA_BLOCK "Tank"
 *   { S7_Optimized_Access := 'FALSE' }
 *   VERSION : 0.1
 *      STRUCT
 *         Level : Real;   // DBD0 [lvl out 0..100 unit:%] Tank level
 *         Recipe : String[16];
 *      END_STRUCT;
 *   BEGIN
 *   END_DATA_BLOCK
 *
 * Offsets as TIA computes them for a block with optimized access off (the "Offset" column of the
 * block editor): members in declaration order; BOOLs bit after bit; BYTE, CHAR, SINT, USINT on the
 * next byte; every other type (WORD, INT, DINT, REAL, LREAL, STRING, …) and every STRUCT and ARRAY
 * on the next even byte; a STRUCT or ARRAY takes an even number of bytes. An optimized block has no
 * fixed offsets and is refused.
 *
 * Reading: each member of an elementary type the table knows becomes a tag (members of a STRUCT
 * as `Struct_Member`); ARRAYs and types the table does not know (TIME, DTL, CHAR, …) are laid
 * out, so what follows them lands right, and listed in the result's `skipped`. Short id,
 * direction, cloud writability, range and unit come from the `[…]` note toTiaSource writes in a
 * member's comment (a plain TIA block has none: every tag is then an output, read-only). The
 * block's number is not in a source: "DB10" gives 10, otherwise pass `numbers: {Tank: 10}`.
 *
 * Writing (toTiaSource): one DATA_BLOCK per data block of the table, spare members filling the
 * gaps so each tag lands on its address, the probe blocks and the function that echoes them each
 * scan as the virtual PLC does, and the M area's tags as a comment (an external source cannot
 * hold PLC tags; they go into a PLC tag table). Browser-safe.
 */
const { codedError } = require('../errors');
const { TYPES, parseType } = require('./types');

/** Error with a stable `code` (E_TIA), naming the line or member. */
const TiaError = codedError('TiaError');

/** Bytes of the types TIA has that the table does not carry (laid out, then skipped). */
const OTHER_SIZES = {
  CHAR: 1, WCHAR: 2, TIME: 4, DATE: 2, TIME_OF_DAY: 4, TOD: 4, S5TIME: 2, LINT: 8, ULINT: 8, LWORD: 8, LTIME: 8,
  LTIME_OF_DAY: 8, LTOD: 8, DATE_AND_TIME: 8, DT: 8, LDT: 8, DTL: 12,
};

/** A member's place and size by its type text. @returns {{size: number, align: 0|1|2, tag?: object, other?: string}} */
function typeOf(text, where) {
  const t = text.trim();
  const arr = /^Array\s*\[(.+?)\]\s+of\s+(.+)$/i.exec(t);
  if (arr) {
    const count = arr[1].split(',').reduce((n, r) => {
      const m = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/.exec(r);
      if (!m) throw new TiaError('E_TIA', `${where}: array bounds "${r.trim()}" are not numbers`);
      return n * (Number(m[2]) - Number(m[1]) + 1);
    }, 1);
    const el = typeOf(arr[2], where);
    const bytes = el.size === 0 ? Math.ceil(count / 8) : count * (el.size + (el.align === 2 ? el.size % 2 : 0));
    return { size: bytes + (bytes % 2), align: 2, other: `Array of ${arr[2].trim()}` };
  }
  const wstr = /^WString(?:\s*\[\s*(\d+)\s*\])?$/i.exec(t);
  if (wstr) return { size: 2 * (Number(wstr[1] || 254) + 2), align: 2, other: 'WString' };
  const known = parseType(t);
  if (known) return { size: known.type === 'BOOL' ? 0 : known.size, align: TYPES[known.type].align, tag: known };
  const up = t.toUpperCase();
  if (Object.hasOwn(OTHER_SIZES, up)) return { size: OTHER_SIZES[up], align: OTHER_SIZES[up] === 1 ? 1 : 2, other: t };
  throw new TiaError('E_TIA', `${where}: type "${t}" has no size the table knows (a PLC data type or instance: declare its members instead)`);
}

/** Short id, direction, writability, range and unit out of a "[lvl out writable 0..100 unit:%]" note. */
function noteOf(text) {
  const out = {};
  for (const [k, tok] of text.trim().split(/\s+/).entries()) {
    const range = /^(-?[\d.e+]*)\.\.(-?[\d.e+]*)$/.exec(tok);
    if (k === 0) out.short = tok;
    else if (tok === 'in' || tok === 'out') out.dir = tok;
    else if (tok === 'writable') out.cloudWritable = true;
    else if (tok === 'nostream') out.noStream = true;
    else if (tok.startsWith('unit:')) out.unit = tok.slice(5);
    else if (range) {
      if (range[1] !== '') out.min = Number(range[1]);
      if (range[2] !== '') out.max = Number(range[2]);
    }
  }
  return out;
}

/** The description and note of a member's comment ("DBD0 [lvl out] Tank level"). */
function commentOf(text) {
  let c = (text || '').trim().replace(/^(%?DB[XBWD]\d+(?:\.\d)?|\d+\.\d)\s*/, '');
  let note = {};
  const m = /^\[([^\]]*)\]\s*/.exec(c);
  if (m) { note = noteOf(m[1]); c = c.slice(m[0].length); }
  return { note, desc: c.trim() };
}

/** Split a line into its code and its // comment. */
function splitComment(line) {
  const i = line.indexOf('//');
  return i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 2)];
}

const MEMBER_RE = /^("[^"]+"|[A-Za-z_]\w*)\s*(?:\{[^}]*\})?\s*:\s*(.+?)\s*(?::=[^;]*)?;?\s*$/;

/**
 * Lay out the members of one block's STRUCT body as TIA does.
 * @returns {number} the block's size in bytes
 */
function layoutBlock(lines, block, out) {
  let bit = 0;
  const prefix = [];
  const even = () => { bit = Math.ceil(bit / 16) * 16; };
  for (const { text, line } of lines) {
    const [code, comment] = splitComment(text);
    const s = code.trim();
    if (!s) continue;
    if (/^END_STRUCT\s*;?$/i.test(s)) {
      if (!prefix.length) break;
      prefix.pop();
      even();
      continue;
    }
    const m = MEMBER_RE.exec(s);
    if (!m) throw new TiaError('E_TIA', `line ${line}: "${s}" is not a member declaration (name : type;)`);
    const name = m[1].replace(/"/g, '');
    const path = [...prefix, name];
    if (/^Struct$/i.test(m[2])) { even(); prefix.push(name); continue; }
    const where = `line ${line} (${block.name}.${path.join('.')})`;
    const ty = typeOf(m[2], where);
    if (ty.align === 2) even();
    else if (ty.align === 1) bit = Math.ceil(bit / 8) * 8;
    const at = { byte: bit >> 3, bit: bit & 7 };
    bit += ty.size === 0 ? 1 : 8 * ty.size;
    const { note, desc } = commentOf(comment);
    if (/^Spare_/.test(name) && desc === 'spare') continue;
    if (!ty.tag) { out.skipped.push({ block: block.name, member: path.join('.'), type: ty.other, line }); continue; }
    out.tags.push(tagOf(block, path, ty.tag, at, note, desc));
  }
  return Math.ceil(bit / 16) * 2;
}

/** One tag of a data block member. */
function tagOf(block, path, type, at, note, desc) {
  const addr = type.type === 'BOOL' ? `DB${block.number},X${at.byte}.${at.bit}`
    : type.type === 'STRING' ? `DB${block.number},S${at.byte}.${type.length}` : `DB${block.number},${type.type}${at.byte}`;
  const t = {
    name: path.join('_').replace(/[^A-Za-z0-9_]/g, '_'),
    short: note.short,
    type: type.type === 'STRING' ? `STRING[${type.length}]` : type.type,
    s7: addr,
    dir: note.dir || 'out',
    cloudWritable: note.cloudWritable === true,
  };
  for (const k of ['min', 'max', 'unit', 'noStream']) if (note[k] !== undefined) t[k] = note[k];
  if (desc) t.desc = desc;
  // As an S7-1500's OPC UA server names the member; the table's default is the same for a
  // top-level member of a block named DB<n>.
  if (path.length > 1 || block.name !== `DB${block.number}`) t.opcua = `ns=3;s=${[block.name, ...path].map((p) => `"${p}"`).join('.')}`;
  return t;
}

/** The M area's tags from the comment lines toTiaSource writes for them. */
function markerTags(src) {
  const out = [];
  const re = /^\/\/\s+(\w+) : (\w+(?:\[\d+\])?) AT (%M\S+);\s*(?:\[([^\]]*)\])?\s*(.*)$/gm;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const note = m[4] ? noteOf(m[4]) : {};
    const t = { name: m[1], short: note.short, type: m[2].toUpperCase(), s7: m[3].replace(/^%/, ''), dir: note.dir || 'out', cloudWritable: note.cloudWritable === true };
    for (const k of ['min', 'max', 'unit', 'noStream']) if (note[k] !== undefined) t[k] = note[k];
    if (m[5].trim()) t.desc = m[5].trim();
    out.push(t);
  }
  return out;
}

/** Short ids for tags whose source had none: the name in lower case, made unique. */
function fillShorts(tags) {
  const used = new Set(tags.map((t) => t.short).filter(Boolean));
  for (const t of tags) {
    if (t.short) continue;
    const base = t.name.toLowerCase().replace(/^[^a-z]+/, '').slice(0, 28) || 'tag';
    let s = base;
    for (let k = 2; used.has(s); k++) s = `${base}_${k}`;
    used.add(s);
    t.short = s;
  }
}

/**
 * A table definition from a TIA Portal external source (.db) of non-optimized data blocks.
 * @param {string} text
 * @param {{numbers?: Object<string, number>}} [opts] the data block number of each block by name
 * @returns {{version: 1, tags: object[]}} with a non-enumerable `skipped`: the members that are no
 *   tag ({block, member, type, line}); check it with validateTable / createTable
 * @throws {TiaError} E_TIA: no data block, an optimized block, an instance or PLC data type block,
 *   a block without a number, a line that is no declaration
 */
function fromTiaSource(text, opts = {}) {
  const src = String(text ?? '').replace(/\r\n?/g, '\n').replace(/\(\*[\s\S]*?\*\)/g, (c) => c.replace(/[^\n]/g, ''));
  const out = { tags: [], skipped: [] };
  const re = /^\s*DATA_BLOCK\s+"([^"]+)"([\s\S]*?)^\s*END_DATA_BLOCK/gm;
  let blocks = 0;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    blocks += 1;
    const name = m[1];
    const startLine = src.slice(0, m.index).split('\n').length;
    const head = m[2].split(/^\s*BEGIN\s*$/m)[0];
    const opt = /S7_Optimized_Access\s*:=\s*'(TRUE|FALSE)'/i.exec(head);
    if (opt && opt[1].toUpperCase() === 'TRUE') throw new TiaError('E_TIA',
      `data block "${name}" has optimized access: it has no fixed offsets; switch "Optimized block access" off in its properties and export it again`);
    const number = opts.numbers && Number.isInteger(opts.numbers[name]) ? opts.numbers[name] : (/^DB(\d+)$/i.exec(name) || [])[1];
    if (!number) throw new TiaError('E_TIA',
      `data block "${name}": a source does not say its number; pass numbers: {"${name}": <n>} (block properties → General → Number)`);
    const lines = head.split('\n').map((l, k) => ({ text: l, line: startLine + k }));
    const open = lines.findIndex((l) => /^\s*STRUCT\b/i.test(splitComment(l.text)[0]));
    if (open < 0) throw new TiaError('E_TIA', `data block "${name}" declares no STRUCT (an instance or PLC data type block): declare its members in the block`);
    layoutBlock(lines.slice(open + 1), { name, number: Number(number) }, out);
  }
  out.tags.push(...markerTags(src));
  if (!blocks && !out.tags.length) throw new TiaError('E_TIA', 'no DATA_BLOCK in the source');
  fillShorts(out.tags);
  const def = { version: 1, tags: out.tags };
  Object.defineProperty(def, 'skipped', { value: out.skipped, enumerable: false });
  return def;
}

/** The note toTiaSource writes in a member's comment. */
function noteText(t) {
  const parts = [t.short, t.dir];
  if (t.cloudWritable) parts.push('writable');
  if (t.noStream) parts.push('nostream');
  if (t.min !== undefined || t.max !== undefined) parts.push(`${t.min ?? ''}..${t.max ?? ''}`);
  if (t.unit && !/\s|\]/.test(t.unit)) parts.push(`unit:${t.unit}`);
  return `[${parts.join(' ')}]`;
}

/** The offset as the generated comment shows it (DBX0.0, DBB3, DBW4, DBD8, DBB14). */
const offsetText = (t) => (t.type === 'BOOL' ? `DBX${t.addr.byte}.${t.addr.bit}` : `DB${{ 1: 'B', 2: 'W', 4: 'D' }[t.size] || 'B'}${t.addr.byte}`);

/** Member lines of one data block, spares in the gaps so every tag lands on its address. */
function blockMembers(list) {
  const lines = [];
  const member = (name, type, at, comment) => lines.push(`      ${name} : ${type};   // ${at}${comment ? ` ${comment}` : ''}`);
  let bit = 0;
  const fill = (to) => {
    for (; bit % 8 && bit < to; bit += 1) member(`Spare_${bit >> 3}_${bit & 7}`, 'Bool', `DBX${bit >> 3}.${bit & 7}`, 'spare');
    if (to - bit >= 8 && (bit >> 3) % 2) { member(`Spare_${bit >> 3}`, 'Byte', `DBB${bit >> 3}`, 'spare'); bit += 8; }
    for (; to - bit >= 16; bit += 16) member(`Spare_${bit >> 3}`, 'Word', `DBW${bit >> 3}`, 'spare');
    if (to - bit >= 8) { member(`Spare_${bit >> 3}`, 'Byte', `DBB${bit >> 3}`, 'spare'); bit += 8; }
    for (; bit < to; bit += 1) member(`Spare_${bit >> 3}_${bit & 7}`, 'Bool', `DBX${bit >> 3}.${bit & 7}`, 'spare');
  };
  for (const t of [...list].sort((a, b) => (a.addr.byte - b.addr.byte) || (a.addr.bit - b.addr.bit))) {
    const want = t.addr.byte * 8 + (t.type === 'BOOL' ? t.addr.bit : 0);
    fill(want);
    const type = t.type === 'STRING' ? `String[${t.length}]` : TYPES[t.type].tia;
    member(t.name, type, offsetText(t), `${noteText(t)}${t.desc ? ` ${t.desc}` : ''}`);
    bit = want + (t.type === 'BOOL' ? 1 : 8 * t.size);
  }
  return lines;
}

/** One DATA_BLOCK. */
function dataBlock(name, title, members) {
  return [
    `DATA_BLOCK "${name}"`, `TITLE = '${title}'`, "{ S7_Optimized_Access := 'FALSE' }", 'AUTHOR : s7twin', 'VERSION : 0.1', 'NON_RETAIN',
    '   STRUCT ', ...members, '   END_STRUCT;', '', '', 'BEGIN', '', 'END_DATA_BLOCK', '',
  ].join('\n');
}

/**
 * The TIA Portal external source of a table: its data blocks, the probe blocks and their echo.
 * In TIA Portal: Project tree → the CPU → External source files → Add new external file → this
 * file → right click → Generate blocks from source.
 * @param {object} table a table (createTable)
 * @returns {string}
 */
function toTiaSource(table) {
  const plc = table.TABLE.plc;
  const last = plc.probeSlots - 1;
  const dbs = table.areas.filter((a) => a.area === 'DB');
  const mTags = table.tags.filter((t) => t.addr.area === 'M');
  const numbers = [...dbs.map((a) => a.db), plc.probeRequestDb, plc.probeResponseDb];
  const head = [
    `// S7 twin bridge: the data blocks of the I/O table${table.definition.name ? ` "${table.definition.name}"` : ''}, generated by`,
    '// node scripts/tia-source.js; do not edit, generate again. TIA Portal: External source files →',
    '// Add new external file → Generate blocks from source. Then give the blocks the numbers',
    `// ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]} if TIA chose others (block properties → General → Number),`,
    '// and call "S7TwinProbeEcho" from OB1. docs/deploy.md, "A real S7-1500", has the checklist.',
    '',
  ];
  if (mTags.length) {
    head.push('// Tags in the M area: an external source cannot hold PLC tags; add them to a PLC tag table:');
    for (const t of mTags) {
      const type = t.type === 'STRING' ? `String[${t.length}]` : TYPES[t.type].tia;
      head.push(`//   ${t.name} : ${type} AT ${t.tia};   ${noteText(t)}${t.desc ? ` ${t.desc}` : ''}`);
    }
    head.push('');
  }
  return [
    ...head,
    ...dbs.map((a) => dataBlock(`DB${a.db}`, 'S7 twin bridge: plant inputs (twin) and outputs (PLC program)',
      blockMembers(table.tags.filter((t) => t.addr.key === a.key)))),
    dataBlock(`DB${plc.probeRequestDb}`, 'S7 twin bridge: probe requests (load test), slot i at DBD 4*i',
      [`      Req : Array[0..${last}] of UDInt;   // DBD0 .. DBD${4 * last}, written by the edge`]),
    dataBlock(`DB${plc.probeResponseDb}`, 'S7 twin bridge: probe responses (load test), slot i at DBD 4*i',
      [`      Res : Array[0..${last}] of UDInt;   // DBD0 .. DBD${4 * last}, the echo of Req each scan`]),
    'FUNCTION "S7TwinProbeEcho" : Void',
    "TITLE = 'S7 twin bridge: echo every probe request into its response slot'",
    "{ S7_Optimized_Access := 'TRUE' }",
    'AUTHOR : s7twin',
    'VERSION : 0.1',
    '// Call once per cycle from OB1, as the virtual PLC does: a probe\'s round trip then holds',
    '// exactly the PLC\'s own latency (one scan at most).',
    'BEGIN',
    `\t"DB${plc.probeResponseDb}".Res := "DB${plc.probeRequestDb}".Req;`,
    'END_FUNCTION',
    '',
  ].join('\n');
}

module.exports = { fromTiaSource, toTiaSource, TiaError };
