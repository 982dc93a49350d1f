'use strict';
/** lib/link/transports/keep-connected.js: a broker connection kept up, with back-off. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { keepConnected } = require('../../../../../nodes/lib/link/transports/keep-connected');
const { waitFor } = require('../../../../../system/wait');

test('connects, says when it is lost, connects again; a failed first connect rejects `first` and goes on', async () => {
  let n = 0;
  let lose = null;
  const events = [];
  const closed = [];
  const k = keepConnected({
    backoff: { initialMs: 5, maxMs: 20 },
    async connect(lost) {
      n += 1;
      if (n === 1) throw new Error('broker not there yet');
      lose = lost;
      const h = { n, close: async () => closed.push(h.n) };
      return h;
    },
    onUp: (h) => events.push(`up ${h.n}`),
    onDown: (err) => events.push(`down: ${err.message}`),
  });
  await assert.rejects(k.first, /not there yet/);
  await waitFor(() => k.up, 5000, 'connected at the second attempt');
  lose(new Error('gone'));
  assert.equal(k.up, false);
  await waitFor(() => k.up && k.handle.n === 3, 5000, 'connected again');
  assert.deepEqual(events, ['down: broker not there yet', 'up 2', 'down: gone', 'up 3']);
  assert.deepEqual(closed, [2]);
  await k.close();
  assert.deepEqual(closed, [2, 3]);
  assert.equal(k.up, false);
});

test('closed while connecting: the new connection is closed at once', async () => {
  let release;
  const closed = [];
  const k = keepConnected({ connect: () => new Promise((r) => { release = r; }) });
  await k.close();
  release({ close: async () => closed.push('late') });
  await waitFor(() => closed.length === 1, 5000, 'the late connection closed');
  assert.equal(k.up, false);
});
