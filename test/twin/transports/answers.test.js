'use strict';
/** One answer per command and the resync after a doubtful one (twin/transports/answers.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createAnswers } = require('../../../twin/transports/answers');

function book(atOnce) {
  const image = {};
  const stats = {};
  const resent = [];
  let open = true;
  const a = createAnswers({ image, stats, atOnce, resend: (d) => resent.push(d), canSend: () => open });
  const got = [];
  a.onAnswer((x) => got.push(x));
  return { a, image, stats, resent, got, setOpen: (v) => { open = v; } };
}

test('one answer per command; a second one, or one for nothing sent, is counted and dropped', () => {
  const { a, stats, got } = book(false);
  a.sent(1, { se: 1 });
  a.answered(1);
  a.answered(1, 'E_RANGE');
  a.answered(7);
  assert.deepEqual(got.map((x) => [x.seq, x.ok]), [[1, true]]);
  assert.equal(stats.unexpectedAnswers, 2);
  a.sent(2, { se: 0 });
  a.connectionLost();
  assert.equal(got[1].code, 'E_OUTCOME_UNKNOWN');
  assert.equal(stats.lostWithConnection, 1);
  assert.equal(a.inFlight, 0);
});

test('after a doubtful answer: the difference goes out on the next state (default), or at once against the states so far (atOnce)', () => {
  const late = book(false);
  Object.assign(late.image, { se: 1, p1f: 0 });
  late.a.resyncFrom({ se: 0, p1f: 0, c1: 1 });
  late.a.sent(3, { se: 1 });
  late.a.answered(3, 'E_EXPIRED', 'too late');
  assert.deepEqual(late.resent, [], 'waits for the next state');
  late.a.resyncFrom({ c1: 0 });
  assert.deepEqual(late.resent, [], 'a state that shows nothing of the image: nothing to send');
  const now = book(true);
  Object.assign(now.image, { se: 1, p1f: 0 });
  now.a.resyncFrom({ se: 0, p1f: 0, c1: 1 });
  now.a.sent(3, { se: 1 });
  now.a.sent(4, { p1f: 0 });
  now.a.answered(3, 'E_EXPIRED', 'too late');
  assert.deepEqual(now.resent, [], 'another command is still in flight');
  now.a.answered(4, 'E_RANGE', 'not a doubtful code');
  assert.deepEqual(now.resent, [{ se: 1 }], 'once nothing is in flight: the input the PLC shows differently');
  assert.equal(now.stats.resyncs, 1);
  now.a.resyncFrom({ se: 1 });
  assert.equal(now.resent.length, 1, 'no resync pending any more');
  now.a.sent(5, { se: 1 });
  now.setOpen(false);
  now.a.connectionLost();
  assert.equal(now.resent.length, 1, 'nothing goes out on a closed connection');
});
