'use strict';
/**
 * Per-client limits on the MQTT broker (a twin must not be able to flood it), with real mqtt.js clients: a twin flooding the
 * broker with commands is disconnected and counted while a well-behaved twin's probe round trips
 * through the PLC role keep coming back; a twin whose subscriptions keep being refused spends its
 * error budget; the PLC role is never limited.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const mqtt = require('mqtt');
const { createMqttServer } = require('../../../../nodes/lib/mqtt/server');
const { waitFor } = require('../../../helpers/nodered');

const USERS = 'twin:twin-pw:twin,plc:plc-pw:plc';
const T = { cmd: 's7twin/plant1/cmd', req: 's7twin/plant1/probe/req', res: 's7twin/plant1/probe/res/1', state: 's7twin/plant1/state' };

function connect(url, opts) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 10000, ...opts });
    c.once('connect', () => resolve(c));
    c.once('error', (e) => { c.end(true); reject(e); });
  });
}
const end = (c) => new Promise((r) => c.end(true, {}, () => r()));

test('MQTT: a flooding twin is disconnected and counted; a well-behaved twin keeps its round trips', async (t) => {
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, ratePerS: 100, burst: 200 });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const events = [];
  srv.events.on('event', (ev) => events.push(ev));
  const plc = await connect(url, { username: 'plc', password: 'plc-pw' });
  const good = await connect(url, { username: 'twin', password: 'twin-pw' });
  const flood = await connect(url, { username: 'twin', password: 'twin-pw' });
  t.after(async () => { await Promise.all([plc, good, flood].map(end)); await srv.close(); });
  // The PLC role answers every probe, as the virtual PLC does: it is exempt from the limits.
  await plc.subscribeAsync(T.req);
  plc.on('message', (topic, payload) => plc.publish(T.res, payload));
  await good.subscribeAsync(T.res);
  const answers = new Map();
  good.on('message', (topic, payload) => { const p = JSON.parse(payload); const r = answers.get(p.v); if (r) r(); });
  const roundTrip = (v) => new Promise((resolve) => { answers.set(v, resolve); good.publish(T.req, JSON.stringify({ i: 1, v })); });

  const floodClosed = new Promise((r) => flood.once('close', r));
  for (let i = 0; i < 3000; i += 1) flood.publish(T.cmd, JSON.stringify({ se: i % 2 }));
  let answered = 0;
  for (let v = 1; v <= 50; v += 1) { await roundTrip(v); answered += 1; }
  await floodClosed;
  assert.equal(answered, 50, 'every probe of the well-behaved twin came back');
  assert.equal(srv.counters.rateLimited, 1);
  assert.ok(events.some((e) => e.code === 'E_RATE_LIMIT'), 'the reason is reported (MQTT 3.1.1 cannot tell the client)');
  assert.ok(good.connected && plc.connected);
  assert.ok(srv.counters.messagesIn < 3000 + 100, 'the flood was cut short');
});

test('MQTT: refused subscriptions spend the error budget; the PLC role is never rate limited', async (t) => {
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, ratePerS: 50, burst: 50, errors: 3, errorWindowMs: 60000 });
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const plc = await connect(url, { username: 'plc', password: 'plc-pw' });
  const twin = await connect(url, { username: 'twin', password: 'twin-pw' });
  t.after(async () => { await Promise.all([plc, twin].map(end)); await srv.close(); });
  for (let i = 0; i < 1000; i += 1) plc.publish(T.state, JSON.stringify({ ng: i }));
  await waitFor(() => srv.counters.messagesIn >= 1000, 20000, 'all 1,000 PLC states accepted');
  assert.equal(srv.counters.rateLimited, 0);

  const closed = new Promise((r) => twin.once('close', r));
  for (let i = 0; i < 5; i += 1) twin.subscribe(T.cmd); // the twin may not read commands
  await closed;
  assert.equal(srv.counters.errorBudget, 1);
  assert.equal(srv.counters.subscribeRefused, 4, 'three refusals within the budget, the fourth closes');
  assert.ok(plc.connected);
});
