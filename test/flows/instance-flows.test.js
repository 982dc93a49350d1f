'use strict';
/**
 * Where a user's edits live: a Node-RED run with settings.js as `npm start` runs it (no
 * S7T_FLOW_FILE) works on its own copy of flows/cloud.json in its user directory. A deploy from
 * the admin API (what the editor's Deploy button sends) changes that copy only: the checkout is
 * as it was (git status), flows/ gets no .backup or credentials file. The copy survives a
 * restart, and `build-flows.js --split` brings the edit back into flows/parts/ as that edit only.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startNodeRed, ROOT } = require('../helpers/nodered');
const { wholeFlowEnv } = require('../helpers/system');
const { split } = require('../../scripts/build-flows');

const gitStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored=no'], { cwd: ROOT, encoding: 'utf8' });

test('a deploy edits the instance\'s own copy of the flow, never the checkout; split brings the edit back into its part', async (t) => {
  const before = gitStatus();
  const shipped = path.join(ROOT, 'flows', 'cloud.json');
  const shippedText = fs.readFileSync(shipped, 'utf8');
  const flowsDirBefore = fs.readdirSync(path.join(ROOT, 'flows')).sort();
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-instance-'));
  t.after(() => fs.rmSync(userDir, { recursive: true, force: true }));
  const env = await wholeFlowEnv('cloud');

  let red = await startNodeRed({ role: 'cloud', userDir, keepUserDir: true, env });
  const copy = path.join(userDir, 'flows.json');
  try {
    assert.match(red.logs(), /\[s7twin\] flows: .*flows\.json copied from .*flows\/cloud\.json/);
    assert.match(red.logs(), new RegExp(`Flows file *: ${copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(fs.readFileSync(copy, 'utf8'), shippedText);

    // Deploy an edit, as the editor's Deploy button does.
    const current = await (await fetch(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } })).json();
    const flows = current.flows.map((n) => (n.id === 'ws.cloud.c1' ? { ...n, name: 'edited from the editor' } : n));
    const res = await fetch(`${red.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify({ rev: current.rev, flows }),
    });
    assert.equal(res.status, 200, await res.text());
  } finally {
    await red.stop();
  }

  const deployed = JSON.parse(fs.readFileSync(copy, 'utf8'));
  assert.equal(deployed.find((n) => n.id === 'ws.cloud.c1').name, 'edited from the editor', 'the deploy went to the copy');
  assert.equal(fs.readFileSync(shipped, 'utf8'), shippedText, 'flows/cloud.json untouched');
  assert.deepEqual(fs.readdirSync(path.join(ROOT, 'flows')).sort(), flowsDirBefore, 'no .backup or credentials file in flows/');
  assert.equal(gitStatus(), before, 'the checkout is as it was');

  // A restart runs the edited copy, as it is.
  red = await startNodeRed({ role: 'cloud', userDir, keepUserDir: true, env });
  try {
    assert.doesNotMatch(red.logs(), /\[s7twin\] flows:/, 'nothing copied, nothing to say');
    const running = await (await fetch(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v1' } })).json();
    assert.equal(running.find((n) => n.id === 'ws.cloud.c1').name, 'edited from the editor');
  } finally {
    await red.stop();
  }

  // The file Node-RED wrote, split into the parts: the edit, in its part, and nothing else.
  const { write, remove } = split(deployed, 'cloud');
  assert.deepEqual(remove, []);
  for (const [file, text] of write) {
    const part = fs.readFileSync(path.join(ROOT, 'flows', 'parts', file), 'utf8');
    if (file === 'cloud-ws.json') {
      assert.equal(text, part.replace('"name": "Twins → edge: commands and probes (token S7T_TWIN_TOKEN)"', '"name": "edited from the editor"'));
    } else {
      assert.equal(text, part, file);
    }
  }
  assert.equal(gitStatus(), before);
});
