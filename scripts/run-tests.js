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
 * Both passes run even when the first fails; the exit code is the first failing one's.
 *   node scripts/run-tests.js            (npm test)
 *   node scripts/run-tests.js --serial   only the second pass
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
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

function run(files, concurrency) {
  if (!files.length) return 0;
  const args = ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${TIMEOUT_MS}`, ...files];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  return r.status === null ? 1 : r.status;
}

if (require.main === module) {
  const { parallel, serial } = passes(ROOT);
  const first = process.argv.includes('--serial') ? 0 : run(parallel, 2);
  const second = run(serial, 1);
  process.exit(first || second);
}

module.exports = { passes, SERIAL };
