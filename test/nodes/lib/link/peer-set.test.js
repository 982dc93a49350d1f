'use strict';
/**
 * lib/link/peer-set.js: admitted connections become numbered peers; their frames and closes are
 * passed on; one keepalive round looks at every peer; closing waits for every peer (and cuts off
 * those that do not answer).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPeerSet, closePeers } = require('../../../../nodes/lib/link/peer-set');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

function setup(more = {}) {
  const counters = { accepted: 0, connections: 0, errors: 0, tooLarge: 0, queueDepth: 0, framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0 };
  const frames = [];
  const gone = [];
  const ticks = [];
  const set = createPeerSet({
    name: 'twin', counters, limits: { ratePerS: 0, errors: 0 },
    peer: { maxFrames: 10, maxTags: 10, highWaterBytes: 100, drainPollMs: 5, closeGraceMs: 1000 },
    tickMs: 10, tick: (c) => ticks.push(c.id), onFrame: (c, data) => frames.push([c.id, String(data)]), onGone: (c, code) => gone.push([c.id, code]),
    ...more,
  });
  return { set, counters, frames, gone, ticks };
}

test('connections become numbered peers of their plant; frames, errors and closes are passed on and counted', async (t) => {
  const s = setup();
  t.after(() => s.set.close(0));
  const a = fakeConnection();
  const b = fakeConnection();
  const pa = s.set.add(a, { plant: 'p1', remote: '1.2.3.4:5' });
  const pb = s.set.add(b, { plant: 'p2', viewer: true });
  assert.deepEqual(s.set.ids(), ['twin-1', 'twin-2']);
  assert.equal(pa.remote, '1.2.3.4:5');
  assert.equal(pb.viewer, true);
  assert.deepEqual(s.set.ofPlant('p2').map((c) => c.id), ['twin-2']);
  assert.equal(s.counters.connections, 2);
  a.receive('hello');
  assert.deepEqual(s.frames, [['twin-1', 'hello']]);
  a.emit('error', Object.assign(new Error('big'), { code: 'E_TOO_LARGE' }));
  assert.deepEqual([s.counters.errors, s.counters.tooLarge], [1, 1]);
  await waitFor(() => s.ticks.includes('twin-1') && s.ticks.includes('twin-2'), 5000, 'a keepalive round');
  a.terminate();
  await waitFor(() => s.gone.length === 1);
  assert.deepEqual(s.gone, [['twin-1', 1006]]);
  assert.equal(s.set.has('twin-1'), false);
  assert.equal(s.set.get('twin-2'), pb);
  assert.equal(s.counters.connections, 1);
  assert.equal(s.counters.accepted, 2);
});

test('the queue depth of all peers is one counter: each peer adds its change, a peer that goes takes its own away', async () => {
  const s = setup();
  const a = fakeConnection();
  const b = fakeConnection();
  const ca = s.set.add(a, { plant: 'p1' });
  const cb = s.set.add(b, { plant: 'p1' });
  a.buffered = 1000;
  b.buffered = 1000;
  const ack = (seq) => ({ v: 1, k: 'ack', src: 'x', seq, ts: 1, ref: { src: 'y', seq } });
  ca.deliver(ack(1));
  ca.deliver(ack(2));
  cb.deliver(ack(3));
  assert.equal(s.counters.queueDepth, 3);
  a.terminate();
  await waitFor(() => s.gone.length === 1);
  assert.equal(s.counters.queueDepth, 1, 'b\'s frame is still waiting');
  b.buffered = 0;
  await waitFor(() => cb.outbox.empty);
  assert.equal(s.counters.queueDepth, 0);
  return s.set.close(0);
});

test('peers leaving at once read no other peer\'s outbox (summed over every peer at each change, 10,000 leaving held the loop 3 s)', async () => {
  const s = setup();
  const conns = Array.from({ length: 200 }, () => fakeConnection());
  let reads = 0;
  for (const conn of conns) {
    const c = s.set.add(conn, { plant: 'p1' });
    const own = Object.getOwnPropertyDescriptor(c.outbox, 'depth').get;
    Object.defineProperty(c.outbox, 'depth', { get() { reads += 1; return own.call(this); } });
  }
  for (const conn of conns) conn.terminate();
  await waitFor(() => s.counters.connections === 0);
  assert.ok(reads <= 2 * conns.length, `${reads} outbox reads for ${conns.length} peers leaving`);
  assert.equal(s.counters.queueDepth, 0);
  return s.set.close(0);
});

test('close: every peer is asked to close (1001); one that does not answer is cut off after the grace', async () => {
  const s = setup();
  const polite = fakeConnection();
  const deaf = fakeConnection();
  deaf.hangOnClose = true;
  s.set.add(polite, { plant: 'p1' });
  s.set.add(deaf, { plant: 'p1' });
  await s.set.close(20);
  assert.equal(polite.closes[0].code, 1001);
  assert.equal(deaf.closes[0].code, 1001);
  assert.equal(deaf.terminated, true, 'cut off after the grace');
  await closePeers([], 10); // nothing to close: resolves at once
});
