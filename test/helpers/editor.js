'use strict';
/**
 * Drive the real Node-RED editor in a page (test/helpers/browser.js): load it, open a node's edit
 * dialog and press Done as a user would, deploy with the Deploy button, import an example from
 * the Import → Examples dialog, and read what the editor holds.
 */
// The functions handed to page.evaluate and page.waitForFunction run in the editor's page: its
// globals (the editor's RED and jQuery).
/* global window, document, RED, $ */
const { waitFor } = require('./nodered');

/**
 * Open the editor and wait until it shows the flows.
 * @param {import('playwright-core').Page} page
 * @param {string} url the runtime's editor URL
 */
async function openEditor(page, url) {
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url);
  await page.waitForFunction(() => window.RED && RED.nodes && RED.workspaces && RED.workspaces.count() > 0
    && document.querySelector('#red-ui-header-button-deploy') && !document.querySelector('#red-ui-loading-progress:not([style*="none"])'),
  null, { timeout: 120000 });
  // The flows arrive after the palette: wait until the node count stops changing.
  let last = -1;
  await waitFor(async () => {
    const n = await page.evaluate(() => { let c = 0; RED.nodes.eachNode(() => { c += 1; }); RED.nodes.eachConfig(() => { c += 1; }); return c; });
    const stable = n === last;
    last = n;
    return stable;
  }, 60000, 'the editor to load the flows');
  // Node-RED 4+ asks once whether to enable update notifications (a modal over everything):
  // answer no, as a user of an offline plant would.
  // No animations: a tray that slides in is still moving when a loaded machine would click it.
  await page.evaluate(() => {
    $.fx.off = true;
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
    document.head.appendChild(style);
  });
  if (await page.evaluate(() => RED.settings.telemetryEnabled === undefined && RED.user.hasPermission('settings.write'))) {
    const no = page.locator('button', { hasText: 'No, do not enable notifications' });
    await no.first().click({ timeout: 30000 });
    await no.first().waitFor({ state: 'detached' });
  }
  // A stock Node-RED then shows its welcome tour once per user (its answer is kept in the user
  // settings): close it as a user would. Whether it comes at all depends on the version's tour, so
  // it gets a while to appear, not for ever.
  const tour = await page.evaluate(() => RED.settings.theme('tours') !== false
    && RED.settings.get('editor.view.view-show-welcome-tours', true) && !RED.settings.get('editor.tours.welcome'));
  if (tour) {
    const shade = page.locator('.red-ui-tourGuide-shade');
    const shown = await shade.waitFor({ state: 'attached', timeout: 15000 }).then(() => true, () => false);
    if (shown) {
      await page.locator('.red-ui-tourGuide-popover-description').locator('xpath=..').locator('button[aria-label]').first().click({ timeout: 30000 });
      await shade.waitFor({ state: 'detached', timeout: 30000 });
    }
  }
  return { errors };
}

/**
 * Every node the editor holds that a user can open: tabs, configuration nodes and flow nodes.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{id:string, type:string, kind:'tab'|'config'|'node'}[]>}
 */
function editableNodes(page) {
  return page.evaluate(() => {
    const out = [];
    RED.nodes.eachWorkspace((w) => out.push({ id: w.id, type: 'tab', kind: 'tab' }));
    RED.nodes.eachConfig((n) => { if (n.type !== 'global-config') out.push({ id: n.id, type: n.type, kind: 'config' }); });
    RED.nodes.eachNode((n) => out.push({ id: n.id, type: n.type, kind: 'node' }));
    return out;
  });
}

/**
 * Open one node's edit dialog, wait until it is ready, press Done, wait until it has closed.
 * @param {import('playwright-core').Page} page
 * @param {{id:string, kind:string}} n
 */
async function openAndDone(page, n) {
  await page.evaluate(({ id, kind }) => {
    if (kind === 'tab') {
      RED.workspaces.show(id);
      RED.editor.editFlow(RED.nodes.workspace(id));
    } else if (kind === 'config') {
      const node = RED.nodes.node(id);
      RED.editor.editConfig('', node.type, id);
    } else {
      const node = RED.nodes.node(id);
      RED.workspaces.show(node.z);
      RED.editor.edit(node);
    }
  }, n);
  const ok = n.kind === 'config' ? '#node-config-dialog-ok' : '#node-dialog-ok';
  await page.locator(ok).waitFor({ state: 'visible', timeout: 30000 });
  await page.locator(ok).click();
  await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0, null, { timeout: 30000 });
}

/**
 * What the editor would deploy: RED.nodes.createCompleteNodeSet(), as the Deploy button sends it.
 * @param {import('playwright-core').Page} page
 */
function editorFlows(page) {
  return page.evaluate(() => JSON.parse(JSON.stringify(RED.nodes.createCompleteNodeSet({ credentials: false }))));
}

/**
 * Press Deploy. Resolves with the text of the notification that followed: `ok` when it is the
 * plain success, otherwise the warning the editor showed (unknown or invalid nodes, unused
 * configuration nodes), which is then dismissed without deploying.
 * @param {import('playwright-core').Page} page
 * @param {{full?: boolean}} [opts] full: deploy even when the editor has no changes
 * @returns {Promise<{ok: boolean, text: string}>}
 */
async function deploy(page, opts = {}) {
  await page.evaluate(() => { for (const el of document.querySelectorAll('.red-ui-notification')) el.remove(); });
  if (opts.full) await page.evaluate(() => RED.nodes.dirty(true));
  await page.locator('#red-ui-header-button-deploy').click();
  const note = page.locator('.red-ui-notification').first();
  await note.waitFor({ state: 'visible', timeout: 60000 });
  const text = (await note.innerText()).trim();
  const ok = await page.evaluate(() => {
    const n = document.querySelector('.red-ui-notification');
    return n.classList.contains('red-ui-notification-success') && !n.querySelector('button');
  });
  if (!ok && await page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy').count()) {
    await page.locator('.red-ui-notification button', { hasText: /cancel/i }).first().click();
  }
  return { ok, text };
}

/**
 * Import an example through Menu → Import → Examples → <module> → <name>, as a user does.
 * @param {import('playwright-core').Page} page
 * @param {string} module the package name
 * @param {string} name the example's file name without .json
 */
async function importExample(page, module, name) {
  await page.evaluate(() => RED.actions.invoke('core:show-import-dialog'));
  const dialog = page.locator('#red-ui-clipboard-dialog');
  await dialog.waitFor({ state: 'visible' });
  await dialog.locator('.red-ui-tab a', { hasText: /^Examples$/ }).first().click();
  const tree = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  await tree.locator('.red-ui-treeList-label', { hasText: new RegExp(`^${escape(module)}$`) }).first().click();
  await tree.locator('.red-ui-treeList-label', { hasText: new RegExp(`^${escape(name)}$`) }).first().click();
  await page.locator('#red-ui-clipboard-dialog-ok').click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Every node the editor holds (flow and configuration nodes, tabs), as plain objects with the
 * editor's view of them: type, and whether it validated.
 * @param {import('playwright-core').Page} page
 */
function editorNodes(page) {
  return page.evaluate(() => {
    const out = [];
    const add = (n, kind) => {
      if (kind !== 'tab' && n.valid === undefined) RED.editor.validateNode(n);
      out.push({ id: n.id, type: n.type, kind, valid: kind === 'tab' || n.valid !== false, name: n.name || n.label || '' });
    };
    RED.nodes.eachWorkspace((n) => add(n, 'tab'));
    RED.nodes.eachConfig((n) => { if (n.type !== 'global-config') add(n, 'config'); });
    RED.nodes.eachNode((n) => add(n, 'node'));
    return out;
  });
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The boxes the editor drew for every node of every tab (showing each tab in turn).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<object[]>} nodes with id, type, z, name, x, y, w, h
 */
async function drawnBoxes(page) {
  const tabs = await page.evaluate(() => { const t = []; RED.nodes.eachWorkspace((w) => t.push(w.id)); return t; });
  const out = [];
  for (const z of tabs) {
    await page.evaluate((id) => RED.workspaces.show(id), z);
    await page.waitForFunction((id) => RED.nodes.filterNodes({ z: id }).every((n) => n.w && n.h), z);
    out.push(...await page.evaluate((id) => RED.nodes.filterNodes({ z: id })
      .map((n) => ({ id: n.id, type: n.type, z: n.z, name: n.name, x: n.x, y: n.y, w: n.w, h: n.h })), z));
  }
  return out;
}

/** JSON with every object's keys sorted: equal for values that differ only in key order. */
function canonical(v) {
  return JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
}

/**
 * How flow `b` differs from flow `a`, node by node (matched by id) and property by property,
 * ignoring the order of nodes and of properties.
 * @param {object[]} a
 * @param {object[]} b
 * @returns {string[]} empty when they hold the same nodes with the same properties
 */
function flowDifferences(a, b) {
  const out = [];
  const byId = new Map(b.map((n) => [n.id, n]));
  for (const n of a) {
    const m = byId.get(n.id);
    if (!m) { out.push(`${n.type} ${n.id}: missing`); continue; }
    byId.delete(n.id);
    for (const k of new Set([...Object.keys(n), ...Object.keys(m)])) {
      if (canonical(n[k]) !== canonical(m[k])) out.push(`${n.type} ${n.id}.${k}: ${canonical(n[k])} → ${canonical(m[k])}`);
    }
  }
  for (const m of byId.values()) out.push(`${m.type} ${m.id}: added`);
  return out;
}

module.exports = { flowDifferences, openEditor, editableNodes, editorNodes, openAndDone, editorFlows, deploy, importExample, drawnBoxes };
