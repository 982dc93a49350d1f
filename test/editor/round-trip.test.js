'use strict';
/**
 * Editing a node never changes its flow: both flows (flows/cloud.json, flows/edge.json) in a real
 * Node-RED runtime (settings.js) and its editor in Chromium; every tab, configuration node and
 * node is opened and closed with Done, as a user would, then the flow is deployed with the Deploy
 * button and read back from the runtime.
 *
 * What the comparison ignores is what Node-RED itself does to any flow: it may reorder nodes and
 * the properties within a node (an editor export lists a node's properties in its own order).
 * Everything else (a value's type, a property added or dropped) counts as a change. The flows
 * hold every property their editors write, so no other difference is expected; the test also
 * checks that the editor shows each flow as it is on file before anything is opened.
 *
 * The deployed flow, split back into flows/parts/ as `node scripts/build-flows.js --split` does,
 * is the parts as they are: an edit made in the editor comes back as that edit only.
 *
 * The layout is checked again with the sizes the editor really draws (test/flows/layout.test.js
 * uses an upper bound of them).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startNodeRed } = require('../helpers/nodered');
const { wholeFlowEnv } = require('../helpers/system');
const { launchBrowser } = require('../helpers/browser');
const { openEditor, editableNodes, openAndDone, editorFlows, deploy, drawnBoxes, flowDifferences } = require('../helpers/editor');
const { layoutProblems } = require('../helpers/layout');
const { split } = require('../../scripts/build-flows');

const ROOT = path.join(__dirname, '..', '..');

for (const role of ['cloud', 'edge']) {
  test(`flows/${role}.json: every node opened and closed with Done, then deployed, is the flow on file`, async (t) => {
    const original = JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', `${role}.json`), 'utf8'));
    // A copy in the runtime's own user directory: a deploy never writes the checkout.
    const red = await startNodeRed({ role, flows: original, env: await wholeFlowEnv(role) });
    t.after(() => red.stop());
    const browser = await launchBrowser();
    t.after(() => browser.close());
    const page = await browser.page();
    const { errors } = await openEditor(page, red.url);

    const loaded = await editorFlows(page);
    assert.deepEqual(flowDifferences(original, loaded), [], 'the editor shows the flow as it is on file');

    const boxes = await drawnBoxes(page);
    assert.deepEqual(layoutProblems(boxes, (n) => n), [], 'laid out as drawn: inside the canvas, on the grid, nothing overlapping');

    const nodes = await editableNodes(page);
    assert.deepEqual(nodes.map((n) => n.id).sort(), original.map((n) => n.id).sort(), 'every node of the flow can be opened');
    for (const n of nodes) await openAndDone(page, n);
    assert.deepEqual(flowDifferences(loaded, await editorFlows(page)), [], 'Done on every node changed nothing');

    const result = await deploy(page, { full: true });
    assert.ok(result.ok, `deployed without a warning: ${result.text}`);
    const deployed = await (await fetch(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v1' } })).json();
    assert.deepEqual(flowDifferences(original, deployed), [], 'the deployed flow is the flow on file');
    // And split back into flows/parts/ (scripts/build-flows.js --split), it is the parts as they are.
    for (const [file, text] of split(deployed, role).write) {
      assert.equal(text, fs.readFileSync(path.join(ROOT, 'flows', 'parts', file), 'utf8'), `split: flows/parts/${file}`);
    }
    const reordered = deployed.some((n, i) => n.id !== original[i].id);
    const keysMoved = deployed.filter((n) => { const o = original.find((x) => x.id === n.id); return Object.keys(n).join() !== Object.keys(o).join(); }).length;
    t.diagnostic(`${nodes.length} nodes opened; Node-RED's own normalisation: nodes ${reordered ? 'reordered' : 'in file order'}, ` +
      `properties reordered in ${keysMoved} nodes`);
    assert.deepEqual(errors, [], 'no script error in the editor');
  });
}
