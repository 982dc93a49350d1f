'use strict';
/**
 * lib/history/audit-query.js: a plant's commands in a window, joined with their outcomes, as rows
 * and as CSV.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { queryCommands, toCsv, csvField, settleByKey, COLUMNS, timelineOf, TIMELINE_FIELDS } = require('../../../../nodes/lib/history/audit-query');

async function sample(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-auditq-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  let clock = 1000;
  const audit = createCommandAudit({ log, now: () => clock });
  const who = { token: 'aaaabbbbcccc', role: 'twin' };
  const cmd = (plant, seq, at) => audit.arrived({
    via: 'ws', plant, who, from: '127.0.0.1:1', at, env: { k: 'cmd', src: 'tw', seq, d: { se: 1 }, dl: at + 1000 },
  });
  cmd('p1', 1, 1000);
  cmd('p2', 1, 1001);
  cmd('p1', 2, 2000);
  clock = 2100;
  audit.answered('p1', { k: 'ack', ts: 2050, ref: { src: 'tw', seq: 2 } });
  audit.answered('p1', { k: 'err', ref: { src: 'tw', seq: 1 }, e: { code: 'E_EXPIRED', msg: 'late, "really"' } });
  cmd('p1', 3, 3000); // never answered: the cloud stopped
  log.append({ kind: 'gap', lost: 4, t: 3500 });
  await log.flushed();
  await log.close();
  return file;
}

test('a plant\'s commands in a window, each with its outcome; other plants left out; notes for gaps', async (t) => {
  const file = await sample(t);
  const all = await queryCommands(file, { plant: 'p1' });
  assert.deepEqual(all.rows.map((r) => [r.seq, r.outcome, r.code]), [[1, 'expired', 'E_EXPIRED'], [2, 'written', undefined], [3, null, undefined]]);
  const two = all.rows[1];
  assert.deepEqual([two.token, two.role, two.from, two.deadline, two.answered, two.plcAt, two.values],
    ['aaaabbbbcccc', 'twin', '127.0.0.1:1', 3000, 2100, 2050, { se: 1 }]);
  assert.deepEqual(all.notes.map((n) => [n.kind, n.lost]), [['gap', 4]]);
  const win = await queryCommands(file, { plant: 'p1', from: 1500, to: 2500 });
  assert.deepEqual(win.rows.map((r) => r.seq), [2]);
  assert.deepEqual((await queryCommands(file, { plant: '*' })).rows.length, 4);
  assert.deepEqual((await queryCommands(file, { plant: ['p2'] })).rows.map((r) => r.plant), ['p2']);
  assert.deepEqual(await queryCommands(`${file}.missing`, { plant: 'p1' }), { rows: [], notes: [], truncated: false, entries: 0, first: null });
  const capped = await queryCommands(file, { plant: 'p1', limit: 2 });
  assert.deepEqual([capped.rows.length, capped.truncated], [2, true]);
});

test('CSV: a header, one line per command, times in ISO 8601, fields quoted when they must be, no formulas', async (t) => {
  const file = await sample(t);
  const csv = toCsv((await queryCommands(file, { plant: 'p1' })).rows);
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines[0], COLUMNS.join(','));
  assert.equal(lines.length, 4);
  assert.match(lines[1], /^1,1970-01-01T00:00:01\.000Z,p1,ws,aaaabbbbcccc,twin,,127\.0\.0\.1:1,tw,1,,,1970-01-01T00:00:02\.000Z,,"\{""se"":1\}",expired,,E_EXPIRED,"late, ""really""",/);
  assert.equal(csvField('=cmd|calc'), "'=cmd|calc");
  assert.equal(csvField('-5'), '-5');
  assert.equal(csvField(null), '');
});

test('timelineOf: what a timeline shows of a command, without the client\'s address, key, correlation id, deadline or message', async (t) => {
  const file = await sample(t);
  const [expired, written] = (await queryCommands(file, { plant: 'p1' })).rows.map(timelineOf);
  assert.deepEqual(written, {
    n: 3, arrived: 2000, plant: 'p1', via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'tw', seq: 2, values: { se: 1 },
    outcome: 'written', answered: 2100, plcAt: 2050,
  });
  assert.deepEqual([expired.outcome, expired.code, 'msg' in expired, 'from' in expired, 'deadline' in expired], ['expired', 'E_EXPIRED', false, false, false]);
  assert.ok(TIMELINE_FIELDS.every((f) => COLUMNS.includes(f)), 'a subset of the log\'s columns');
});

test('settleByKey: a command left in doubt is settled by a later command of its key that the edge answered', () => {
  const rows = settleByKey([
    { n: 1, plant: 'p1', key: 'K', outcome: null, arrived: 1 }, // the instance stopped before answering
    { n: 3, plant: 'p1', key: 'K', outcome: 'unknown', arrived: 2 }, // tried again: the link dropped
    { n: 5, plant: 'p1', key: 'K', outcome: 'refused', code: 'E_EDGE_DOWN', arrived: 3 }, // says nothing of the first
    { n: 7, plant: 'p1', key: 'K', outcome: 'repeat', first: 'written', answered: 40, arrived: 4 },
    { n: 9, plant: 'p2', key: 'K', outcome: null, arrived: 5 }, // another plant's key
    { n: 11, plant: 'p1', outcome: null, arrived: 6 }, // no key: nothing can settle it
  ]);
  assert.deepEqual(rows.map((r) => r.settled), [
    { outcome: 'repeat', first: 'written', n: 7, at: 40 }, { outcome: 'repeat', first: 'written', n: 7, at: 40 }, undefined, undefined, undefined, undefined,
  ]);
});

test('commands of the MQTT, OPC UA and Modbus paths and of a flow join like the others; a muted note only for readers of its plant', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-auditq-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log, now: () => 5000, refusals: { perWindow: 1 }, sweepMs: 0 });
  const mq = { via: 'mqtt', plant: 'p1', who: { user: 'twin', role: 'twin' }, from: '127.0.0.1:9', src: 'c', target: 's7twin/p1/cmd' };
  audit.taken({ ...mq, at: 1000, seq: 1, d: { st: 1 }, outcome: 'relayed' });
  audit.taken({ ...mq, at: 1100, seq: 2, d: { c1: 1 }, outcome: 'refused', code: 'E_NOT_WRITABLE', msg: 'c1 is an output' });
  audit.taken({ ...mq, at: 1200, seq: 3, d: { c1: 1 }, outcome: 'refused', code: 'E_NOT_WRITABLE', msg: 'c1 is an output' });
  audit.taken({ via: 'modbus', plant: 'p1', from: '127.0.0.1:7', src: '127.0.0.1:7', seq: 4, at: 1300, target: 'HR0', d: { st: 0 }, outcome: 'unchanged' });
  audit.flowSent({ plant: 'p1', by: { id: 'n1', name: 'line start' }, at: 1400, env: { k: 'cmd', src: 'f', seq: 1, d: { st: 1 }, dl: 3400 } });
  audit.answered('p1', { k: 'ack', ts: 1450, ref: { src: 'f', seq: 1 } }, { flow: true });
  audit.flush();
  await log.flushed();
  await log.close();
  const p1 = await queryCommands(file, { plant: 'p1' });
  assert.deepEqual(p1.rows.map((r) => [r.via, r.seq, r.outcome, r.code, r.user, r.role]), [
    ['mqtt', 1, 'relayed', undefined, 'twin', 'twin'],
    ['mqtt', 2, 'refused', 'E_NOT_WRITABLE', 'twin', 'twin'],
    ['modbus', 4, 'unchanged', undefined, undefined, undefined],
    ['flow', 1, 'written', undefined, 'line start', 'flow'],
  ]);
  assert.deepEqual([p1.rows[0].target, p1.rows[3].node, p1.rows[3].plcAt], ['s7twin/p1/cmd', 'n1', 1450]);
  assert.deepEqual(p1.notes.map((n) => [n.kind, n.refused, n.codes]), [['muted', 1, { E_NOT_WRITABLE: 1 }]]);
  assert.deepEqual((await queryCommands(file, { plant: 'p2' })).notes, [], 'another plant\'s reader does not see who was muted');
  const csv = toCsv(p1.rows).split('\r\n');
  assert.match(csv[4], /,,n1,$/, "a flow command: its node, no target");
  assert.match(csv[1], /,s7twin\/p1\/cmd,,$/);
});

test('timelineOf: a Modbus client\'s address and an OPC UA user name are no src on a timeline; a twin\'s, an MQTT client\'s and a flow\'s are', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-auditq-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log, now: () => 5000 });
  const taken = (c) => audit.taken({ plant: 'p1', seq: 1, d: { st: 1 }, outcome: 'relayed', ...c });
  taken({ via: 'modbus', from: '10.1.2.3:5020', src: '10.1.2.3:5020', at: 1000, target: 'HR0' });
  taken({ via: 'modbus', who: { user: 'line', role: 'flow' }, src: 'local', node: 'n1', at: 1100, target: 'HR0' });
  // An OPC UA session without a name: the log's src falls back to the user name.
  taken({ via: 'opcua', who: { user: 'alice', role: 'twin' }, from: '10.1.2.4:4840', src: 'alice', at: 1200, target: 'ns=1;s=st' });
  taken({ via: 'mqtt', who: { user: 'twin', role: 'twin' }, from: '10.1.2.5:1883', src: 'twin-7', at: 1300, target: 's7twin/p1/cmd' });
  const env = { k: 'cmd', src: 'tw', seq: 1, d: { st: 1 }, dl: 9000 };
  audit.arrived({ via: 'ws', plant: 'p1', who: { token: 'f00', role: 'twin' }, from: '10.1.2.6:1', at: 1400, env });
  await log.flushed();
  await log.close();
  const rows = (await queryCommands(file, { plant: 'p1' })).rows;
  assert.deepEqual(rows.map((r) => r.src), ['10.1.2.3:5020', 'local', 'alice', 'twin-7', 'tw'], 'the log keeps what it was told');
  const timeline = rows.map(timelineOf);
  assert.deepEqual(timeline.map((r) => r.src), ['modbus client', 'local', 'opcua client', 'twin-7', 'tw']);
  const text = JSON.stringify(timeline);
  for (const secret of ['10.1.2.', 'alice']) assert.ok(!text.includes(secret), secret);
});

test('CSV: a command after its chain\'s first bad entry says so in the unverified column', () => {
  assert.equal(COLUMNS[COLUMNS.length - 1], 'unverified');
  const lines = toCsv([{ n: 1, plant: 'p1', outcome: 'written' }, { n: 2, plant: 'p1', outcome: 'written', unverified: true }]).trimEnd().split('\r\n');
  assert.match(lines[0], /,unverified$/);
  assert.match(lines[1], /,$/);
  assert.match(lines[2], /,true$/);
});
