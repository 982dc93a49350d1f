'use strict';
/**
 * The link over ZeroMQ (lib/link/transports/zmq.js): no broker, the cloud's ROUTER on a loopback
 * port, a DEALER per edge session. The link's promises (test/helpers/link-transport.js), a
 * stranger's frames never read, and a cut connection noticed at once.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const zmq = require('zeromq');
const lt = require('../../../../helpers/link-transport');
const bus = require('../../../../../nodes/lib/link/transports/bus-frame');
const { waitFor } = require('../../../../../system/wait');

test('ZeroMQ: admitted by token, one edge per plant, a command and its one answer, a cloud restart', { timeout: 120000 }, async (t) => {
  let cloud = await lt.startLinkCloud({ transport: 'zmq', url: 'tcp://127.0.0.1:0' });
  t.after(() => cloud.stop());
  const edge = lt.startLinkEdge('zmq', cloud.url);
  t.after(() => edge.close());
  await lt.checkRoundTrip(cloud, edge);
  await lt.checkWrongToken(cloud, 'zmq');
  await lt.checkSecondEdge(cloud, 'zmq');
  const port = cloud.listener.carrier.port;
  cloud = await lt.checkCloudRestart(cloud, edge, () => lt.startLinkCloud({ transport: 'zmq', url: `tcp://127.0.0.1:${port}` }));
});

test('ZeroMQ: a peer that sends frames without a hello is never read; a dropped connection ends the session', { timeout: 60000 }, async (t) => {
  const cloud = await lt.startLinkCloud({ transport: 'zmq', url: 'tcp://127.0.0.1:0' });
  t.after(() => cloud.stop());
  const stranger = new zmq.Dealer({ linger: 0 });
  t.after(() => stranger.close());
  stranger.connect(cloud.url);
  const sid = bus.newSessionId();
  await stranger.send(bus.encode('frame', sid, JSON.stringify({ v: 1, k: 'state', src: 'x', seq: 1, ts: 1, d: { grn: 1 } })));
  const [reply] = await stranger.receive();
  const m = bus.decode(reply);
  assert.deepEqual([m.type, m.sid, bus.controlBody(m.body).code], ['bye', sid, 4404]);
  assert.equal(cloud.ep.counters.framesIn, 0);
  assert.equal(cloud.listener.counters.unknownSessions, 1);

  const edge = lt.startLinkEdge('zmq', cloud.url);
  t.after(() => edge.close());
  await waitFor(() => cloud.ep.edgeReady('plant1'), 20000, 'the edge admitted');
  const gone = new Promise((r) => cloud.ep.once('disconnect', r));
  const connects = edge.counters.connects;
  // The cloud's router goes away under the edge: its DEALER sees the TCP connection drop and the
  // session ends at once (no waiting for the heartbeat), then the edge dials again.
  await cloud.listener.carrier.close();
  await waitFor(() => !edge.connected, 10000, 'the edge sees the drop');
  assert.ok(edge.counters.timeouts === 0, 'found by the dropped connection, not by silence');
  await gone.catch(() => {});
  assert.equal(edge.counters.connects, connects);
});
