'use strict';
/**
 * Two s7twin MQTT brokers (two cloud instances of a fleet) clustered over one real redis-server
 * (a fleet): the PLC's own MQTT client on one, twins on the other; commands, states and the
 * snapshot cross, and the users stay scoped to their plants.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createMqttServer } = require('../../../../nodes/lib/mqtt/server');
const { startRedis } = require('../../../../system/redis');
const { waitFor } = require('../../../helpers/nodered');
const { connect, sub, end } = require('../../../helpers/mqtt');

const USERS = 'twinA:pw:twin@a,plcA:pw:plc@a,plcB:pw:plc@b';

test('two brokers on one Redis: PLC on one, twin on the other; commands, states and snapshots cross', async (t) => {
  const redis = await startRedis();
  const clients = [];
  const servers = [];
  t.after(async () => {
    await Promise.all(clients.map(end));
    for (const s of servers) await s.close();
    await redis.stop();
  });
  const one = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, redisUrl: redis.url });
  servers.push(one);
  const two = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, redisUrl: redis.url });
  servers.push(two);
  const url = (srv) => `mqtt://127.0.0.1:${srv.ports.tcp}`;

  const plc = await connect(url(one), { username: 'plcA', password: 'pw', clientId: 'plc-a' });
  clients.push(plc);
  await sub(plc, ['s7twin/a/cmd']);
  plc.publish('s7twin/a/state', JSON.stringify({ c1: 0, grn: 1 }));
  plc.publish('s7twin/a/state', JSON.stringify({ c1: 1 }));
  await waitFor(() => two.snapshot('a') && two.snapshot('a').c1 === 1, 10000, 'the state to reach the other broker');

  // A twin on the other instance: the merged snapshot, then live states, and its commands reach the PLC.
  const twin = await connect(url(two), { username: 'twinA', password: 'pw', clientId: 'twin-a' });
  clients.push(twin);
  await sub(twin, 's7twin/a/state');
  const snap = await waitFor(() => twin.msgs.find((m) => m.retain), 10000, 'the snapshot');
  assert.deepEqual(snap.payload, { c1: 1, grn: 1 });
  plc.publish('s7twin/a/state', JSON.stringify({ red: 1 }));
  await waitFor(() => twin.msgs.some((m) => !m.retain && m.payload.red === 1), 10000, 'a live state');
  twin.publish('s7twin/a/cmd', JSON.stringify({ st: 1 }));
  await waitFor(() => plc.msgs.some((m) => m.topic === 's7twin/a/cmd' && m.payload.st === 1), 10000, 'the command at the PLC');

  // Scoped users: plant a's twin may not subscribe to plant b, nor publish its commands.
  const [refused] = await sub(twin, 's7twin/b/state');
  assert.equal(refused.qos, 128);

  // A third instance that started after the states: its snapshot comes from Redis.
  const three = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, redisUrl: redis.url });
  servers.push(three);
  const late = await connect(url(three), { username: 'twinA', password: 'pw', clientId: 'twin-late' });
  clients.push(late);
  await sub(late, 's7twin/a/state');
  const lateSnap = await waitFor(() => late.msgs.find((m) => m.retain), 10000, 'the snapshot from Redis');
  assert.deepEqual(lateSnap.payload, { c1: 1, grn: 1, red: 1 });
  assert.deepEqual(one.cluster, { redisErrors: 0, storeErrors: 0 });
});

test('a clustered broker closes within seconds even when Redis is gone', async () => {
  const redis = await startRedis();
  const srv = await createMqttServer({ host: '127.0.0.1', port: 0, wsPort: null, users: USERS, redisUrl: redis.url });
  await redis.stop();
  await srv.close(); // the test's own timeout is the bound
});
