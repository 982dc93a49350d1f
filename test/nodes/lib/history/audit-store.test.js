'use strict';
/**
 * lib/history/audit-store.js against a real redis-server on an ephemeral port: a command log
 * whose shared copy disagrees with its file is a warning of the open /s7twin/health that names no
 * file; the file's path is in the Node-RED log's warning only.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createAuditShare } = require('../../../../nodes/lib/history/audit-share');
const { auditStore } = require('../../../../nodes/lib/history/audit-store');
const registry = require('../../../../nodes/lib/runtime/registry');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../../system/wait');

test('a log and its copy that disagree: the health warning names no file; the Node-RED log\'s warning does', async (t) => {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-auditstore-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'secret-place', 'audit.jsonl');
  fs.mkdirSync(path.dirname(file));
  // Three entries written and copied, then entry 3 edited in the file.
  const log = createAuditLog({ file });
  const share = createAuditShare({ file, url: redis.url, intervalMs: 100 });
  for (let i = 1; i <= 3; i += 1) log.append({ kind: 'cmd', plant: 'p1', src: 'tw', seq: i });
  await log.flushed();
  await waitFor(() => share.copied === 3, 10000, 'copied');
  await log.close();
  await share.close();
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"seq":3', '"seq":3,"x":1'));

  const warned = [];
  const before = registry.warnings().length;
  const s = auditStore(file, { warn: (text) => warned.push(text), redisUrl: redis.url });
  t.after(async () => {
    registry.removeCheck(`s7twin-audit:${file}`);
    registry.remove({ id: `s7twin-audit:${file}` });
    await s.log.close();
    await s.share.close();
  });
  await waitFor(() => s.share.broken !== null, 10000, 'the disagreement found');
  const health = registry.warnings().slice(before);
  assert.equal(health.length, 1);
  assert.match(health[0], /the command log and its copy for the fleet disagree/);
  assert.ok(!health[0].includes('secret-place') && !health[0].includes(dir), `no path in ${health[0]}`);
  assert.equal(warned.length, 1);
  assert.match(warned[0], /^E_AUDIT_TAMPERED: .*secret-place/, 'the Node-RED log says which file');
});
