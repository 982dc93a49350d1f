'use strict';
/**
 * lib/link/downlink.js: every frame from the cloud checked; bad ones answered with an err and
 * reported, duplicates dropped, answers to syncs to the clock, the rest to the flow.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const envelope = require('../../../../nodes/lib/core/envelope');
const { createDownlink } = require('../../../../nodes/lib/link/downlink');

function setup() {
  const counters = { bytesIn: 0, framesIn: 0, tooLarge: 0, errors: 0, duplicates: 0, gaps: 0 };
  const out = { answers: [], syncs: [], envs: [], invalid: [], heard: 0 };
  const dl = createDownlink({
    maxPayload: 200, counters, sender: envelope.createSender('edge-link'),
    answer: (e) => out.answers.push(e), onSyncRes: (e) => out.syncs.push(e), onEnvelope: (e) => out.envs.push(e),
    onInvalid: (err) => out.invalid.push(err.code), onHeard: () => { out.heard += 1; },
  });
  const rx = (x, bin = false) => dl.receive(Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)), bin);
  return { dl, counters, out, rx };
}
const cmd = (seq) => ({ v: 1, k: 'cmd', src: 'cloud-e', seq, ts: 1, d: { st: 1 }, dl: 5 });
const err = (seq) => ({ v: 1, k: 'err', src: 'cloud-e', seq, ts: 1, e: { code: 'E_SCHEMA', msg: 'x' } });

test('frames go to the flow once; sync answers to the clock; every frame proves the cloud alive', () => {
  const { counters, out, rx } = setup();
  rx(err(1));
  rx(err(1));
  rx({ v: 1, k: 'sync-res', src: 'cloud-e', seq: 2, ts: 1, ref: { src: 'edge-link', seq: 1 }, d: { t1: 0, t2: 1 } });
  assert.deepEqual(out.envs.map((e) => e.seq), [1]);
  assert.deepEqual(out.syncs.map((e) => e.seq), [2]);
  assert.equal(counters.duplicates, 1);
  assert.equal(out.heard, 3);
});

test('bad frames are answered with an err to the cloud and reported; an oversized one is counted', () => {
  const { counters, out, rx } = setup();
  rx('{oops');
  rx(cmd(1), true);
  rx({ ...cmd(2), d: { pad: 'x'.repeat(300) } });
  assert.deepEqual(out.answers.map((e) => e.e.code), ['E_JSON', 'E_SCHEMA', 'E_TOO_LARGE']);
  assert.deepEqual(out.invalid, ['E_JSON', 'E_SCHEMA', 'E_TOO_LARGE']);
  assert.deepEqual([counters.errors, counters.tooLarge, counters.framesIn], [3, 1, 0]);
  assert.equal(out.envs.length, 0);
});

test('reset: a new connection\'s sender numbers start afresh (a restarted cloud reuses low numbers)', () => {
  const { dl, out, rx } = setup();
  rx(err(5));
  rx(err(3));
  assert.equal(out.envs.length, 1);
  dl.reset();
  rx(err(3));
  assert.deepEqual(out.envs.map((e) => e.seq), [5, 3]);
});

test('over the compact encoding: frames decode with the connection\'s codec; a malformed binary frame is answered E_DECODE', () => {
  const { createCodec, COMPACT_PROTOCOL } = require('../../../../nodes/lib/core/codec');
  const { dl, counters, out } = setup();
  const cloud = createCodec(COMPACT_PROTOCOL);
  const mine = createCodec(COMPACT_PROTOCOL);
  dl.receive(Buffer.from(cloud.encode(cmd(1))), true, mine);
  dl.receive(Buffer.from([0x93, 0x01]), true, mine);
  dl.receive(Buffer.from(cloud.encode(cmd(2))), true, mine);
  assert.deepEqual(out.envs.map((e) => [e.seq, e.dl]), [[1, 5], [2, 5]]);
  assert.deepEqual(out.invalid, ['E_DECODE']);
  assert.equal(counters.errors, 1);
});

test('requests the cloud relays are not judged by their twins\' numbers: two twins with one id, interleaved, both reach the flow', () => {
  const { counters, out, rx } = setup();
  const twin = (seq, d) => ({ v: 1, k: 'cmd', src: 'twin-x', seq, ts: 1, d, dl: 5 });
  rx(twin(5, { st: 1 })); // one twin's
  rx(twin(3, { sp: 1 })); // another's, on another connection to the cloud, with the same id
  rx({ v: 1, k: 'probe', src: 'twin-x', seq: 2, ts: 1, d: { 7: 1 }, dl: 5 });
  assert.deepEqual(out.envs.map((e) => e.seq), [5, 3, 2], 'the cloud holds each relayed request once; its uniqueness is the cloud\'s to keep');
  assert.equal(counters.duplicates, 0);
});
