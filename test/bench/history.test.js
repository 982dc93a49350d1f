'use strict';
/**
 * bench/history.js as a user runs it, on a tiny workload: it prints every figure it promises and
 * keeps them where --out says.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

test('bench/history.js reports write, batch, disk, query and command-log figures', (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-hist-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'bench', 'history.js'), '--hours', '0.005', '--rate', '50', '--out', out],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
  assert.equal(s.write.frames, 900);
  assert.equal(s.write.rows, 2700);
  assert.ok(s.write.rowsPerS > 0 && s.batch.p99Ms >= s.batch.medianMs && s.disk.bytes > 0);
  assert.equal(s.query.whole.rows, 2700, 'every row written comes back');
  assert.equal(s.query.oneTag.rows, 900);
  assert.equal(s.audit.entries, 2 * s.audit.commands);
  assert.doesNotMatch(r.stderr, /ExperimentalWarning/);
});

test('bench/history.js --store redis reports the shared store\'s figures and the command log\'s copy (a real redis-server)', (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-hist-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const args = ['--hours', '0.005', '--rate', '50', '--store', 'redis', '--commands', '300', '--out', out];
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'bench', 'history.js'), ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
  assert.equal(s.write, undefined, 'no SQLite figures asked for');
  const x = s.redis;
  assert.deepEqual([x.write.frames, x.write.rows], [900, 2700]);
  assert.ok(x.write.rowsPerS > 0 && x.batch.doneP99Ms >= x.batch.doneMedianMs && x.memory.bytes > 0);
  assert.equal(x.query.whole.rows, 2700, 'every row written comes back');
  assert.equal(x.query.oneTag.rows, 900);
  assert.deepEqual([x.audit.commands, x.audit.entries], [300, 600]);
  assert.ok(x.audit.copiedMs >= x.audit.onDiskMs && x.audit.fleetReadMs > 0);
});
