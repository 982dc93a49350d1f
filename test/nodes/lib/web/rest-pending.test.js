'use strict';
/**
 * lib/web/rest-pending.js: every REST command held until its one answer: the edge's,
 * E_OUTCOME_UNKNOWN, or E_CLOSED; an answer for nothing held is not ours.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPendingCommands } = require('../../../../nodes/lib/web/rest-pending');
const { waitFor } = require('../../../../system/wait');

function make() {
  const out = [];
  const counters = { pending: 0, timeouts: 0 };
  const p = createPendingCommands({
    counters,
    answer: (res, env) => out.push([res, env.k]),
    refuse: (res, code, msg, ref) => out.push([res, code, ref]),
  });
  return { p, out, counters };
}

test('the edge\'s answer completes its command once; an answer for nothing held is not ours', () => {
  const { p, out, counters } = make();
  p.hold({ src: 'tw', seq: 1 }, 'res1', 60000);
  assert.equal(counters.pending, 1);
  assert.equal(p.has({ src: 'tw', seq: 1 }), true);
  assert.equal(p.answer({ k: 'ack', ref: { src: 'tw', seq: 1 } }), true);
  assert.equal(p.answer({ k: 'ack', ref: { src: 'tw', seq: 1 } }), false);
  assert.equal(p.answer({ k: 'err', ref: { src: 'ws-twin', seq: 1 } }), false);
  assert.deepEqual(out, [['res1', 'ack']]);
  assert.equal(counters.pending, 0);
});

test('a command not answered in the time it was held for gets E_OUTCOME_UNKNOWN once; dropped ones get nothing; close answers the rest E_CLOSED', async () => {
  const { p, out, counters } = make();
  p.hold({ src: 'tw', seq: 1 }, 'late', 20);
  await waitFor(() => out.length === 1);
  assert.deepEqual(out[0], ['late', 'E_OUTCOME_UNKNOWN', { src: 'tw', seq: 1 }]);
  assert.equal(counters.timeouts, 1);
  assert.equal(p.answer({ k: 'ack', ref: { src: 'tw', seq: 1 } }), false, 'too late');
  const slow = make();
  slow.p.hold({ src: 'tw', seq: 2 }, 'dropped', 60000);
  slow.p.drop({ src: 'tw', seq: 2 });
  slow.p.hold({ src: 'tw:x', seq: 3 }, 'open', 60000);
  slow.p.close();
  assert.deepEqual(slow.out, [['open', 'E_CLOSED', { src: 'tw:x', seq: 3 }]]);
  assert.equal(slow.counters.pending, 0);
});
