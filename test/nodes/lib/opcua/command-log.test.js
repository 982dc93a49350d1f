'use strict';
/**
 * lib/opcua/command-log.js through the cloud OPC UA server and real node-opcua sessions: every
 * write of a command variable is in the command log (a real log file, read back as an auditor
 * reads it) with the user, its role, the client's address, the value and what the server did;
 * writes of states and probes are not; a value set from the flow names its node; a write the
 * channel's rate limit stopped is refused E_RATE_LIMIT.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { OPCUAClient, OPCUACertificateManager, UserTokenType, AttributeIds, DataType } = require('node-opcua');
const { createOpcuaServer } = require('../../../../nodes/lib/opcua/server');
const { askedValue } = require('../../../../nodes/lib/opcua/command-log');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { queryCommands } = require('../../../../nodes/lib/history/audit-query');
const clock = require('../../../../nodes/lib/core/clock');
const { freePort } = require('../../../helpers/nodered');
const { pkiDir } = require('../../../helpers/opcua');

const TWIN = { user: 'twin', password: 'twin-secret' };
const EDGE = { user: 'edge', password: 'edge-secret' };

async function serverWithLog(t, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-opcua-audit-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log, now: clock.now, sweepMs: 0 });
  const srv = createOpcuaServer({
    host: '127.0.0.1', port: await freePort(), pkiDir: pkiDir('audit-server'), users: { twin: TWIN, edge: EDGE }, probeSlots: 4, audit, ...opts,
  });
  await srv.start();
  t.after(async () => { await srv.stop(); await log.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const read = async () => { await log.flushed(); return queryCommands(file, { plant: '*' }); };
  return { srv, file, read };
}

async function session(t, url, creds) {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    clientName: `audit-${creds.user}`,
    connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
    clientCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir('audit-client'), automaticallyAcceptUnknownCertificate: true }),
  });
  await client.connect(url);
  const s = await client.createSession({ type: UserTokenType.UserName, userName: creds.user, password: creds.password });
  t.after(async () => { await s.close().catch(() => {}); await client.disconnect().catch(() => {}); });
  return s;
}

const write = (s, nodeId, dataType, value) => s.write({ nodeId, attributeId: AttributeIds.Value, value: { value: { dataType, value } } });

test('command writes relayed, unchanged and refused, with user, role, address and value; states and probes not logged; no password', async (t) => {
  const { srv, file, read } = await serverWithLog(t);
  const twin = await session(t, srv.endpointUrl, TWIN);
  const edge = await session(t, srv.endpointUrl, EDGE);

  assert.equal((await write(twin, srv.nodeIdOf('st'), DataType.Boolean, true)).name, 'Good');
  assert.equal((await write(twin, srv.nodeIdOf('st'), DataType.Boolean, true)).name, 'Good', 'the same value again');
  assert.equal((await write(edge, srv.nodeIdOf('sp'), DataType.Boolean, true)).name, 'BadUserAccessDenied', 'the edge may not command');
  assert.notEqual((await write(twin, srv.nodeIdOf('se'), DataType.Int32, 1)).name, 'Good', 'a wrong type');
  assert.equal((await write(edge, srv.nodeIdOf('c1'), DataType.Boolean, true)).name, 'Good', 'a state: not a command');
  assert.equal((await write(twin, srv.nodeIdOf('c1'), DataType.Boolean, true)).name, 'BadUserAccessDenied', 'a twin faking a state: not a command');
  await write(twin, srv.probeNodeIdOf('req', 1), DataType.UInt32, 5);
  srv.set('dmg', 1, { id: 'n-42', name: 'damage inject' });

  const { rows } = await read();
  assert.deepEqual(rows.map((r) => [r.via, r.user, r.role, r.values, r.outcome, r.code]), [
    ['opcua', 'twin', 'twin', { st: 1 }, 'relayed', undefined],
    ['opcua', 'twin', 'twin', { st: 1 }, 'unchanged', undefined],
    ['opcua', 'edge', 'edge', { sp: 1 }, 'refused', 'E_OPCUA_DENIED'],
    ['opcua', 'twin', 'twin', { se: 1 }, 'refused', 'E_OPCUA_WRITE'],
    ['opcua', 'damage inject', 'flow', { dmg: 1 }, 'relayed', undefined],
  ]);
  const [first, second] = rows;
  assert.match(first.from, /^(::ffff:)?127\.0\.0\.1:\d+$/);
  assert.equal(first.target, 'ns=1;s=plant1.StartButton');
  assert.equal(first.plant, 'plant1');
  assert.ok(typeof first.src === 'string' && first.src.length > 0, 'the session\'s name');
  assert.deepEqual([first.src, first.seq, second.seq], [second.src, 1, 2], 'numbered in their session');
  assert.match(rows[3].msg, /Bad/, 'the status the server answered');
  assert.equal(rows[4].node, 'n-42');
  assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /secret/, 'no password in the log');
});

test('a write stopped by the channel\'s rate limit is refused E_RATE_LIMIT in the log', async (t) => {
  const { srv, read } = await serverWithLog(t, { ratePerS: 5, burst: 5 });
  const twin = await session(t, srv.endpointUrl, TWIN);
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => write(twin, srv.nodeIdOf('st'), DataType.Boolean, i % 2 === 0).then(
    (sc) => sc.name,
    (err) => String(err.message),
  )));
  assert.ok(results.some((r) => r !== 'Good'), 'some writes were stopped');
  const { rows } = await read();
  const limited = rows.filter((r) => r.code === 'E_RATE_LIMIT');
  assert.ok(limited.length >= 1, JSON.stringify(rows.map((r) => r.code)));
  assert.deepEqual([limited[0].outcome, limited[0].user, limited[0].role, Object.keys(limited[0].values)], ['refused', 'twin', 'twin', ['st']]);
  assert.ok(rows.length <= 40 && rows.every((r) => r.via === 'opcua'));
});

test('askedValue: a value by its tag\'s type; objects and nothing are not values', () => {
  const tag = { type: 'BOOL' };
  assert.equal(askedValue(tag, true), 1);
  assert.equal(askedValue({ type: 'INT' }, 7), 7);
  assert.equal(askedValue(tag, { x: 1 }), undefined);
  assert.equal(askedValue(tag, null), undefined);
});
