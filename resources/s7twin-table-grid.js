/**
 * The I/O table node's edit dialog: the grid of tags (Node-RED's editableList, one row per tag,
 * dragged by its handle into order), the findings of the runtime's checks on the rows they are
 * about, the table's other settings as JSON, import and export. The checks, parsers and
 * formatters are the runtime's (./s7twin-table-editor.js loads them).
 *
 *   const grid = s7twinTableGrid.create(node, { _: node._ });   // in oneditprepare
 *   grid.ready.then(…);  grid.changed();  grid.definition();  grid.resize(height)
 */
(function () {
  'use strict';
  if (window.s7twinTableGrid) return;
  // Looked up when used: Node-RED may run the editor's script files in any order.
  const E = () => window.s7twinTableEditor;
  const NS = 's7twin-io-table.editor.';
  const SIMPLE = new Set(['name', 'short', 's7', 'unit', 'desc', 'opcua', 'echo']);

  /** The text an input shows for a field's value as the flow holds it. */
  function textOf(field, v) {
    const { csv } = E().lib();
    if (field === 'modbus') return v === undefined ? '' : typeof v === 'string' ? v : csv.modbusText(v);
    if (field === 'timed') return v === undefined || v === null ? '' : typeof v === 'string' ? v : csv.timedText(v);
    return v === undefined || v === null ? '' : String(v);
  }

  /** A field's value from its input's text: what the runtime would be handed. undefined = leave it out. */
  function valueOf(field, text) {
    const { csv } = E().lib();
    const s = String(text).trim();
    if (s === '') return undefined;
    if (SIMPLE.has(field)) return s;
    if (field === 'min' || field === 'max') return E().isEnvRef(s) || !Number.isFinite(Number(s)) ? s : Number(s);
    // A cell that does not parse is kept as typed: the check names it, and nothing typed is lost.
    try {
      if (field === 'modbus') return csv.modbusCell(s, 'Modbus');
      if (field === 'timed') return csv.timedCell(s, ',', 'Timed');
    } catch {
      return s;
    }
    return s;
  }

  /** The type select's options: the table module's types, and a type the flow holds that is none of them. */
  function typeOptions(select, current, _) {
    const { table } = E().lib();
    $('<option>').val('').text(_(`${NS}none`)).appendTo(select);
    for (const t of Object.keys(table.TYPES)) $('<option>').val(t).text(t === 'STRING' ? 'STRING[n]' : t).appendTo(select);
    if (current && !select.find('option').filter((i, o) => o.value === current).length) $('<option>').val(current).text(current).appendTo(select);
  }

  /** Show a tag's type: the select and, for a STRING, its length. */
  function showType(row, type, _) {
    const select = row.find('[data-field="type"]');
    const len = row.find('.s7t-len');
    const text = type === undefined || type === null ? '' : String(type);
    const m = E().STRING_RE.exec(text);
    const name = m ? 'STRING' : Object.hasOwn(E().lib().table.TYPES, text.trim().toUpperCase()) ? text.trim().toUpperCase() : text;
    typeOptions(select, name, _);
    select.val(name);
    len.val(m ? m[1] || '' : '').toggle(Boolean(m));
  }

  /** The type the row's inputs say. */
  function typeOf(row) {
    const t = row.find('[data-field="type"]').val();
    if (t !== 'STRING') return t || undefined;
    const n = String(row.find('.s7t-len').val()).trim();
    return n ? `STRING[${n}]` : 'STRING';
  }

  /** One field's value as the row's inputs say it. */
  function inputValue(row, field) {
    const el = row.find(`[data-field="${field}"]`);
    if (field === 'cloudWritable' || field === 'noStream') return el.prop('checked');
    if (field === 'dir') return el.val();
    if (field === 'type') return typeOf(row);
    return valueOf(field, el.val());
  }

  /**
   * The tag a row holds: the fields the user touched from the inputs, every other one as the flow
   * held it (its value, and fields this editor does not know).
   */
  function readRow(row) {
    const data = row.data('data');
    const orig = data.orig;
    const out = {};
    const keys = [...Object.keys(orig), ...E().FIELDS.filter((f) => !Object.hasOwn(orig, f))];
    for (const k of keys) {
      if (!E().FIELDS.includes(k) || !data.touched.has(k)) {
        if (Object.hasOwn(orig, k)) out[k] = orig[k];
        continue;
      }
      const v = inputValue(row, k);
      if (v === undefined) continue;
      // A default the flow left out stays out: `dir` out, the flags false.
      if (!Object.hasOwn(orig, k) && ((k === 'dir' && v === 'out') || ((k === 'cloudWritable' || k === 'noStream') && v === false))) continue;
      out[k] = v;
    }
    return out;
  }

  /** An input of a row: `data-field` names the tag's field it edits. */
  function input(field, label, cls) {
    return $('<input type="text">').attr({ 'data-field': field, 'aria-label': label, placeholder: label, spellcheck: 'false' })
      .addClass(`s7t-f s7t-f-${field} ${cls || ''}`);
  }

  /** The row's other address notation (TIA's, or nodes7's) under its arrow. */
  function showOtherAddress(row) {
    const { table } = E().lib();
    const tag = readRow(row);
    const type = table.parseType(tag.type);
    const addr = table.parseAddress(tag.s7);
    const out = row.find('.s7t-addr-other');
    if (!type || !addr) { out.text(''); return; }
    const bit = type.type === 'BOOL';
    out.text(`TIA Portal: ${table.tiaAddress(addr, type.size, bit)} · nodes7: ${table.formatAddress(addr, type.type, type.length)}`);
  }

  /**
   * Fill one row of the grid (editableList's addItem).
   * @param {JQuery} row the item's content element
   * @param {{orig: object, touched: Set<string>}} data
   * @param {object} ctx {_, changed}
   */
  function buildRow(row, data, ctx) {
    const _ = ctx._;
    const L = (f) => _(`${NS}field.${f}`);
    const main = $('<div class="s7t-tag-main">').appendTo(row);
    input('name', L('name')).appendTo(main);
    input('short', L('short')).appendTo(main);
    const type = $('<span class="s7t-type">').appendTo(main);
    $('<select class="s7t-f s7t-f-type" data-field="type">').attr('aria-label', L('type')).appendTo(type);
    $('<input type="number" min="1" max="254" class="s7t-len" data-field="type">').attr({ 'aria-label': L('length'), title: L('length') }).appendTo(type);
    input('s7', L('s7')).appendTo(main);
    $('<select class="s7t-f s7t-f-dir" data-field="dir">').attr('aria-label', L('dir'))
      .append($('<option value="in">').text(_(`${NS}dir.in`)), $('<option value="out">').text(_(`${NS}dir.out`))).appendTo(main);
    $('<label class="s7t-check">').attr('title', L('cloudWritable'))
      .append($('<input type="checkbox" class="s7t-f-cloudWritable" data-field="cloudWritable">').attr('aria-label', L('cloudWritable'))).appendTo(main);
    input('min', L('min')).appendTo(main);
    input('max', L('max')).appendTo(main);
    input('unit', L('unit')).appendTo(main);
    input('desc', L('desc')).attr('placeholder', _(`${NS}placeholder.desc`)).appendTo(main);
    const toggle = $('<button type="button" class="red-ui-button red-ui-button-small s7t-more-toggle"><i class="fa fa-caret-down"></i></button>')
      .attr({ 'aria-label': _(`${NS}more`), title: _(`${NS}more`), 'aria-expanded': 'false' }).appendTo(main);
    const more = $('<div class="s7t-tag-more">').hide().appendTo(row);
    for (const f of ['opcua', 'modbus', 'timed', 'echo']) {
      $('<span class="s7t-more-field">').append($('<span class="s7t-caption">').text(L(f)), input(f, L(f)).attr('placeholder', _(`${NS}placeholder.${f}`)))
        .appendTo(more);
    }
    $('<label class="s7t-more-field s7t-inline">')
      .append($('<input type="checkbox" class="s7t-f-noStream" data-field="noStream">'), $('<span>').text(L('noStream'))).appendTo(more);
    $('<span class="s7t-addr-other">').appendTo(more);
    $('<ul class="s7t-findings">').appendTo(row);

    const t = data.orig;
    for (const f of E().FIELDS) {
      if (f === 'type' || f === 'dir' || f === 'cloudWritable' || f === 'noStream') continue;
      row.find(`[data-field="${f}"]`).val(textOf(f, t[f]));
    }
    showType(row, t.type, _);
    row.find('[data-field="dir"]').val(t.dir === 'in' ? 'in' : 'out');
    row.find('[data-field="cloudWritable"]').prop('checked', t.cloudWritable === true);
    row.find('[data-field="noStream"]').prop('checked', t.noStream === true);
    if (typeof t.dir === 'string' && t.dir !== 'in' && t.dir !== 'out') {
      row.find('[data-field="dir"]').append($('<option>').val(t.dir).text(t.dir)).val(t.dir);
    }
    toggle.on('click', () => setMore(row, !more.is(':visible')));
    row.on('input change', '[data-field]', function () {
      data.touched.add(this.getAttribute('data-field'));
      if (this.getAttribute('data-field') === 'type') row.find('.s7t-len').toggle(row.find('select[data-field="type"]').val() === 'STRING');
      showOtherAddress(row);
      markMore(row);
      ctx.changed();
    });
    showOtherAddress(row);
    markMore(row);
  }

  /** The row's arrow says when its second line holds something (an OPC UA node id, registers, timing, echo). */
  function markMore(row) {
    const set = ['opcua', 'modbus', 'timed', 'echo'].some((f) => String(row.find(`[data-field="${f}"]`).val()).trim() !== '')
      || row.find('[data-field="noStream"]').prop('checked');
    row.find('.s7t-more-toggle').toggleClass('s7t-has-more', set);
  }

  /** Open or close a row's second line. */
  function setMore(row, open) {
    row.find('.s7t-tag-more').toggle(open);
    row.find('.s7t-more-toggle').attr('aria-expanded', String(open)).find('i').toggleClass('fa-caret-down', !open).toggleClass('fa-caret-up', open);
  }

  window.s7twinTableGrid = { buildRow, readRow, setMore, NS };
})();
