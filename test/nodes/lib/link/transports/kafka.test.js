'use strict';
/**
 * The link over Apache Kafka (lib/link/transports/kafka.js) on a real broker in KRaft mode
 * (system/brokers/, loopback, SASL/PLAIN): the link's promises (test/helpers/link-transport.js),
 * and a session never reads what was written to its topic before it began.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startKafka } = require('../../../../../system/brokers/kafka');
const lt = require('../../../../helpers/link-transport');
const bus = require('../../../../../nodes/lib/link/transports/bus-frame');
const { waitFor } = require('../../../../../system/wait');

let kafka = null;
test.before(async () => { kafka = await startKafka({ port: 0 }); });
test.after(() => kafka && kafka.stop());

test('Kafka: admitted by token, one edge per plant, a command and its one answer, a cloud restart; '
  + 'nothing written before a session is read by it', { timeout: 300000 }, async (t) => {
  t.diagnostic(`Kafka up in ${Math.round(kafka.startMs)} ms`);
  const url = `kafka://${kafka.brokers[0]}`;
  const login = { username: kafka.credentials.username, password: kafka.credentials.password };
  // A command for plant1 written before any edge session: a stale request on the plant's topic.
  const { Producer } = require('@platformatic/kafka');
  const producer = new Producer({
    clientId: 'test-stale', bootstrapBrokers: kafka.brokers, sasl: { mechanism: 'PLAIN', ...login }, autocreateTopics: true,
  });
  t.after(() => producer.close());
  const stale = lt.command(60000);
  const value = bus.encode('frame', bus.newSessionId(), JSON.stringify(stale));
  await producer.send({ messages: [{ topic: 's7twin.link.down.plant1', partition: 0, value }] });

  let cloud = await lt.startLinkCloud({ transport: 'kafka', url, login });
  t.after(() => cloud.stop());
  const edge = lt.startLinkEdge('kafka', url, login);
  t.after(() => edge.close());
  await lt.checkRoundTrip(cloud, edge);
  assert.ok(edge.got.every((e) => e.seq !== stale.seq), 'the stale command never reached the edge');
  await lt.checkWrongToken(cloud, 'kafka', login);
  await lt.checkSecondEdge(cloud, 'kafka', login);
  cloud = await lt.checkCloudRestart(cloud, edge, () => lt.startLinkCloud({ transport: 'kafka', url, login }));
  await waitFor(() => edge.connected, 5000, 'still connected');
});
