'use strict';
/* global $, RED, s7twinTableGrid, document */ // in the editor's page
/**
 * The I/O table node's editor in a real Node-RED and Chromium, used as a PLC programmer would:
 * from the flow-timer node's table field a new table is added, the tank's CSV imported, a tag
 * added (the next free address suggested), typed wrong in the ways a tag list goes wrong (an INT
 * on an odd byte, an overlap, a range outside INT, a name used twice) with each check naming the
 * tag on its row, then typed right in TIA's notation; rows dragged into order; a TIA Portal
 * source of a data block with a symbolic name imported (its number asked for); CSV, TIA source
 * and JSON exported as downloads; `${NAME}` fields kept. Deployed, read back from the runtime,
 * the editor reloaded and the table opened again: nothing lost, and Done changes nothing.
 *
 * The screenshot of the dialog goes to results/test-artifacts/io-table-editor.png (docs/io-table.md
 * shows a copy).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed } = require('../helpers/nodered');
const { launchBrowser } = require('../helpers/browser');
const { openEditor, editorFlows, deploy, flowDifferences } = require('../helpers/editor');
const { parseCsv, fromTiaSource, createTable } = require('../../nodes/lib/core/io-table');

const ROOT = path.join(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'results', 'test-artifacts');
const TANK_CSV = path.join(ROOT, 'examples', 'tables', 'tank.csv');
const SP_NODE = 'ns=3;s="DB11"."Setpoint"';

/** A non-optimized data block as TIA Portal exports it: a symbolic name, so the editor asks for its number. */
const LINE_SOURCE = `DATA_BLOCK "Line"
{ S7_Optimized_Access := 'FALSE' }
VERSION : 0.1
NON_RETAIN
   STRUCT
      Running : Bool;
      Fault : Bool;
      Speed : Real;   // [spd out 0..3000 unit:rpm] Belt speed
      Batch : String[8];
   END_STRUCT;
BEGIN
END_DATA_BLOCK
`;

const FLOW = [
  { id: 'tab', type: 'tab', label: 'tank' },
  {
    id: 'timer', type: 's7twin-timer', z: 'tab', table: '', name: '', protocol: 'ws', csvFile: '', timeoutMs: '5000', statsIntervalS: '10', x: 200, y: 100,
    wires: [[], []],
  },
];

/** The dialog's rows as the table will hold them. */
const rows = (page) => page.evaluate(() => $('#node-config-table-tags').editableList('items').toArray().map((el) => s7twinTableGrid.readRow($(el))));
/** The findings on row i (their text). */
const findingsOf = (page, i) => page.locator('#node-config-table-tags > li').nth(i).locator('.s7t-findings li').allInnerTexts();
const row = (page, i) => page.locator('#node-config-table-tags > li').nth(i);
const field = (page, i, f) => row(page, i).locator(`[data-field="${f}"]`).first();
const summary = (page) => page.locator('#node-config-table-summary').innerText();

/** Wait until the dialog's checks say what `pred` wants (they run a moment after the last keystroke). */
async function checked(page, pred, what) {
  const end = Date.now() + 30000;
  let last;
  while (Date.now() < end) {
    last = { summary: await summary(page), rows: await page.locator('#node-config-table-tags > li').count() };
    if (await pred(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`the dialog never showed ${what} (last: ${JSON.stringify(last)})`);
}

async function download(page, button) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: dl.suggestedFilename(), text: fs.readFileSync(await dl.path(), 'utf8') };
}

/** Drag row `from` above row `to` by its handle, as a user does with the mouse. */
/** Wait until row `k` stops moving (the rows' details close with an animation). */
async function settled(page, k) {
  let before = null;
  for (let i = 0; i < 50; i++) {
    const now = JSON.stringify(await row(page, k).boundingBox());
    if (now === before) return;
    before = now;
    await page.waitForTimeout(100);
  }
}

async function drag(page, from, to) {
  await row(page, from).locator('.red-ui-editableList-item-handle').scrollIntoViewIfNeeded();
  await settled(page, from);
  const h = await row(page, from).locator('.red-ui-editableList-item-handle').boundingBox();
  const t = await row(page, to).boundingBox();
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  for (let k = 1; k <= 10; k++) await page.mouse.move(h.x + h.width / 2, h.y + (t.y + 4 - h.y) * (k / 10), { steps: 2 });
  await page.mouse.up();
}

/**
 * Drag the row named `name` to row `to` until it is there: a drag that slipped (the list still
 * moving, a slow frame on a busy machine) is tried again from where the row is, as a user would.
 */
async function dragUntil(page, name, to) {
  const at = async () => (await rows(page)).findIndex((r) => r.name === name);
  const landed = async () => (await at()) === to;
  for (let attempt = 1; attempt <= 3; attempt++) {
    await drag(page, await at(), to);
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      if (await landed()) return;
      await page.waitForTimeout(100);
    }
  }
}

test('the I/O table editor: import, add, checks naming the tag, reorder, TIA source, export, deploy, reopen', { timeout: 600000 }, async (t) => {
  const red = await startNodeRed({ role: 'cloud', flows: FLOW, env: { TANK_SP_NODE: SP_NODE } });
  t.after(() => red.stop());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await browser.page();
  const { errors } = await openEditor(page, red.url);

  // From the flow-timer's table field: add a new I/O table.
  await page.evaluate(() => { RED.workspaces.show('tab'); RED.editor.edit(RED.nodes.node('timer')); });
  await page.locator('#node-input-btn-table-add').click();
  await page.locator('#node-config-table-toolbar').waitFor({ state: 'visible' });
  await checked(page, (s) => /^0 tags/.test(s.summary), 'an empty table');
  await page.fill('#node-config-input-name', 'tank');
  await page.fill('#node-config-input-plants', 'tank1');

  // Import the tank's CSV from a file.
  await page.click('#node-config-table-import-open');
  await page.setInputFiles('#node-config-table-import-file', TANK_CSV);
  await page.waitForFunction(() => $('#node-config-table-import-text').val().startsWith('name,short'));
  await page.click('#node-config-table-import-go');
  await checked(page, (s) => s.rows === 9 && /^9 tags · 0 errors · 0 warnings/.test(s.summary), 'the nine tags of the CSV');
  assert.match(await page.locator('#node-config-table-note').innerText(), /Imported 9 tags from tank\.csv/);
  assert.deepEqual(await rows(page), parseCsv(fs.readFileSync(TANK_CSV, 'utf8')).tags, 'the rows are the CSV\'s tags, field for field');

  // Add a tag: the next free place after the last tag's area, its type and direction.
  await page.click('.red-ui-editableList-addButton');
  await checked(page, (s) => s.rows === 10, 'a tenth row');
  assert.deepEqual((await rows(page))[9], { name: 'Tag10', short: 't10', type: 'BOOL', s7: 'M2.1', dir: 'out' }, 'the type and direction of the row above');

  // Typed wrong, each check names the tag on its row.
  await field(page, 9, 'name').fill('Pressure');
  await field(page, 9, 'short').fill('prs');
  await field(page, 9, 'type').selectOption('INT');
  await field(page, 9, 's7').fill('DB11,INT5');
  await checked(page, async () => (await findingsOf(page, 9)).some((f) => /E_TAG_ALIGN.*tag "Pressure".*even byte/.test(f)), 'the alignment check');
  assert.match(await field(page, 9, 's7').getAttribute('class'), /input-error/, 'the address field is marked');
  await field(page, 9, 's7').fill('DB11,INT4');
  await checked(page, async () => (await findingsOf(page, 9)).some((f) => /E_TAG_OVERLAP.*tag "Pressure".*overlaps tag "Valve"/.test(f)), 'the overlap check');
  await row(page, 8).locator('.s7t-more-toggle').click();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'io-table-editor.png') });
  await field(page, 9, 's7').fill('DB11.DBW24'); // TIA's notation: the byte after the recipe
  await field(page, 9, 'min').fill('-40000');
  await checked(page, async () => (await findingsOf(page, 9)).some((f) => /E_TAG_RANGE.*tag "Pressure".*min -40000 is outside what a INT holds/.test(f)), 'the range check');
  assert.deepEqual((await findingsOf(page, 9)).filter((f) => /E_TAG_(ALIGN|OVERLAP)/.test(f)), [], 'the address is right now');
  await field(page, 9, 'min').fill('0');
  await field(page, 9, 'max').fill('1000');
  await field(page, 9, 'unit').fill('mbar');
  await field(page, 9, 'name').fill('Level');
  await checked(page, async () => (await findingsOf(page, 9)).some((f) => /E_TAG_DUPLICATE.*name "Level" is already the name of tag "Level" \(row 1\)/.test(f)), 'the duplicate check');
  assert.match(await summary(page), /1 error ·/);
  await field(page, 9, 'name').fill('Pressure');
  await field(page, 9, 'dir').selectOption('in');
  await field(page, 9, 'cloudWritable').check();
  await checked(page, (s) => /^10 tags · 0 errors · 0 warnings/.test(s.summary), 'a table with no findings');
  assert.deepEqual((await rows(page))[9], {
    name: 'Pressure', short: 'prs', type: 'INT', s7: 'DB11.DBW24', dir: 'in', cloudWritable: true, min: 0, max: 1000, unit: 'mbar',
  });
  assert.match(await row(page, 9).locator('.s7t-addr-other').innerText(), /TIA Portal: %DB11\.DBW24 · nodes7: DB11,INT24/);

  // A text field from the environment is kept, and checked when the flow starts.
  await row(page, 4).locator('.s7t-more-toggle').click();
  await field(page, 4, 'opcua').fill('${TANK_SP_NODE}');
  await checked(page, async () => (await findingsOf(page, 4)).some((f) => /ENV.*tag "Setpoint": opcua comes from an environment variable/.test(f)), 'the deferred check');
  assert.match(await summary(page), /0 errors/);

  // Drag the new tag to the top, with the opened rows closed again so that the whole list is in view.
  await row(page, 4).locator('.s7t-more-toggle').click();
  await row(page, 8).locator('.s7t-more-toggle').click();
  await dragUntil(page, 'Pressure', 0);
  await checked(page, async () => (await rows(page))[0].name === 'Pressure', 'Pressure on the first row');
  assert.deepEqual((await rows(page)).map((r) => r.short), ['prs', 'lvl', 'tmp', 'cnt', 'rca', 'sp', 'vlv', 'rcp', 'sts', 'vo']);

  // Import a TIA Portal source, adding to the tags: its block has a name, so its number is asked for.
  await page.click('#node-config-table-import-open');
  await page.fill('#node-config-table-import-text', LINE_SOURCE);
  await page.locator('#node-config-table-import-db-0').fill('20');
  await page.check('input[name="node-config-table-import-mode"][value="add"]');
  await page.click('#node-config-table-import-go');
  await checked(page, (s) => s.rows === 14 && /^14 tags · 0 errors/.test(s.summary), 'the four members of the block added');
  const line = fromTiaSource(LINE_SOURCE, { numbers: { Line: 20 } }).tags;
  assert.deepEqual((await rows(page)).slice(10), line);
  assert.deepEqual(line.map((x) => x.s7), ['DB20,X0.0', 'DB20,X0.1', 'DB20,REAL2', 'DB20,S6.8'], 'laid out as TIA lays them out');

  // Export: CSV, TIA source, JSON, as downloads the runtime's readers take back.
  const csv = await download(page, '#node-config-table-export-csv');
  assert.equal(csv.name, 'tank.csv');
  assert.deepEqual(parseCsv(csv.text).tags.map((x) => x.short), (await rows(page)).map((r) => r.short));
  const tia = await download(page, '#node-config-table-export-tia');
  assert.equal(tia.name, 'tank.db');
  assert.match(tia.text, /DATA_BLOCK "DB20"/);
  assert.match(tia.text, /Pressure : Int;\s+\/\/ DBW24 \[prs in writable 0\.\.1000 unit:mbar\]/);
  const json = await download(page, '#node-config-table-export-json');
  assert.equal(json.name, 'tank.json');
  const exported = JSON.parse(json.text);
  assert.deepEqual(exported.tags, await rows(page));
  const expected = createTable({ ...exported, tags: exported.tags.map((x) => (x.opcua === '${TANK_SP_NODE}' ? { ...x, opcua: SP_NODE } : x)) });
  assert.equal(expected.tags.length, 14, 'a table the runtime takes');

  // Add, Done, deploy.
  await page.click('#node-config-dialog-ok');
  await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
  await page.click('#node-dialog-ok');
  await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0);
  const result = await deploy(page);
  assert.ok(result.ok, `deployed without a warning: ${result.text}`);
  const deployed = await (await fetch(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v1' } })).json();
  const node = deployed.find((n) => n.type === 's7twin-io-table');
  assert.equal(deployed.find((n) => n.id === 'timer').table, node.id, 'the timer uses the new table');
  assert.equal(node.name, 'tank');
  assert.equal(node.plants, 'tank1');
  assert.equal(typeof node.table, 'object', 'the table is JSON in the flow, a tag per object: a diff names the tag');
  assert.deepEqual(node.table.tags, exported.tags);
  assert.equal(node.table.tags[5].opcua, '${TANK_SP_NODE}', 'the environment reference survives the deploy');
  assert.doesNotMatch(red.logs(), /refused/, 'the runtime took the table');

  // The editor loaded again: the table opens as it was deployed, and Done changes nothing.
  await openEditor(page, red.url);
  const before = await editorFlows(page);
  await page.evaluate((id) => RED.editor.editConfig('', 's7twin-io-table', id), node.id);
  await checked(page, (s) => s.rows === 14 && /^14 tags · 0 errors · 0 warnings/.test(s.summary), 'the deployed table');
  assert.deepEqual(await rows(page), exported.tags);
  assert.equal(await field(page, 5, 'opcua').inputValue(), '${TANK_SP_NODE}');
  await page.click('#node-config-dialog-ok');
  await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0);
  assert.deepEqual(flowDifferences(before, await editorFlows(page)), [], 'Done on an unchanged table changed nothing');
  assert.equal(await page.evaluate(() => RED.nodes.dirty()), false);
  assert.deepEqual(errors, [], 'no script error in the editor');
});
