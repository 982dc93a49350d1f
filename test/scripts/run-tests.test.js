'use strict';
/** The suite's two passes (scripts/run-tests.js): every test file in exactly one of them. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { passes } = require('../../scripts/run-tests');

const ROOT = path.join(__dirname, '..', '..');

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
