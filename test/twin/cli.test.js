'use strict';
/**
 * The headless twin's command line (twin/cli.js) apart from its engine (twin/run.js): the CLI
 * parses and reports, the engine runs; bad arguments are a clear error and exit code 2.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const cli = require('../../twin/cli');
const run = require('../../twin/run');

test('the CLI parses; the engine runs (the benchmark and tests import twin/run.js)', () => {
  assert.deepEqual(Object.keys(cli).sort(), ['USAGE', 'main', 'parseCli']);
  for (const k of ['runTwin', 'loadTransport', 'formatTable', 'DEFAULTS', 'TwinError']) assert.ok(run[k], k);
  const o = cli.parseCli(['--protocol', 'mqtt', '--boxes', '3', '--client-id', 'x', '--quiet']);
  assert.equal(o.boxes, 3);
  assert.equal(o.clientId, 'x');
  assert.equal(o.quiet, true);
  assert.ok(/^mqtt:\/\//.test(o.url), 'the local system\'s defaults fill what was not given');
  assert.throws(() => cli.parseCli(['--boxes', 'many']), (e) => e instanceof run.TwinError && e.code === 'E_ARGS');
  assert.throws(() => cli.parseCli(['stray']), { code: 'E_ARGS' });
  assert.throws(() => run.loadTransport('../x'), { code: 'E_PROTOCOL' });
});

test('npm run twin with a bad argument exits 2 with the usage', () => {
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'twin', 'cli.js'), '--damaged', '7'], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--damaged must be a fraction/);
  assert.match(r.stderr, /usage: npm run twin/);
});
