/**
 * The I/O table node's editor (served by Node-RED from this module's resources folder, loaded by
 * nodes/s7twin-io-table.html): the plant's tags as a grid a PLC programmer knows from a TIA tag
 * table, one row per tag (name, short id, type, address, direction, cloud-writable, range, unit;
 * description, OPC UA node id, Modbus registers, timing, echo and streaming under the row's
 * arrow), rows added, removed and dragged into order; every problem shown on its row as the user
 * types; imports from CSV, from a TIA Portal external source of non-optimized data blocks and
 * from JSON; exports of all three as downloads.
 *
 * The checks, imports, exports and address formats are the runtime's own table module
 * (nodes/lib/core/io-table.js and its parts), which the node serves to the editor as one script
 * (nodes/lib/web/editor-modules.js): what the editor accepts is exactly what the runtime takes.
 *
 * What the flow holds is kept: a field the user did not touch keeps its value as it was (a type
 * written `real`, a timing the cell syntax cannot spell, a field this editor does not know), and
 * a table nobody changed is left as it is, so open → Done changes nothing. A whole `${NAME}` in a
 * text field Node-RED fills in when the flow starts (address, OPC UA node id, unit, description)
 * is kept, and checked then.
 */
(function () {
  'use strict';
  if (window.s7twinTableEditor) return;

  const MODULES_URL = 's7twin-io-table/modules.js';
  /** A tag's fields in the order a new tag is written (the CSV's columns). */
  const FIELDS = ['name', 'short', 'type', 's7', 'dir', 'cloudWritable', 'min', 'max', 'unit', 'desc', 'modbus', 'opcua', 'timed', 'noStream', 'echo'];
  /** Fields under the row's arrow. */
  const MORE = new Set(['desc', 'opcua', 'modbus', 'timed', 'echo', 'noStream']);
  /** Text fields whose whole `${NAME}` Node-RED replaces with the variable's text when the flow starts. */
  const ENV_FIELDS = new Set(['s7', 'opcua', 'unit', 'desc']);
  const ENV_REF = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;
  const STRING_RE = /^\s*STRING\s*(?:\[\s*(\d*)\s*\])?\s*$/i;
  const CHECK_DELAY_MS = 120; // after the last keystroke: checking 4,000 tags takes a few ms

  let loading = null;

  /**
   * The runtime's table module in the editor, loaded once (with the editor's own credentials:
   * jQuery's ajax carries the admin token when the editor has a login).
   * @returns {Promise<object>} {table: io-table.js, csv: table/csv.js}
   */
  function load() {
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        $.ajax({ url: MODULES_URL, dataType: 'script', cache: true })
          .done(() => resolve(lib()))
          .fail((xhr, status, err) => { loading = null; reject(new Error(`${MODULES_URL}: ${xhr.status || ''} ${err || status}`)); });
      });
    }
    return loading;
  }

  function lib() {
    const R = window.S7Twin.require;
    return { table: R('nodes/lib/core/io-table.js'), csv: R('nodes/lib/core/table/csv.js') };
  }
  const loaded = () => Boolean(window.S7Twin && window.S7TwinModules && window.S7TwinModules['nodes/lib/core/io-table.js']);

  /**
   * The definition a node's `table` property holds: an object (what this editor writes) or JSON
   * text (a flow written by hand or by an older editor).
   * @returns {{def: object|null, error: string|null}}
   */
  function readDefinition(value) {
    if (value && typeof value === 'object') return { def: JSON.parse(JSON.stringify(value)), error: null };
    if (value === undefined || value === null || value === '') return { def: { version: 1, tags: [] }, error: null };
    try {
      const def = JSON.parse(String(value));
      return def && typeof def === 'object' ? { def, error: null } : { def: null, error: 'the table is not a JSON object' };
    } catch (err) {
      return { def: null, error: `the table is not JSON: ${err.message}` };
    }
  }

  const isEnvRef = (v) => typeof v === 'string' && ENV_REF.test(v.trim());

  /**
   * The table module's findings, with those about a `${NAME}` text field set apart: Node-RED
   * fills it in when the flow starts, and the table is checked then.
   * @returns {{errors: object[], warnings: object[], deferred: object[]}}
   */
  function findingsOf(def) {
    const { errors, warnings } = lib().table.validateTable(def);
    const deferred = [];
    const tags = Array.isArray(def && def.tags) ? def.tags : [];
    const keep = (f) => {
      const t = f.index !== null && f.index !== undefined ? tags[f.index] : null;
      if (t && ENV_FIELDS.has(f.field) && isEnvRef(t[f.field])) { deferred.push(f); return false; }
      return true;
    };
    return { errors: errors.filter(keep), warnings: warnings.filter(keep), deferred };
  }

  /**
   * Whether a node's table would be taken (its `validate`): the runtime's checks once they are
   * loaded, the shape until then (and the checks are loaded for the next time).
   */
  function isValid(value) {
    const { def } = readDefinition(value);
    if (!def || !Array.isArray(def.tags) || !def.tags.length) return false;
    if (!loaded()) {
      load().then(revalidateAll, () => {});
      return true;
    }
    return findingsOf(def).errors.length === 0;
  }

  /** Every I/O table node validated again (the checks just arrived). */
  function revalidateAll() {
    RED.nodes.eachConfig((n) => { if (n.type === 's7twin-io-table') RED.editor.validateNode(n); });
    if (RED.view && RED.view.redraw) RED.view.redraw(true);
  }

  /** JSON with every object's keys sorted: equal for equal tables whatever the key order. */
  function canonical(v) {
    return JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
      ? Object.keys(x).sort().reduce((o, key) => { o[key] = x[key]; return o; }, {}) : x));
  }

  /** A file to the user's downloads. */
  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = $('<a>').attr({ href: url, download: name }).css('display', 'none').appendTo(document.body);
    a[0].click();
    setTimeout(() => { URL.revokeObjectURL(url); a.remove(); }, 1000);
  }

  /** The bits a parsed tag takes in its area: [first bit, bits]. */
  function bitsOf(addr, size) {
    if (addr.width === 0) return [addr.byte * 8 + addr.bit, 1];
    return [addr.byte * 8, 8 * size];
  }

  /**
   * A tag to add after the others: the type and direction of the last row, at the next place of
   * that type after the last row's tag that no other tag takes, aligned as a non-optimized data
   * block aligns it (a BOOL on the next bit, a byte type on the next byte, the others on the next
   * even byte; the M area needs no even byte).
   * @param {object[]} tags the rows so far
   * @returns {object}
   */
  function suggestTag(tags) {
    const T = lib().table;
    const names = new Set(tags.map((t) => t.name));
    const shorts = new Set(tags.map((t) => t.short));
    let k = tags.length + 1;
    while (names.has(`Tag${k}`) || shorts.has(`t${k}`)) k += 1;
    const out = { name: `Tag${k}`, short: `t${k}`, type: 'BOOL', s7: 'DB1,X0.0', dir: 'in' };
    const last = tags.slice().reverse().find((t) => T.parseType(t.type) && T.parseAddress(t.s7));
    if (!last) return out;
    const type = T.parseType(last.type);
    const at = T.parseAddress(last.s7);
    const taken = []; // [from, to) bits of every tag of the area
    for (const t of tags) {
      const ty = T.parseType(t.type);
      const a = T.parseAddress(t.s7);
      if (ty && a && a.key === at.key) { const [from, bits] = bitsOf(a, ty.size); taken.push([from, from + bits]); }
    }
    const align = T.TYPES[type.type].align;
    const step = align === 0 ? 1 : align === 1 || at.area === 'M' ? 8 : 16;
    const bits = type.type === 'BOOL' ? 1 : 8 * type.size;
    const [from0, len0] = bitsOf(at, type.size);
    let bit = Math.ceil((from0 + len0) / step) * step;
    for (let clash = taken.find(([a, b]) => a < bit + bits && bit < b); clash; clash = taken.find(([a, b]) => a < bit + bits && bit < b)) {
      bit = Math.ceil(clash[1] / step) * step;
    }
    out.type = last.type;
    out.dir = last.dir || 'out';
    out.s7 = T.formatAddress({ area: at.area, db: at.db, byte: bit >> 3, bit: bit & 7 }, type.type, type.length);
    return out;
  }

  window.s7twinTableEditor = {
    load, loaded, lib, readDefinition, findingsOf, isValid, canonical, download, suggestTag,
    FIELDS, MORE, ENV_FIELDS, STRING_RE, CHECK_DELAY_MS, isEnvRef,
  };
})();
