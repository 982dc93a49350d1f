#!/usr/bin/env node
'use strict';
/**
 * The whole suite on Node's own test runner, in two passes, so that it takes less time on a
 * 2-core machine without making the system tests share it:
 *   1. the module and node tests (nodes/, twin/, plc/, scripts/, flows/, docs/), two files at a
 *      time: each is small and most of their time is spent waiting on sockets and timers;
 *   2. the tests that start whole systems, brokers, browsers or containers, or that measure
 *      (e2e/, system/, editor/, package/, containers/, bench/), one file at a time: two of those
 *      at once on two cores slowed round trips past what the plant model allows (a box
 *      mis-sorted), and the fault suites judge each write against its deadline to the millisecond.
 * Both passes run even when the first fails; the exit code is the first failing one's. The
 * failures of both passes are printed again at the very end (scripts/failures-reporter.js), so the
 * tail of a long log names them.
 *   node scripts/run-tests.js            (npm test)
 *   node scripts/run-tests.js --serial   only the second pass
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** Test files (globs) run one at a time, in the second pass. */
const SERIAL = ['e2e', 'system', 'editor', 'package', 'containers', 'bench'].map((d) => `test/${d}/**/*.test.js`);
const TIMEOUT_MS = 180000;

/**
 * Split the suite into the two passes.
 * @param {string} root the repository
 * @returns {{parallel: string[], serial: string[]}} paths relative to `root`, sorted
 */
function passes(root) {
  const all = fs.globSync('test/**/*.test.js', { cwd: root }).sort();
  const serial = new Set(SERIAL.flatMap((g) => fs.globSync(g, { cwd: root })));
  return { parallel: all.filter((f) => !serial.has(f)), serial: [...serial].sort() };
}

/**
 * Run one pass: TAP (or, in a terminal, the spec reporter) on stdout, and each failure as a JSON
 * line into `failuresFile`.
 * @param {string[]} files test files, relative to ROOT
 * @param {number} concurrency files at a time
 * @param {string} failuresFile where scripts/failures-reporter.js writes
 * @returns {number} the runner's exit code
 */
function run(files, concurrency, failuresFile) {
  if (!files.length) return 0;
  const reporter = process.stdout.isTTY ? 'spec' : 'tap';
  const args = [
    '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${TIMEOUT_MS}`,
    `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(__dirname, 'failures-reporter.js')}`, `--test-reporter-destination=${failuresFile}`,
    ...files,
  ];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  return r.status === null ? 1 : r.status;
}

/** Files named per pass in the summary, slowest first. */
const SLOWEST = 8;

/**
 * The closing summary: every failure of a pass, with where it is and what it said, and the
 * slowest files.
 * @param {string} label the pass
 * @param {number} status its exit code
 * @param {{failures: Array<{file: string|null, line: number|null, name: string, message: string}>,
 *   files: Array<{file: string, ms: number}>}} recorded what scripts/failures-reporter.js wrote
 * @returns {string[]} lines, each a TAP comment
 */
function summary(label, status, { failures, files }) {
  const rel = (f) => path.relative(ROOT, f) || f;
  const lines = [];
  if (!status && !failures.length) lines.push(`# ${label}: every test passed`);
  else lines.push(`# ${label}: exit code ${status}, ${failures.length} failed test(s)`);
  for (const f of failures) {
    const where = f.file ? `${rel(f.file)}${f.line ? `:${f.line}` : ''}` : '(no file)';
    lines.push(`#   ${where}  ${f.name}`);
    for (const l of f.message.split('\n')) lines.push(`#     ${l}`);
  }
  if (status && !failures.length) lines.push('#   no test reported a failure: the runner itself failed (see above)');
  const slow = [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  if (slow.length) lines.push(`#   slowest files: ${slow.map((f) => `${rel(f.file)} ${(f.ms / 1000).toFixed(1)} s`).join(', ')}`);
  return lines;
}

/**
 * What the reporter recorded for one pass.
 * @param {string} file the reporter's output
 * @returns {{failures: Array<object>, files: Array<{file: string, ms: number}>}}
 */
function readRecords(file) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return { failures: [], files: [] }; }
  const records = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { failures: records.filter((r) => 'message' in r), files: records.filter((r) => 'ms' in r) };
}

if (require.main === module) {
  const { parallel, serial } = passes(ROOT);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-tests-'));
  const serialOnly = process.argv.includes('--serial');
  const results = [];
  if (!serialOnly) {
    const file = path.join(dir, 'module-pass.jsonl');
    results.push(['module and node tests (pass 1)', run(parallel, 2, file), file]);
  }
  const file = path.join(dir, 'serial-pass.jsonl');
  results.push(['system, browser, container and benchmark tests (pass 2)', run(serial, 1, file), file]);
  const lines = ['# ---- summary of the run ----'];
  for (const [label, status, f] of results) lines.push(...summary(label, status, readRecords(f)));
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(results.map((r) => r[1]).find((s) => s) || 0);
}

module.exports = { passes, summary, readRecords, SERIAL };
