'use strict';
/**
 * scripts/audit-verify.js as a user runs it: exit 0 on an untouched log; exit 1 naming the first
 * bad line when an entry was edited, removed or reordered, or the end cut off; exit 2 when the
 * log cannot be read.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { createAuditLog } = require('../../nodes/lib/history/audit-log');

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'audit-verify.js');
const run = (...args) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

test('audit-verify finds an edited, removed, reordered or cut entry and names its line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-verify-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  for (let i = 1; i <= 6; i += 1) log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i, d: { se: 1 } });
  await log.flushed();
  await log.close();
  const good = fs.readFileSync(file, 'utf8');
  const lines = good.trim().split('\n');
  const headText = fs.readFileSync(`${file}.head`, 'utf8');
  const head = JSON.parse(headText);

  const ok = run(file);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^ok: 6 entries, chain intact, end matches the head; newest 6:[0-9a-f]{64}/);

  const cases = {
    edited: [lines.map((l, i) => (i === 3 ? l.replace('"se":1', '"se":0') : l)), 4, /edited/],
    removed: [lines.filter((l, i) => i !== 2), 3, /removed or reordered/],
    reordered: [[lines[0], lines[1], lines[4], lines[3], lines[2], lines[5]], 3, /removed or reordered/],
    'first removed': [lines.slice(1), 1, /removed or reordered/],
    'tail cut': [lines.slice(0, 4), 5, /ends at entry 4 but its head says 6/],
  };
  for (const [name, [ls, line, why]] of Object.entries(cases)) {
    fs.writeFileSync(file, `${ls.join('\n')}\n`);
    const r = run(file);
    assert.equal(r.status, 1, `${name}: ${r.stdout}`);
    assert.match(r.stderr, new RegExp(`^E_AUDIT_TAMPERED: line ${line} `), name);
    assert.match(r.stderr, why, name);
  }

  // A copy without its head file: the chain alone, or a head kept elsewhere.
  fs.writeFileSync(file, `${lines.slice(0, 4).join('\n')}\n`);
  fs.rmSync(`${file}.head`);
  assert.equal(run(file).status, 0, 'no head: a cut end cannot be seen');
  assert.match(run(file).stdout, /no head to compare/);
  const kept = run(file, '--head', `${head.n}:${head.hash}`);
  assert.equal(kept.status, 1);
  assert.match(kept.stderr, /line 5 .*cut off/);
  fs.writeFileSync(file, good);
  assert.equal(run(file, '--head', `${head.n}:${head.hash}`).status, 0);

  assert.equal(run(path.join(dir, 'missing.jsonl')).status, 2);
  assert.match(run(path.join(dir, 'missing.jsonl')).stderr, /^E_AUDIT_FILE: /);
  assert.equal(run().status, 2);
  assert.equal(run(file, '--head', 'nonsense').status, 2);
});
