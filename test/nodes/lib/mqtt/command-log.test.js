'use strict';
/**
 * lib/mqtt/command-log.js through the broker on real sockets: every publish on a command topic is
 * in the command log (a real log file, read back as an auditor reads it) with the MQTT user and
 * role, the client's address, what it asked and what the broker did with it; probes and states
 * are not; a flood of refusals is counted, not logged line by line.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createMqttServer } = require('../../../../nodes/lib/mqtt/server');
const { createAuditLog } = require('../../../../nodes/lib/history/audit-log');
const { createCommandAudit } = require('../../../../nodes/lib/history/command-audit');
const { queryCommands } = require('../../../../nodes/lib/history/audit-query');
const { remoteOf } = require('../../../../nodes/lib/mqtt/command-log');
const clock = require('../../../../nodes/lib/core/clock');
const { waitFor } = require('../../../helpers/nodered');
const { connect, sub, end } = require('../../../helpers/mqtt');

const USERS = 'twin:twin-secret-pw:twin,plc:plc-secret-pw:plc,lab3:lab3-secret-pw:twin@plant3,fast:fast-secret-pw:twin';

/** A broker with a real command log in a temporary folder. */
async function brokerWithLog(t, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-mqtt-audit-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = createAuditLog({ file });
  const audit = createCommandAudit({ log, now: clock.now, sweepMs: 0, ...opts.recorder });
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: 0, users: USERS, audit, ...opts.broker });
  const clients = [];
  t.after(async () => {
    await Promise.all(clients.map(end));
    await srv.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // flush: every sender's window ends now, with its muted note (as when the recorder stops)
  const read = async (flush = true) => { if (flush) audit.flush(); await log.flushed(); return queryCommands(file, { plant: '*' }); };
  return { srv, file, read, clients, url: `mqtt://127.0.0.1:${srv.ports.tcp}`, ws: `ws://127.0.0.1:${srv.ports.ws}/mqtt` };
}

/** Publish, and wait for the broker to close the connection (a refused publish). */
async function publishRefused(c, topic, payload) {
  const gone = new Promise((r) => c.once('close', r));
  c.publish(topic, payload);
  await gone;
}

test('commands relayed and refused, with user, role, address and values; probes and states not logged; no password', async (t) => {
  const b = await brokerWithLog(t);
  const plc = await connect(b.url, { username: 'plc', password: 'plc-secret-pw', clientId: 'plc-1' });
  b.clients.push(plc);
  await sub(plc, ['s7twin/plant1/cmd']);
  const twin = await connect(b.ws, { username: 'twin', password: 'twin-secret-pw', clientId: 'twin-a' });
  b.clients.push(twin);

  twin.publish('s7twin/plant1/cmd', JSON.stringify({ st: true, se: 0 }));
  twin.publish('s7twin/plant1/probe/req', JSON.stringify({ i: 3, v: 7 }));
  await waitFor(() => plc.msgs.length === 1, 10000, 'the command at the PLC');
  plc.publish('s7twin/plant1/state', JSON.stringify({ st: 1, c1: 1 }));
  await publishRefused(twin, 's7twin/plant1/cmd', JSON.stringify({ c1: 1 }));

  const tcpTwin = await connect(b.url, { username: 'twin', password: 'twin-secret-pw', clientId: 'twin-b' });
  b.clients.push(tcpTwin);
  await publishRefused(tcpTwin, 's7twin/plant1/cmd', '{"st": 1');
  // A PLC account may not command; a twin bound to plant3 may not command plant1.
  await publishRefused(plc, 's7twin/plant1/cmd', JSON.stringify({ st: 1 }));
  const lab = await connect(b.url, { username: 'lab3', password: 'lab3-secret-pw', clientId: 'lab-3' });
  b.clients.push(lab);
  await publishRefused(lab, 's7twin/plant1/cmd', JSON.stringify({ sp: 1 }));

  const { rows } = await b.read();
  assert.deepEqual(rows.map((r) => [r.via, r.plant, r.src, r.seq, r.user, r.role, r.outcome, r.code, r.values]), [
    ['mqtt', 'plant1', 'twin-a', 1, 'twin', 'twin', 'relayed', undefined, { st: 1, se: 0 }],
    ['mqtt', 'plant1', 'twin-a', 2, 'twin', 'twin', 'refused', 'E_NOT_WRITABLE', { c1: 1 }],
    ['mqtt', 'plant1', 'twin-b', 1, 'twin', 'twin', 'refused', 'E_MQTT_JSON', undefined],
    ['mqtt', 'plant1', 'plc-1', 1, 'plc', 'plc', 'refused', 'E_MQTT_PUBLISH', { st: 1 }],
    ['mqtt', 'plant1', 'lab-3', 1, 'lab3', 'twin', 'refused', 'E_MQTT_PUBLISH', { sp: 1 }],
  ]);
  for (const r of rows) {
    assert.match(r.from, /^(::ffff:)?127\.0\.0\.1:\d+$/, 'the client\'s address, over WebSocket and TCP alike');
    assert.equal(r.target, 's7twin/plant1/cmd');
    assert.ok(r.answered >= r.arrived);
  }
  assert.ok(!rows.some((r) => 'plcAt' in r && r.plcAt !== undefined), 'no claim that the PLC took it');
  const text = fs.readFileSync(b.file, 'utf8');
  assert.doesNotMatch(text, /secret-pw/, 'no password in the log');
  assert.doesNotMatch(text, /probe|"c1":1,"st"/, 'probes and states are not commands');
});

test('a rate-limited command is logged refused E_RATE_LIMIT; a flood of refusals is counted past the budget, with one muted note', async (t) => {
  const b = await brokerWithLog(t, { broker: { ratePerS: 1, burst: 1 }, recorder: { refusals: { perWindow: 2 } } });
  const fast = await connect(b.url, { username: 'fast', password: 'fast-secret-pw', clientId: 'fast-1' });
  b.clients.push(fast);
  const gone = new Promise((r) => fast.once('close', r));
  for (let i = 0; i < 3; i += 1) fast.publish('s7twin/plant1/cmd', JSON.stringify({ st: i % 2 }));
  await gone;
  const limited = await b.read(false);
  assert.deepEqual(limited.rows.map((r) => [r.outcome, r.code])[1], ['refused', 'E_RATE_LIMIT']);
  const before = limited.rows.filter((r) => r.outcome === 'refused').length; // 1, or 2 if the third publish came before the close

  // Five more refused publishes from the same user and address, each on a new connection: the
  // sender's budget (two a minute) is spent, the rest counted.
  for (let i = 0; i < 5; i += 1) {
    const c = await connect(b.url, { username: 'fast', password: 'fast-secret-pw' });
    await publishRefused(c, 's7twin/plant1/cmd', JSON.stringify({ red: 1 }));
    await end(c);
  }
  const { rows, notes } = await b.read();
  const refused = rows.filter((r) => r.outcome === 'refused');
  assert.equal(refused.length, 2, 'two refusals of the sender logged line by line');
  const muted = notes.filter((n) => n.kind === 'muted');
  assert.equal(muted.length, 1);
  assert.deepEqual([muted[0].via, muted[0].user, muted[0].plant, muted[0].refused], ['mqtt', 'fast', 'plant1', 5 - (2 - before)]);
  assert.equal(muted[0].codes.E_NOT_WRITABLE, 5 - (2 - before));
  assert.match(muted[0].host, /127\.0\.0\.1$/);
});

test('remoteOf: the address and port of a client, undefined without one', () => {
  assert.equal(remoteOf({ req: { socket: { remoteAddress: '10.0.0.1', remotePort: 5 } } }), '10.0.0.1:5');
  assert.equal(remoteOf({}), undefined);
});
