'use strict';
/**
 * The link over MQTT (lib/link/transports/mqtt.js) on the bundle's broker (lib/mqtt/server.js,
 * aedes): the link's promises (test/helpers/link-transport.js), and the broker's ACLs: only the
 * plant's edge user publishes on its link topic, another plant's edge is refused by the cloud, a
 * twin's user cannot take the link's topics.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createMqttServer } = require('../../../../../nodes/lib/mqtt/server');
const lt = require('../../../../helpers/link-transport');
const { waitFor } = require('../../../../../system/wait');

const USERS = 'edge1:edge1-pw-xx:edge@plant1,edge2:edge2-pw-xx:edge@plant2,cloud:cloud-pw-xx:link,tw:tw-pw-xx:twin';
const EDGE = { username: 'edge1', password: 'edge1-pw-xx' };
const CLOUD = { username: 'cloud', password: 'cloud-pw-xx' };

test('MQTT: admitted by token, one edge per plant, a command and its one answer, a cloud restart', { timeout: 120000 }, async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: false, users: USERS });
  t.after(() => srv.close());
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  let cloud = await lt.startLinkCloud({ transport: 'mqtt', url, login: CLOUD });
  t.after(() => cloud.stop());
  const edge = lt.startLinkEdge('mqtt', url, EDGE);
  t.after(() => edge.close());
  await lt.checkRoundTrip(cloud, edge);
  await lt.checkWrongToken(cloud, 'mqtt', EDGE);
  await lt.checkSecondEdge(cloud, 'mqtt', EDGE);
  cloud = await lt.checkCloudRestart(cloud, edge, () => lt.startLinkCloud({ transport: 'mqtt', url, login: CLOUD }));
  assert.equal(srv.counters.publishRefused, 0);
  assert.equal(srv.counters.rateLimited, 0);
});

test('MQTT: another plant\'s edge user cannot speak for plant1; a twin\'s user cannot use the link topics', { timeout: 60000 }, async (t) => {
  const srv = await createMqttServer({ port: 0, wsPort: false, users: USERS });
  t.after(() => srv.close());
  const url = `mqtt://127.0.0.1:${srv.ports.tcp}`;
  const cloud = await lt.startLinkCloud({ transport: 'mqtt', url, login: CLOUD });
  t.after(() => cloud.stop());
  // plant2's edge user, dialing for plant1: the broker refuses its subscription to plant1's topic.
  const other = lt.startLinkEdge('mqtt', url, { username: 'edge2', password: 'edge2-pw-xx' });
  t.after(() => other.close());
  await waitFor(() => other.failures.includes('E_MQTT_SUBSCRIBE'), 20000, 'the subscription refused');
  const twin = lt.startLinkEdge('mqtt', url, { username: 'tw', password: 'tw-pw-xx', src: 'edge-link-tw' });
  t.after(() => twin.close());
  await waitFor(() => twin.failures.includes('E_MQTT_SUBSCRIBE'), 20000, 'the twin refused');
  assert.equal(cloud.ep.counters.accepted, 0);
  assert.equal(other.connected || twin.connected, false);
});

test('MQTT on Mosquitto: the same promises, with users and per-topic ACLs generated from the bundle\'s roles', { timeout: 120000 }, async (t) => {
  const { startMosquitto } = require('../../../../../system/brokers/mosquitto');
  const mq = await startMosquitto({
    users: [
      { ...EDGE, role: 'edge', plants: ['plant1'] },
      { username: 'edge2', password: 'edge2-pw-xx', role: 'edge', plants: ['plant2'] },
      { ...CLOUD, role: 'link' },
      { username: 'tw', password: 'tw-pw-xx', role: 'twin' },
    ],
  });
  t.after(() => mq.stop());
  let cloud = await lt.startLinkCloud({ transport: 'mqtt', url: mq.url, login: CLOUD });
  t.after(() => cloud.stop());
  const edge = lt.startLinkEdge('mqtt', mq.url, EDGE);
  t.after(() => edge.close());
  await lt.checkRoundTrip(cloud, edge);
  await lt.checkWrongToken(cloud, 'mqtt', EDGE);
  await lt.checkSecondEdge(cloud, 'mqtt', EDGE);
  // plant2's edge user and a twin's user cannot take plant1's link. Mosquitto grants an MQTT 3.1.1
  // subscription its ACL denies (unlike the bundle's broker, which refuses it) but delivers
  // nothing on it, and drops a publish the ACL denies: their hellos never reach the cloud, and
  // their dials end without an answer.
  const before = { accepted: cloud.ep.counters.accepted, hellos: cloud.listener.counters.hellos };
  const other = lt.startLinkEdge('mqtt', mq.url, { username: 'edge2', password: 'edge2-pw-xx', src: 'edge-link-o', handshakeTimeoutMs: 1500 });
  t.after(() => other.close());
  const twin = lt.startLinkEdge('mqtt', mq.url, { username: 'tw', password: 'tw-pw-xx', src: 'edge-link-tw', handshakeTimeoutMs: 1500 });
  t.after(() => twin.close());
  await waitFor(() => other.failures.includes('E_LINK_HANDSHAKE') && twin.failures.includes('E_LINK_HANDSHAKE'), 20000, 'their dials unanswered');
  assert.equal(other.connected || twin.connected, false);
  assert.equal(cloud.listener.counters.hellos, before.hellos, 'no hello of theirs reached the cloud');
  assert.equal(cloud.ep.counters.accepted, before.accepted);
  await other.close();
  await twin.close();
  cloud = await lt.checkCloudRestart(cloud, edge, () => lt.startLinkCloud({ transport: 'mqtt', url: mq.url, login: CLOUD }));
});
