'use strict';
/**
 * nodes/lib/opcua/relay.js: what the tag bridge and the probe relay share, with stand-in sessions
 * and writers: the sessions' comings and goings, first sessions retried, and stop.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { createRelayCore } = require('../../../../nodes/lib/opcua/relay');

function setup() {
  const ee = new EventEmitter();
  const core = createRelayCore(ee);
  const calls = [];
  const log = (what) => () => calls.push(what);
  const plc = new EventEmitter();
  const cloud = new EventEmitter();
  const image = { c1: 1 };
  const counters = { resyncs: 0 };
  core.wire({
    plc, cloud, names: { plc: 'plc-x', cloud: 'cloud-x' }, counters, cloudImage: image,
    fresh: { hold: log('hold') },
    toPlc: { drop: log('drop'), forget: log('forget') },
    toCloud: { resync: (img) => calls.push(['resync', img]) },
    baseline: { run: log('baseline') },
    onPlcSession: log('plc session'),
  });
  const statuses = [];
  ee.on('status', (ev) => statuses.push(ev));
  return { ee, core, calls, plc, cloud, image, counters, statuses };
}

test('a PLC that goes away loses its queue; a new PLC session is forgotten after the owner\'s own step', () => {
  const s = setup();
  s.plc.emit('status', 'connected');
  assert.deepEqual(s.calls, []);
  s.plc.emit('status', 'disconnected', 'gone');
  assert.deepEqual(s.calls, ['drop']);
  assert.deepEqual(s.statuses, [{ side: 'plc-x', status: 'connected', detail: undefined }, { side: 'plc-x', status: 'disconnected', detail: 'gone' }]);
  s.plc.emit('session');
  assert.deepEqual(s.calls, ['drop', 'plc session', 'forget']);
});

test('a cloud that goes away makes the filter hold; a new cloud session gets the image and a new baseline', () => {
  const s = setup();
  s.cloud.emit('status', 'error', 'BadSessionIdInvalid');
  assert.deepEqual(s.calls, ['hold']);
  assert.equal(s.statuses[0].side, 'cloud-x');
  s.cloud.emit('session');
  assert.deepEqual(s.calls, ['hold', ['resync', s.image], 'hold', 'baseline']);
  assert.equal(s.counters.resyncs, 1);
});

test('first sessions are retried until they work, failures reported only to a listener', async () => {
  const s = setup();
  let tries = 0;
  const flaky = { async connect() { tries += 1; if (tries < 3) throw new Error(`refused ${tries}`); } };
  const fine = { async connect() {} };
  const errors = [];
  s.ee.on('error', (e) => errors.push(e.message));
  await s.core.connect([flaky, fine], 1);
  assert.equal(tries, 3);
  assert.deepEqual(errors, ['refused 1', 'refused 2']);
  const quiet = setup();
  quiet.core.fail(new Error('nobody listens')); // no 'error' listener: not thrown
});

test('stop ends a retry wait at once, then closes; nothing is tried after it', async () => {
  const s = setup();
  let tries = 0;
  const refused = { async connect() { tries += 1; throw new Error('refused'); } };
  const started = s.core.connect([refused], 60000);
  await new Promise((r) => setImmediate(r));
  const closed = [];
  await s.core.stop(() => [Promise.resolve().then(() => closed.push('a')), Promise.reject(new Error('already closed')), null]);
  let timer;
  const outcome = await Promise.race([started.then(() => 'resolved'), new Promise((r) => { timer = setTimeout(() => r('pending'), 5000); })]);
  clearTimeout(timer);
  assert.equal(outcome, 'resolved');
  assert.equal(tries, 1);
  assert.deepEqual(closed, ['a']);
  assert.equal(s.core.isStopped(), true);
});
