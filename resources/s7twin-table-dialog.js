/**
 * The I/O table node's edit dialog around the grid (./s7twin-table-grid.js): the list itself, the
 * findings of the runtime's checks (on the rows, and the table's own above them), the summary,
 * the table's other settings as JSON, import (CSV, TIA Portal source, JSON; from a file or pasted)
 * and export (the same three, as downloads). nodes/s7twin-io-table.html holds the markup.
 *
 *   const dialog = s7twinTableDialog.create(node, { _: node._ });   // oneditprepare
 *   if (dialog.changed()) node.table = dialog.definition();          // oneditsave
 */
(function () {
  'use strict';
  if (window.s7twinTableDialog) return;
  // Looked up when used: Node-RED may run the editor's script files in any order.
  const E = () => window.s7twinTableEditor;
  const G = () => window.s7twinTableGrid;
  const NS = 's7twin-io-table.editor.';
  const $id = (id) => $(`#node-config-table-${id}`);

  /** The import's format from the file's name, else from the text. */
  function detect(text, file) {
    if (/\.csv$/i.test(file || '')) return 'csv';
    if (/\.(db|scl|awl)$/i.test(file || '')) return 'tia';
    if (/\.json$/i.test(file || '')) return 'json';
    if (/^\s*[[{]/.test(text)) return 'json';
    if (/^\s*DATA_BLOCK\b/im.test(text)) return 'tia';
    return 'csv';
  }

  /** The data blocks of a source whose number it does not say ("Tank", not "DB10"): the user gives it. */
  function namedBlocks(text) {
    const out = [];
    const re = /^\s*DATA_BLOCK\s+"([^"]+)"/gim;
    for (let m = re.exec(text); m; m = re.exec(text)) if (!/^DB\d+$/i.test(m[1]) && !out.includes(m[1])) out.push(m[1]);
    return out;
  }

  /**
   * A definition from imported text.
   * @returns {{def: object, skipped: object[]}}
   * @throws the table module's E_CSV / E_TIA, or a JSON syntax error
   */
  function parseImport(text, format, numbers) {
    const { table } = E().lib();
    if (format === 'csv') return { def: table.parseCsv(text), skipped: [] };
    if (format === 'tia') {
      const def = table.fromTiaSource(text, { numbers });
      return { def, skipped: def.skipped || [] };
    }
    const v = JSON.parse(text);
    const def = Array.isArray(v) ? { tags: v } : v;
    if (!def || typeof def !== 'object' || !Array.isArray(def.tags)) throw new Error('the JSON has no "tags" list');
    return { def, skipped: [] };
  }

  /** A file name for an export: the node's name, else the table's. */
  function baseName(def) {
    const name = String($('#node-config-input-name').val() || def.name || 'io-table').trim();
    return name.replace(/[^\w.-]+/g, '_') || 'io-table';
  }

  /**
   * The dialog of one node.
   * @param {object} node the node being edited
   * @param {{_: Function}} o the node's message catalog
   * @returns {{ready: Promise, changed: () => boolean, definition: () => object, settingsOk: () => boolean, resize: (h: number) => void}}
   */
  function create(node, o) {
    const _ = o._;
    const read = E().readDefinition(node.table);
    const original = read.def;
    const list = $id('tags');
    let sections = {};
    if (original) for (const [k, v] of Object.entries(original)) if (k !== 'tags') sections[k] = v;
    let settingsOk = true;
    let loaded = false;
    let timer = null;
    const importState = { file: '' };

    const note = (text, error) => $id('note').text(text || '').toggleClass('s7t-error', Boolean(error));
    if (read.error) note(`${_(`${NS}unreadable`)}: ${read.error}`, true);

    const rows = () => list.editableList('items').toArray().map((el) => $(el)).filter((r) => r.data('data') && r.data('data').orig);
    const definition = () => ({ ...sections, tags: rows().map(G().readRow) });
    const changed = () => {
      if (!loaded) return false;
      return !original || E().canonical(definition()) !== E().canonical(original);
    };
    const schedule = () => { clearTimeout(timer); timer = setTimeout(check, E().CHECK_DELAY_MS); };
    const ctx = { _, changed: schedule };

    function check() {
      const def = definition();
      render(E().findingsOf(def), def.tags.length);
    }

    /** Every finding on its row (its field marked), the table's own above the grid, the counts in the summary. */
    function render(f, n) {
      const all = rows();
      for (const r of all) {
        r.find('.s7t-findings').empty();
        r.find('.input-error, .s7t-warn').removeClass('input-error s7t-warn');
      }
      const top = $id('findings').empty();
      if (!settingsOk) $('<li class="s7t-error">').text(_(`${NS}settingsBad`)).appendTo(top);
      const kinds = [['error', f.errors], ['warning', f.warnings], ['deferred', f.deferred]];
      for (const [kind, list] of kinds) {
        for (const x of list) {
          const li = $('<li>').addClass(`s7t-${kind}`).append($('<code>').text(kind === 'deferred' ? 'ENV' : x.code), ' ',
            $('<span>').text(kind === 'deferred' ? `${_(`${NS}deferred`, { tag: x.tag, field: x.field })}` : x.message));
          const r = x.index === null || x.index === undefined ? null : all[x.index];
          if (!r) { li.appendTo(top); continue; }
          li.appendTo(r.find('.s7t-findings'));
          if (kind === 'deferred') continue;
          r.find(`[data-field="${x.field}"]`).addClass(kind === 'error' ? 'input-error' : 's7t-warn');
          if (E().MORE.has(x.field)) G().setMore(r, true);
        }
      }
      const e = f.errors.length + (settingsOk ? 0 : 1);
      const count = (key, k) => _(`${NS}${key}.${k === 1 ? 'one' : 'other'}`, { n: k });
      $id('summary').text(_(`${NS}summary`, { n, errors: count('errors', e), warnings: count('warnings', f.warnings.length) }))
        .toggleClass('s7t-error', e > 0).toggleClass('s7t-ok', e === 0);
    }

    function fill(tags) {
      list.editableList('empty');
      for (const t of tags) list.editableList('addItem', { orig: t && typeof t === 'object' ? t : {}, touched: new Set() });
      schedule();
    }

    function showSettings() {
      $id('settings-text').val(JSON.stringify(sections, null, 2));
      settingsOk = true;
    }

    function wireSettings() {
      $id('settings-open').on('click', () => $id('settings').toggle());
      $id('settings-text').on('input', function () {
        try {
          const v = JSON.parse($(this).val() || '{}');
          if (!v || typeof v !== 'object' || Array.isArray(v) || Object.hasOwn(v, 'tags')) throw new Error('not an object without "tags"');
          sections = v;
          settingsOk = true;
        } catch {
          settingsOk = false;
        }
        $(this).toggleClass('input-error', !settingsOk);
        schedule();
      });
    }

    function wireImport() {
      const ask = () => {
        const text = $id('import-text').val();
        const fmt = $id('import-format').val() === 'auto' ? detect(text, importState.file) : $id('import-format').val();
        const box = $id('import-numbers').empty();
        if (fmt !== 'tia') return;
        namedBlocks(text).forEach((name, i) => {
          $('<label class="s7t-number">').append($('<span>').text(_(`${NS}import.number`, { name })),
            $('<input type="number" min="1" max="65535">').attr({ id: `node-config-table-import-db-${i}`, 'data-block': name })).appendTo(box);
        });
      };
      $id('import-open').on('click', () => { $id('import').toggle(); $id('import-result').text(''); });
      $id('import-cancel').on('click', () => $id('import').hide());
      $id('import-file').on('change', function () {
        const f = this.files && this.files[0];
        if (!f) return;
        importState.file = f.name;
        const reader = new FileReader();
        reader.onload = () => { $id('import-text').val(String(reader.result).replace(/^\uFEFF/, '')); ask(); };
        reader.readAsText(f);
      });
      $id('import-text').on('input', () => { importState.file = ''; ask(); });
      $id('import-format').on('change', ask);
      $id('import-go').on('click', () => {
        const text = $id('import-text').val();
        const fmt = $id('import-format').val() === 'auto' ? detect(text, importState.file) : $id('import-format').val();
        const numbers = {};
        $id('import-numbers').find('input').each(function () { if (this.value) numbers[this.getAttribute('data-block')] = Number(this.value); });
        let got;
        try {
          got = parseImport(text, fmt, numbers);
        } catch (err) {
          $id('import-result').text(`${err.code ? `${err.code}: ` : ''}${err.message}`).addClass('s7t-error');
          return;
        }
        const add = $id('import').find('input[name="node-config-table-import-mode"]:checked').val() === 'add';
        const tags = add ? [...rows().map(G().readRow), ...got.def.tags] : got.def.tags;
        if (!add && fmt === 'json') {
          sections = {};
          for (const [k, v] of Object.entries(got.def)) if (k !== 'tags') sections[k] = v;
          showSettings();
        }
        fill(tags);
        $id('import').hide();
        $id('import-text').val('');
        $id('import-file').val('');
        const skipped = got.skipped.map((s) => `${s.block}.${s.member} (${s.type})`).join(', ');
        note(_(`${NS}import.done`, { n: got.def.tags.length, from: importState.file || _(`${NS}import.pasted`) })
          + (skipped ? ` ${_(`${NS}import.skipped`, { list: skipped })}` : ''));
      });
    }

    function wireExport() {
      const exp = (ext, type, make) => () => {
        const def = definition();
        let text;
        try {
          text = make(def);
        } catch (err) {
          note(`${_(`${NS}export.failed`)}: ${err.message}`, true);
          return;
        }
        E().download(`${baseName(def)}.${ext}`, text, type);
        note(_(`${NS}export.done`, { file: `${baseName(def)}.${ext}` }));
      };
      $id('export-csv').on('click', exp('csv', 'text/csv', (d) => E().lib().table.toCsv(d)));
      // A source carries no OPC UA node ids: one from the environment does not stop the export.
      const noEnvNodeIds = (d) => ({ ...d, tags: d.tags.map((t) => (E().isEnvRef(t.opcua) ? { ...t, opcua: undefined } : t)) });
      $id('export-tia').on('click', exp('db', 'text/plain', (d) => E().lib().table.toTiaSource(noEnvNodeIds(d))));
      $id('export-json').on('click', exp('json', 'application/json', (d) => `${JSON.stringify(d, null, 2)}\n`));
    }

    const header = $('<div class="s7t-tag-main s7t-tag-header">');
    for (const f of ['name', 'short', 'type', 's7', 'dir', 'cloudWritable', 'min', 'max', 'unit', 'desc']) {
      $('<span>').addClass(`s7t-h-${f}`).text(_(`${NS}column.${f}`)).attr('title', _(`${NS}field.${f}`)).appendTo(header);
    }
    const ready = E().load().then(() => {
      list.editableList({
        addButton: _(`${NS}add`),
        header,
        height: 300,
        sortable: true,
        removable: true,
        addItem(row, index, data) {
          if (!data.orig) {
            data.orig = E().suggestTag(rows().map(G().readRow));
            data.touched = new Set(E().FIELDS);
          }
          G().buildRow(row, data, ctx);
          schedule();
        },
        removeItem: schedule,
        sortItems: schedule,
      });
      loaded = true;
      showSettings();
      wireSettings();
      wireImport();
      wireExport();
      fill(original && Array.isArray(original.tags) ? original.tags : []);
    }, (err) => {
      note(`${_(`${NS}noChecks`)} (${err.message})`, true);
      $id('toolbar').find('button').prop('disabled', true);
    });

    return {
      ready,
      changed,
      definition,
      settingsOk: () => settingsOk,
      /** The list takes the height the dialog leaves it. */
      resize(height) {
        if (!loaded) return;
        let used = 0;
        $('#node-config-dialog-edit-form > .form-row:not(.s7t-tags-row)').each(function () { if ($(this).is(':visible')) used += $(this).outerHeight(true); });
        list.editableList('height', Math.max(200, height - used - 10));
      },
    };
  }

  window.s7twinTableDialog = { create, detect, namedBlocks };
})();
