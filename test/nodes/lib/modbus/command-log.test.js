'use strict';
/**
 * lib/modbus/command-log.js through the cloud Modbus server on real sockets: every write of the
 * commands' registers is in the command log (a real log file, read back as an auditor reads it)
 * with the client's address, its transaction id, the inputs it sets and what the server did;
 * reads, state and probe registers are not; registers set from the flow name their node; a
 * write the connection's rate limit stopped is refused E_RATE_LIMIT.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ModbusRTU = require('modbus-serial');
const { createModbusServer } = require('../../../../nodes/lib/modbus/server');
const { targetOf } = require('../../../../nodes/lib/modbus/command-log');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { queryCommands } = require('../../../../nodes/lib/history/audit-query');
const clock = require('../../../../nodes/lib/core/clock');
const table = require('../../../../nodes/lib/core/io-table').demoTable();

const INPUTS = table.tags.filter((x) => x.modbus && x.modbus.reg === 0).map((x) => x.short); // HR0's ten inputs

async function serverWithLog(t, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-modbus-audit-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log, now: clock.now, sweepMs: 0 });
  // Loopback is not the edge here: the test's client is a twin.
  const srv = createModbusServer({ port: 0, edgeHosts: ['192.0.2.1'], plant: 'line7', audit, ...opts });
  const port = await srv.start();
  const c = new ModbusRTU();
  await c.connectTCP('127.0.0.1', { port });
  c.setID(1);
  c.setTimeout(5000);
  t.after(async () => { c.close(() => {}); await srv.close(); await log.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const read = async () => { await log.flushed(); return queryCommands(file, { plant: '*' }); };
  return { srv, c, read };
}

test('writes of the command registers relayed, unchanged and refused, with the client\'s address and the inputs they set', async (t) => {
  const { srv, c, read } = await serverWithLog(t);
  await c.writeRegister(0, 0b101); // st and se
  await c.writeRegister(0, 0b101); // the same again
  await assert.rejects(c.writeRegisters(0, [1, 1]), (e) => e.modbusCode === 2, 'HR1 is the edge\'s');
  await assert.rejects(c.writeRegisters(1, [1, 1]), (e) => e.modbusCode === 2);
  await c.readHoldingRegisters(0, 5);
  await c.writeRegisters(1000, [0, 7]); // a probe request
  srv.write(0, [0], { id: 'n-7', name: 'stop all' });
  srv.write(2, [5]); // a state register written locally: not a command

  const { rows } = await read();
  assert.deepEqual(rows.map((r) => [r.via, r.plant, r.target, r.outcome, r.code, r.role, r.user]), [
    ['modbus', 'line7', 'HR0', 'relayed', undefined, undefined, undefined],
    ['modbus', 'line7', 'HR0', 'unchanged', undefined, undefined, undefined],
    ['modbus', 'line7', 'HR0..1', 'refused', 'E_MODBUS_NOT_EDGE', undefined, undefined],
    ['modbus', 'line7', 'HR0', 'relayed', undefined, 'flow', 'stop all'],
  ]);
  const [first, second, refused, flow] = rows;
  assert.deepEqual(Object.keys(first.values).sort(), [...INPUTS].sort(), 'one write of HR0 sets all ten inputs');
  assert.deepEqual([first.values.st, first.values.sp, first.values.se], [1, 0, 1]);
  assert.match(first.from, /^(::ffff:)?127\.0\.0\.1:\d+$/);
  assert.equal(first.src, first.from, 'Modbus names no sender: its address');
  assert.ok(Number.isInteger(first.seq) && second.seq > first.seq, 'the requests\' transaction ids');
  assert.equal(refused.values.c1, 1, 'what it asked of the edge\'s register too');
  assert.deepEqual([flow.node, flow.values.st], ['n-7', 0]);
});

test('a write stopped by the connection\'s rate limit is refused E_RATE_LIMIT; a server without a log logs nothing', async (t) => {
  const { c, read } = await serverWithLog(t, { ratePerS: 1, burst: 2 });
  const results = [];
  for (let i = 0; i < 4; i += 1) {
    try { await c.writeRegister(0, i % 2); results.push('ok'); } catch (e) { results.push(e.modbusCode || e.message); break; }
  }
  assert.ok(results.includes(6), results.join(','));
  const { rows } = await read();
  assert.deepEqual(rows.map((r) => r.outcome).slice(-1), ['refused']);
  assert.equal(rows[rows.length - 1].code, 'E_RATE_LIMIT');

  const plain = createModbusServer({ port: 0 });
  await plain.start();
  t.after(() => plain.close());
  plain.write(0, [1], { id: 'x' }); // no audit: nothing to log, nothing thrown
  assert.deepEqual(plain.read(0, 1), [1]);
});

test('targetOf: one register or a range', () => {
  assert.equal(targetOf(0, 1), 'HR0');
  assert.equal(targetOf(0, 5), 'HR0..4');
});
