'use strict';
/**
 * The link over AMQP 0-9-1 (lib/link/transports/amqp.js) on a real RabbitMQ (system/brokers/,
 * loopback, a user of ours): the link's promises (test/helpers/link-transport.js), a command that
 * waits in a queue past its deadline never delivered, and an edge whose queue went with its
 * connection noticed at once.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const amqp = require('amqplib');
const { startRabbitMq } = require('../../../../../system/brokers/rabbitmq');
const { cloudCarrier } = require('../../../../../nodes/lib/link/transports/amqp');
const clock = require('../../../../../nodes/lib/core/clock');
const bus = require('../../../../../nodes/lib/link/transports/bus-frame');
const lt = require('../../../../helpers/link-transport');
const { waitFor } = require('../../../../../system/wait');

// One broker for every check of this file: a RabbitMQ start costs seconds.
let rabbit = null;
test.before(async () => { rabbit = await startRabbitMq({ port: 0 }); });
test.after(() => rabbit && rabbit.stop());

test('AMQP (RabbitMQ): the link\'s promises; a command that waits in a queue past its deadline is never delivered', { timeout: 300000 }, async (t) => {
  t.diagnostic(`RabbitMQ up in ${Math.round(rabbit.startMs)} ms`);
  const login = rabbit.credentials;
  let cloud = await lt.startLinkCloud({ transport: 'amqp', url: rabbit.url, login });
  t.after(() => cloud.stop());
  const edge = lt.startLinkEdge('amqp', rabbit.url, login);
  t.after(() => edge.close());
  await lt.checkRoundTrip(cloud, edge);
  await lt.checkWrongToken(cloud, 'amqp', login);
  await lt.checkSecondEdge(cloud, 'amqp', login);
  cloud = await lt.checkCloudRestart(cloud, edge, () => lt.startLinkCloud({ transport: 'amqp', url: rabbit.url, login }));

  // A frame with a deadline is given a per-message expiration: one that waits in a queue past its
  // deadline is discarded there, never delivered late.
  const conn = await amqp.connect({ hostname: rabbit.host, port: rabbit.port, heartbeat: 0, ...login });
  t.after(() => conn.close().catch(() => {}));
  const ch = await conn.createChannel();
  const { queue } = await ch.assertQueue('', { exclusive: true });
  const carrier = cloudCarrier({ url: rabbit.url, ...login });
  t.after(() => carrier.close());
  await carrier.start(() => {});
  carrier.send(queue, Buffer.from('late'), clock.now() + 100);
  carrier.send(queue, Buffer.from('in time'), clock.now() + 60000);
  await new Promise((r) => setTimeout(r, 600));
  const got = [];
  await ch.consume(queue, (m) => got.push(m.content.toString()), { noAck: true });
  await waitFor(() => got.length >= 1, 20000, 'the message still in time');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(got, ['in time']);
});

test('AMQP: an edge killed without a word is noticed at the cloud\'s next frame (its queue is gone), not after its silence', { timeout: 300000 }, async (t) => {
  const login = rabbit.credentials;
  const cloud = await lt.startLinkCloud({ transport: 'amqp', url: rabbit.url, login, endpoint: { linkTimeoutMs: 60000 } });
  t.after(() => cloud.stop());
  // A session opened by hand: its own connection, exclusive queue and hello, as the edge's carrier does.
  // No AMQP heartbeat: its timers would outlive the socket cut below.
  const conn = await amqp.connect({ hostname: rabbit.host, port: rabbit.port, heartbeat: 0, ...login });
  conn.on('error', () => {});
  const ch = await conn.createChannel();
  const { queue } = await ch.assertQueue('', { exclusive: true });
  const sid = bus.newSessionId();
  const welcome = new Promise((resolve) => {
    ch.consume(queue, (m) => { const x = bus.decode(m.content); if (x.type === 'welcome') resolve(bus.controlBody(x.body)); }, { noAck: true });
  });
  ch.sendToQueue('s7twin.link.hello', bus.encode('hello', sid, { v: 1, token: lt.TOKEN, plant: 'plant1', codecs: ['json'] }), { replyTo: queue });
  const w = await welcome;
  ch.sendToQueue(w.to, bus.encode('frame', sid, JSON.stringify({ v: 1, k: 'sync', src: 'edge-raw', seq: 1, ts: clock.now() })), { replyTo: queue });
  await waitFor(() => cloud.ep.edgeReady('plant1'), 20000, 'the session admitted and synced');
  const gone = new Promise((r) => cloud.ep.once('disconnect', (id, code) => r(code)));
  conn.connection.stream.destroy(); // killed: no bye, and the broker deletes its queue
  await new Promise((r) => setTimeout(r, 500));
  const cmd = lt.command();
  cloud.ep.send(cmd, undefined, 'plant1');
  assert.equal(await gone, 1006);
  assert.equal(cloud.listener.counters.peersGone, 1);
  const answer = await waitFor(() => cloud.got.find((e) => e.ref && e.ref.seq === cmd.seq), 20000, 'the command answered');
  assert.equal(answer.e.code, 'E_OUTCOME_UNKNOWN');
});
