'use strict';
/** nodes/lib/opcua/first-session.js: a first session is tried until it works or the owner stops. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { connectFirstSession, DEFAULTS } = require('../../../../nodes/lib/opcua/first-session');
const { createWaits } = require('../../../../nodes/lib/opcua/waits');

/** A session whose first `failures` connects are refused. */
function flakySession(failures) {
  let calls = 0;
  return {
    get calls() { return calls; },
    async connect() {
      calls += 1;
      if (calls <= failures) throw Object.assign(new Error(`refused ${calls}`), { code: 'E_SESSION' });
    },
  };
}

test('refused first sessions are reported and tried again every retryMs until one works', async () => {
  const session = flakySession(2);
  const errors = [];
  const waited = [];
  await connectFirstSession(session, {
    retryMs: 7, isStopped: () => false, onError: (e) => errors.push(e.message),
    wait: async (ms) => { waited.push(ms); },
  });
  assert.equal(session.calls, 3);
  assert.deepEqual(errors, ['refused 1', 'refused 2']);
  assert.deepEqual(waited, [7, 7]);
});

test('a stop during the wait ends the loop: no further try, and the promise resolves', async () => {
  const session = flakySession(Infinity);
  const waits = createWaits();
  let stopped = false;
  const done = connectFirstSession(session, { retryMs: 60000, isStopped: () => stopped, wait: waits.wait });
  await new Promise((r) => setImmediate(r));
  assert.equal(session.calls, 1);
  stopped = true;
  waits.cancel();
  await done; // resolves, although the retry was a minute away
  assert.equal(session.calls, 1);
});

test('a failure that comes after the stop is not reported; the default retry is 5 s', async () => {
  let stopped = false;
  const errors = [];
  const session = { async connect() { stopped = true; throw new Error('closed while connecting'); } };
  await connectFirstSession(session, { isStopped: () => stopped, onError: (e) => errors.push(e), wait: async () => assert.fail('no wait after a stop') });
  assert.deepEqual(errors, []);
  assert.equal(DEFAULTS.retryMs, 5000);
});
