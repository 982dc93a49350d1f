'use strict';
/** The suite's two passes (scripts/run-tests.js): every test file in exactly one of them. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { passes } = require('../../scripts/run-tests');

const ROOT = path.join(__dirname, '..', '..');

/** This process's environment without the runner's own mark, which would make a child runner skip its files. */
function childEnv() {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test('every test file runs in exactly one pass; system, browser, container and benchmark tests one at a time', () => {
  const { parallel, serial } = passes(ROOT);
  const all = fs.globSync('test/**/*.test.js', { cwd: ROOT }).sort();
  assert.deepEqual([...parallel, ...serial].sort(), all);
  assert.equal(new Set([...parallel, ...serial]).size, all.length, 'no file twice');
  for (const f of ['test/e2e/faults.test.js', 'test/e2e/link-transports.test.js', 'test/bench/smoke.test.js', 'test/system/brokers.test.js']) {
    assert.ok(serial.includes(f), `${f} runs alone`);
  }
  assert.ok(parallel.includes('test/scripts/run-tests.test.js'));
  assert.ok(parallel.every((f) => /^test\/(nodes|twin|plc|scripts|flows|docs)\//.test(f)), 'only module and node tests two at a time');
});

test('the failures reporter records each failed test with its file, line and message, not the parents that failed through it, and each file\'s time', () => {
  const { spawnSync } = require('node:child_process');
  const os = require('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-reporter-'));
  try {
    const fixture = path.join(dir, 'fixture.test.js');
    fs.writeFileSync(fixture, [
      "const test = require('node:test');",
      "const assert = require('node:assert/strict');",
      "test('passes', () => {});",
      "test('parent', async (t) => {",
      "  await t.test('child fails', () => { assert.equal(1, 2, 'one is not two'); });",
      "  await t.test('child passes', () => {});",
      '});',
      "test('throws', () => { throw new Error('thrown here'); });",
      '',
    ].join('\n'));
    const out = path.join(dir, 'failures.jsonl');
    const r = spawnSync(process.execPath, ['--test', `--test-reporter=${path.join(ROOT, 'scripts', 'failures-reporter.js')}`,
      `--test-reporter-destination=${out}`, fixture], { cwd: dir, encoding: 'utf8', env: childEnv() });
    assert.equal(r.status, 1, r.stderr);
    const { readRecords, summary } = require('../../scripts/run-tests');
    const recorded = readRecords(out);
    const { failures } = recorded;
    assert.deepEqual(failures.map((f) => f.name), ['child fails', 'throws']);
    assert.ok(failures.every((f) => f.file === fixture), 'each names its file');
    assert.equal(failures[0].line, 5);
    assert.match(failures[0].message, /one is not two/);
    assert.match(failures[1].message, /thrown here/);
    assert.equal(recorded.files.length, 1, 'one time for the one file');
    assert.equal(recorded.files[0].file, fixture);
    assert.ok(Number.isInteger(recorded.files[0].ms) && recorded.files[0].ms >= 0);
    const lines = summary('pass 1', 1, recorded);
    assert.match(lines[0], /pass 1: exit code 1, 2 failed test\(s\)/);
    assert.ok(lines.some((l) => l.includes('fixture.test.js:5  child fails')), lines.join('\n'));
    assert.match(lines.at(-1), /slowest files: .*fixture\.test\.js \d+\.\d s/);
    assert.ok(lines.every((l) => l.startsWith('#')), 'TAP comments only');
    const none = { failures: [], files: [] };
    assert.deepEqual(summary('pass 2', 0, none), ['# pass 2: every test passed']);
    assert.match(summary('pass 2', 1, none).join('\n'), /the runner itself failed/);
    const files = Array.from({ length: 10 }, (_, i) => ({ file: path.join(ROOT, `f${i}.test.js`), ms: i * 1000 }));
    const slowest = [9, 8, 7, 6, 5, 4, 3, 2].map((i) => `f${i}.test.js ${i}.0 s`).join(', ');
    assert.equal(summary('pass 2', 0, { failures: [], files }).at(-1), `#   slowest files: ${slowest}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
