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

test('ZeroMQ: an edge started with a journal forwards it as backfill into the cloud\'s history', { timeout: 60000 }, async (t) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { createStateStore } = require('../../../../../nodes/lib/history/state-store');
  const { backfillFiler } = require('../../../../../nodes/lib/history/state-history');
  const { createJournal } = require('../../../../../nodes/lib/link/journal');
  const store = createStateStore({ file: ':memory:', flushMs: 20 });
  const cloud = await lt.startLinkCloud({ transport: 'zmq', url: 'tcp://127.0.0.1:0', endpoint: { fileBackfill: backfillFiler(store) } });
  t.after(async () => { await cloud.stop(); store.close(); });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-zmq-journal-'));
  const journal = createJournal({ dir });
  const t0 = Date.now() - 5000;
  for (let i = 1; i <= 30; i++) journal.append({ ts: t0 + i, ct: t0 + i, d: { nb: i } }); // an outage from before a restart
  const edge = lt.startLinkEdge('zmq', cloud.url, { journal, snapWaitMs: 100 });
  t.after(async () => { await edge.close(); journal.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  await waitFor(() => journal.pending === 0 && edge.counters.backfill.inflight === 0, 20000, 'the journal forwarded and answered');
  const frames = store.query({ plant: 'plant1', from: t0, to: t0 + 100 }).frames;
  assert.deepEqual(frames.map((f) => [f.k, f.d.nb]), Array.from({ length: 30 }, (x, i) => ['backfill', i + 1]));
  assert.equal(cloud.got.length, 0, 'nothing for the flow');
});
