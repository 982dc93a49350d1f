'use strict';
/**
 * bench/journal.js as a user runs it, on a short outage: the plant runs against the PLC, the
 * edge journals the outage, forwards it after the heal, and the script reports every figure it
 * promises and keeps them where --out says.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

test('bench/journal.js reports the journal of an outage, its forward and the append cost', { timeout: 300000 }, async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-bench-journal-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const child = spawn(process.execPath, [path.join(__dirname, '..', '..', 'bench', 'journal.js'), '--minutes', '0.15', '--warm', '3', '--out', out],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 0, stderr);
  const s = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
  assert.ok(s.outage.appended > 0, 'the running plant\'s states were journalled');
  assert.equal(s.outage.records, s.outage.appended, 'nothing answered during the outage');
  assert.deepEqual([s.outage.dropped, s.outage.torn, s.outage.writeErrors], [0, 0, 0]);
  assert.ok(s.outage.diskBytes > 0 && s.outage.bytesPerFrame > 20);
  assert.ok(s.forward.complete, 'every journalled state is in the history as backfill');
  assert.equal(s.forward.historyFrames, s.outage.records);
  assert.ok(s.forward.emptyMs >= s.forward.reconnectMs);
  assert.equal(s.append.records, 200000);
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /bytes per journalled frame/);
});
