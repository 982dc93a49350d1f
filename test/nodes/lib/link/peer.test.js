'use strict';
/**
 * lib/link/peer.js over an in-memory connection: frames go out at once while the connection takes
 * them and wait (coalesced) in the outbox while it is congested; an expelled peer is told why,
 * closed with 1008, and cut off if it does not answer the close.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPeer } = require('../../../../nodes/lib/link/peer');
const { fakeConnection } = require('../../../helpers/cloud');
const { waitFor } = require('../../../../system/wait');

const counters = () => ({ framesOut: 0, bytesOut: 0, coalesced: 0, dropped: 0 });
const make = (conn, more = {}) => createPeer({
  id: 'twin-1', conn, plant: 'p1', limits: { ratePerS: 0, errors: 0 }, counters: counters(),
  maxFrames: 10, maxTags: 100, highWaterBytes: 100, drainPollMs: 5, closeGraceMs: 30, ...more,
});
const state = (seq, d) => ({ v: 1, k: 'state', src: 'edge-1', seq, ts: 1, d });

test('frames go out at once while the connection takes them; congested, states coalesce and drain in order later', async (t) => {
  const conn = fakeConnection();
  const queued = [];
  let total = 0;
  const c = make(conn, { onQueue: (delta) => { total += delta; queued.push(total); } });
  t.after(() => c.dispose());
  c.deliver(state(1, { grn: 1 }));
  assert.equal(conn.sent.length, 1);
  conn.buffered = 1000; // the peer stopped reading
  c.deliver(state(2, { grn: 0 }));
  c.deliver(state(3, { red: 1 }));
  c.deliver({ v: 1, k: 'ack', src: 'edge-1', seq: 4, ts: 1, ref: { src: 'tw', seq: 1 } });
  assert.equal(conn.sent.length, 1, 'nothing more written while congested');
  assert.equal(c.outbox.depth, 2, 'one coalesced state and the ack');
  conn.buffered = 0;
  await waitFor(() => c.outbox.empty);
  const [, merged, ack] = conn.frames();
  assert.deepEqual(merged.d, { grn: 0, red: 1 });
  assert.equal(merged.seq, 3);
  assert.equal(ack.k, 'ack');
  assert.ok(queued.length > 0 && queued[queued.length - 1] === 0, 'the endpoint was told of every depth change');
  assert.equal(Math.max(...queued), 2, 'its changes add up to the outbox\'s depth');
});

test('nothing is written to a connection that is not open', () => {
  const conn = fakeConnection();
  const c = make(conn);
  conn.open = false;
  c.deliver(state(1, { grn: 1 }));
  assert.equal(conn.sent.length, 0);
  assert.equal(c.outbox.depth, 0);
});

test('expel: the peer gets the reason, a 1008 close, and is cut off when it does not answer the close', async () => {
  const conn = fakeConnection();
  conn.hangOnClose = true;
  const c = make(conn);
  c.expel({ v: 1, k: 'err', src: 'cloud', seq: 1, ts: 1, e: { code: 'E_RATE_LIMIT', msg: 'too fast' } });
  c.expel({ v: 1, k: 'err', src: 'cloud', seq: 2, ts: 1, e: { code: 'E_RATE_LIMIT', msg: 'too fast' } });
  assert.equal(c.closing, true);
  assert.deepEqual(conn.frames().map((f) => f.e.code), ['E_RATE_LIMIT'], 'told once');
  assert.deepEqual(conn.closes, [{ code: 1008, reason: 'E_RATE_LIMIT' }]);
  await waitFor(() => conn.terminated, 5000, 'the peer to be cut off');
});

test('markHeard marks the peer alive; dispose forgets what waits', () => {
  const conn = fakeConnection();
  const c = make(conn);
  c.heard = false;
  c.heardAt = 0;
  c.markHeard();
  assert.equal(c.heard, true);
  assert.ok(c.heardAt > 0);
  conn.buffered = 1000;
  c.deliver(state(1, { grn: 1 }));
  assert.equal(c.outbox.depth, 1);
  c.dispose();
  assert.equal(c.outbox.depth, 0);
  assert.equal(c.ws, undefined, 'no WebSocket under an in-memory connection');
});
