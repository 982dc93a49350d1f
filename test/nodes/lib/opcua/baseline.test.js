'use strict';
/** nodes/lib/opcua/baseline.js: the baseline read on every cloud session, retried, the latest run winning. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createBaseline } = require('../../../../nodes/lib/opcua/baseline');
const { createFreshFilter } = require('../../../../nodes/lib/opcua/fresh');

function setup(read, extra = {}) {
  const fresh = createFreshFilter();
  const later = [];
  const errors = [];
  const session = { connected: true };
  let stopped = false;
  const baseline = createBaseline({
    session, fresh, read, retryMs: 3, isStopped: () => stopped, wait: async () => {},
    onLater: (items) => later.push(...items), onError: (e) => errors.push(e.message), ...extra,
  });
  return { fresh, later, errors, session, baseline, stop: () => { stopped = true; } };
}

test('the values read become the baseline; a command kept aside that is newer than the read is handed on', async () => {
  const s = setup(async () => [{ key: 'st', value: 1, clock: 100n }, { key: 'sd', value: 0, clock: 100n }]);
  assert.equal(s.fresh.accept('st', 1, 50n, 'initial'), false, 'kept aside while holding');
  assert.equal(s.fresh.accept('sd', 1, 150n, 'sent during the read'), false);
  await s.baseline.run();
  assert.equal(s.fresh.holding, false);
  assert.deepEqual(s.later, ['sent during the read']);
  assert.equal(s.fresh.seen('st'), 1);
});

test('a failed read is reported and tried again; a lost session ends the tries', async () => {
  let calls = 0;
  const s = setup(async () => {
    calls += 1;
    if (calls < 3) throw new Error(`read ${calls} failed`);
    return [];
  });
  await s.baseline.run();
  assert.equal(calls, 3);
  assert.deepEqual(s.errors, ['read 1 failed', 'read 2 failed']);
  assert.equal(s.fresh.holding, false);

  const down = setup(async () => { down.session.connected = false; throw new Error('connection lost'); });
  await down.baseline.run();
  assert.deepEqual(down.errors, ['connection lost']);
  assert.equal(down.fresh.holding, true, 'no baseline without a read');
});

test('a run that answers after a newer one started counts for nothing', async () => {
  const answers = [];
  const s = setup(() => new Promise((resolve) => answers.push(resolve)));
  const first = s.baseline.run();
  const second = s.baseline.run();
  answers[1]([{ key: 'st', value: 1, clock: 10n }]);
  await second;
  answers[0]([{ key: 'st', value: 0, clock: 5n }]);
  await first;
  assert.equal(s.fresh.counters.baselines, 1);
  assert.equal(s.fresh.seen('st'), 1, 'the late answer of the older run is ignored');
});

test('no read once stopped', async () => {
  const s = setup(async () => assert.fail('read after the stop'));
  s.stop();
  await s.baseline.run();
  assert.equal(s.fresh.holding, true);
});
