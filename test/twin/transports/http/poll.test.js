'use strict';
/** The HTTP transport's polls (twin/transports/http/poll.js), against a stand-in GET. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPoller, stateAnswer } = require('../../../../twin/transports/http/poll');
const envelope = require('../../../../nodes/lib/core/envelope');

test('stateAnswer: frames, nothing new, a refused token, an error with the endpoint\'s code', () => {
  assert.deepEqual(stateAnswer({ status: 200, text: '[]' }), { frames: [] });
  assert.deepEqual(stateAnswer({ status: 204, text: '' }), { notModified: true });
  assert.deepEqual(stateAnswer({ status: 401, text: '' }), { unauthorized: true });
  const e = stateAnswer({ status: 503, text: '{"e":{"code":"E_EDGE_DOWN","msg":"no edge"}}' }).error;
  assert.equal(e.code, 'E_EDGE_DOWN');
  assert.equal(e.message, 'no edge');
  assert.equal(stateAnswer({ status: 200, text: '{"not":"a list"}' }).error.code, 'E_HTTP_200');
});

function rig(answers) {
  const stats = { polls: 0, notModified: 0, received: 0, frames: 0, snapshots: 0, badFrames: 0, authFailures: 0, version: 0 };
  const seen = { paths: [], events: [], errors: [], received: [], nexts: 0 };
  let closed = false;
  const poller = createPoller({
    get: async (path) => {
      seen.paths.push(path);
      const a = answers.shift();
      if (!a) { closed = true; return { status: 204, text: '' }; } // the script is done: stop
      if (a instanceof Error) throw a;
      return a;
    },
    stats, countError: (c) => seen.errors.push(c), link: { receive: (env) => seen.received.push([env.k, env.seq]) },
    pollMs: 1, backoff: { next: () => { seen.nexts += 1; return 1; } }, closed: () => closed,
    up: () => seen.events.push('up'), down: (err) => seen.events.push(`down ${err.code || err.message}`),
    onRefused: () => { seen.events.push('refused'); closed = true; }, onPolled: () => seen.events.push('polled'),
  });
  return { poller, stats, seen, done: () => closed };
}

async function until(fn) {
  for (let i = 0; i < 500 && !fn(); i += 1) await new Promise((r) => setTimeout(r, 5));
  assert.ok(fn(), 'timed out');
}

test('polls ask for what is new since the last frame; bad frames are counted and skipped', async () => {
  const s = envelope.createSender('edge-1');
  const snap = s.make('snap', { d: { grn: 0 } });
  const state = s.make('state', { d: { grn: 1 } });
  const { poller, stats, seen, done } = rig([
    new Error('ECONNREFUSED'),
    { status: 200, text: JSON.stringify([snap]) },
    { status: 204, text: '' },
    { status: 200, text: JSON.stringify([{ k: 'state', nonsense: true }, state, s.make('ack', { ref: { src: 'x', seq: 1 } })]) },
  ]);
  poller.start();
  await until(done);
  poller.stop();
  assert.deepEqual(seen.paths.slice(0, 4), ['/state', '/state', `/state?since=${snap.seq}`, `/state?since=${snap.seq}`]);
  assert.deepEqual(seen.received, [['snap', snap.seq], ['state', state.seq]], 'state frames only, in order');
  assert.equal(stats.version, state.seq);
  assert.equal(stats.badFrames, 1);
  assert.equal(stats.snapshots, 1);
  assert.equal(stats.notModified, 2);
  assert.equal(seen.nexts, 1, 'a back-off after the failed poll only');
  assert.deepEqual(seen.events.slice(0, 4), ['down ECONNREFUSED', 'up', 'polled', 'up']);
});

test('a refused token stops the polling', async () => {
  const { poller, stats, seen } = rig([{ status: 401, text: '' }, { status: 204, text: '' }]);
  poller.start();
  await until(() => seen.events.includes('refused'));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(stats.authFailures, 1);
  assert.equal(seen.paths.length, 1, 'no poll after the refusal');
  poller.stop();
});
