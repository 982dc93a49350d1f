'use strict';
/* global window, document */ // in the page
/**
 * The page generated for a plant that is not the demo plant, in a real browser (Debian's
 * Chromium, playwright-core) against the running system: the tank (its own virtual PLC running
 * examples/tables/tank.json as an I/O image, its own edge) beside the demo plant in one cloud,
 * whose browser twin tab serves the tank's page on a path of its own. The page shows every tag of
 * the tank's table; a setpoint typed in, the valve switched and a recipe typed land on the tank's
 * PLC and come back (the PLC's echoes); a value changed at the PLC shows; a value outside the
 * tag's range never leaves the page; HTTP polling shows the same; a viewer token cannot write.
 * The demo plant keeps its 3D page. A screenshot is kept in results/test-artifacts/.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startSystem } = require('../../system/single');
const { plantTabs } = require('../../system/flows');
const { s7Connect } = require('../../system/s7');
const { loadTable } = require('../../nodes/lib/core/io-table');
const { waitFor } = require('../../system/wait');
const { launchChromium, openTwinPage, waitSnapshot } = require('../../bench/lib/browser');

const ROOT = path.join(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'results', 'test-artifacts');
const TANK_FILE = path.join(ROOT, 'examples', 'tables', 'tank.json');
const tank = loadTable({ file: TANK_FILE });
const TANK = { plant: 'tank1', edgeToken: 'e2e-tank-edge-token', twinToken: 'e2e-tank-twin-token', viewerToken: 'e2e-tank-viewer-token' };

/**
 * The browser twin tab for the tank: its page and REST endpoint on paths of their own, users of
 * the cloud's one twin and edge endpoints (the tab's part carries copies of them, left out), and
 * the I/O table node naming the tank.
 */
function tankUiFlows() {
  const own = (id) => (typeof id === 'string' ? id.replace(/\.tank$/, '') : id);
  return plantTabs(['cloud-twin-ui'], { suffix: 'tank', plant: TANK.plant, table: tank }).filter((n) => n.type !== 's7twin-link-server').map((n) => {
    if (n.type === 's7twin-ui') return { ...n, server: own(n.server), path: '/s7twin/tank', restPath: '/s7twin/rest-tank' };
    if (n.type === 's7twin-rest') return { ...n, server: own(n.server), edge: own(n.edge), plant: TANK.plant, path: '/s7twin/rest-tank' };
    return n;
  });
}

test('the generated page of the tank: its tags, writes that land on the PLC, the PLC\'s changes, a viewer refused', { timeout: 600000 }, async (t) => {
  const sys = await startSystem({
    protocols: ['ws'],
    parts: { cloud: ['cloud-ws', 'cloud-twin-ui'], edge: ['edge-ws'] },
    cloudEnv: {
      S7T_TOKENS: `${TANK.edgeToken}:edge:${TANK.plant},${TANK.twinToken}:twin:${TANK.plant},${TANK.viewerToken}:viewer:${TANK.plant}`,
      S7T_MQTT_WS_PORT: '',
    },
    extraFlows: { cloud: tankUiFlows() },
  });
  t.after(() => sys.stop());
  const plant = await sys.addPlant({ plant: TANK.plant, table: tank, tableFile: TANK_FILE, edgeToken: TANK.edgeToken });
  const s7 = await s7Connect(plant.plcPorts.s7);
  t.after(() => s7.close());
  const plc = async () => {
    const v = await s7.read(['DB11,REAL0', 'DB11,X4.0', 'DB11,S6.16']);
    return { sp: v['DB11,REAL0'], vlv: v['DB11,X4.0'] ? 1 : 0, rcp: v['DB11,S6.16'].trimEnd() };
  };
  const browser = await launchChromium();
  t.after(() => browser.close());

  // One path, the page the plant's table calls for: the demo plant's 3D scene, the tank's tags.
  const cloud = sys.cloud.url;
  assert.match(await (await fetch(`${cloud}/s7twin/ui/`)).text(), /<canvas id="scene"/, 'the demo plant keeps its 3D page');
  const tankHtml = await (await fetch(`${cloud}/s7twin/tank/`)).text();
  assert.match(tankHtml, /<table id="tags">/);
  assert.doesNotMatch(tankHtml, /scene/);
  const config = await (await fetch(`${cloud}/s7twin/tank/config.json`)).json();
  assert.equal(config.page, 'tags');
  assert.equal(config.title, 'tank');
  assert.equal(JSON.stringify(config).includes('DB11'), false, 'no address before a token: the table comes with the session');

  // A user opens the tank's page and connects with the twin token: every tag of the table.
  const a = await openTwinPage(browser, { url: `${cloud}/s7twin/tank/`, token: TANK.twinToken });
  await waitSnapshot(a.page, (s) => typeof s.values.lvl === 'number' && typeof s.values.sp === 'number');
  const names = await a.page.locator('#tags tbody .tag-name').allInnerTexts();
  assert.deepEqual(names, tank.tags.map((x) => x.name));
  assert.match(await a.page.locator('#row-lvl .tag-meta').innerText(), /%DB10\.DBD0 · REAL · output/);
  assert.equal(await a.page.locator('#row-lvl .unit').innerText(), '%');
  assert.equal(await a.page.locator('#set-lvl').count(), 0, 'an output has no control');
  assert.deepEqual(await a.page.evaluate(() => [...document.querySelectorAll('#tags .set [id^=set-]')].map((e) => `${e.id}:${e.type}`)),
    ['set-sp:number', 'set-vlv:checkbox', 'set-rcp:text'], 'a number field, a switch, a text field for the writable tags');
  assert.equal(await a.page.getAttribute('#set-sp', 'max'), '100');
  assert.equal(await a.page.getAttribute('#set-rcp', 'maxlength'), '16');

  // A setpoint typed in lands on the PLC, and the PLC's echo comes back.
  await a.page.fill('#set-sp', '42.5');
  await a.page.click('#row-sp button[type=submit]');
  await waitFor(async () => (await plc()).sp === 42.5, 60000, 'the setpoint on the tank\'s PLC');
  await a.page.waitForFunction(() => document.getElementById('val-lvl').textContent === '42.5', null, { timeout: 60000 });
  await waitSnapshot(a.page, (s) => s.writes.sp && s.writes.sp.state === 'done' && s.rtt.sp.n >= 1);
  assert.match(await a.page.locator('#msg-sp').innerText(), /done, \d+ ms/);
  // The valve by its switch, the recipe by its text field: the feedback and the active recipe follow.
  await a.page.check('#set-vlv');
  await a.page.fill('#set-rcp', 'Milk');
  await a.page.click('#row-rcp button[type=submit]');
  await waitFor(async () => { const v = await plc(); return v.vlv === 1 && v.rcp === 'Milk'; }, 60000, 'valve and recipe on the PLC');
  await a.page.waitForFunction(() => document.getElementById('val-vo').textContent === 'on' && document.getElementById('val-rca').textContent === '“Milk”',
    null, { timeout: 60000 });
  await waitSnapshot(a.page, (s) => s.rtt.vo.n >= 1, 30000);

  // Outside the tag's range: the table's check stops it in the page, the PLC keeps its setpoint.
  await a.page.evaluate(() => window.s7twin.write('sp', 150));
  await a.page.waitForFunction(() => /not sent: .*150.*100/.test(document.getElementById('msg-sp').textContent), null, { timeout: 30000 });
  assert.equal((await plc()).sp, 42.5);

  // A value changed at the PLC (its program, a panel on site) shows on the page.
  await s7.write({ 'DB11,REAL0': 55 });
  await a.page.waitForFunction(() => document.getElementById('val-sp').textContent === '55' && document.getElementById('val-lvl').textContent === '55',
    null, { timeout: 60000 });
  const drawn = () => { const cv = document.getElementById('trend-lvl'); return cv && cv.getContext('2d').getImageData(0, 0, 140, 32).data.some((x) => x); };
  await a.page.waitForFunction(drawn, null, { timeout: 30000 });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await a.page.screenshot({ path: path.join(ARTIFACTS, 'tags-page.png') });

  // HTTP polling of the tank's REST endpoint shows the same plant.
  const h = await openTwinPage(browser, { url: `${cloud}/s7twin/tank/`, token: TANK.twinToken, protocol: 'http' });
  await waitSnapshot(h.page, (s) => s.protocol === 'http' && s.values.sp === 55 && s.values.rca === 'Milk');

  // A viewer watches: its controls are off, and a write it sends anyway is refused by the cloud.
  const v = await openTwinPage(browser, { url: `${cloud}/s7twin/tank/`, token: TANK.viewerToken, viewport: { width: 390, height: 844 } });
  await waitSnapshot(v.page, (s) => s.readOnly && s.values.sp === 55);
  assert.ok(await v.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'at 390 px nothing needs sideways scrolling');
  assert.equal(await v.page.isDisabled('#set-sp'), true);
  assert.equal(await v.page.isDisabled('#set-vlv'), true);
  assert.match(await v.page.textContent('#mode'), /viewer token/);
  await v.page.evaluate(() => window.s7twin.write('sp', 33));
  await waitSnapshot(v.page, (s) => s.writes.sp && s.writes.sp.state === 'refused' && s.writes.sp.code === 'E_READ_ONLY', 30000);
  await v.page.waitForFunction(() => /refused: E_READ_ONLY/.test(document.getElementById('msg-sp').textContent), null, { timeout: 30000 });
  assert.equal((await plc()).sp, 55, 'the viewer wrote nothing');

  for (const p of [a, h, v]) assert.deepEqual(p.errors, [], 'no errors in the page');
});
