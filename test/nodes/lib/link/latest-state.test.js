'use strict';
/**
 * lib/link/latest-state.js: the latest full state per plant, merged from states and snaps, bounded
 * in tags.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLatestStates } = require('../../../../nodes/lib/link/latest-state');

test('states merge per plant; new tags past maxTags are ignored, known ones still update; values are copies', () => {
  const l = createLatestStates({ maxTags: 2 });
  assert.equal(l.has('a'), false);
  assert.deepEqual(l.values('a'), {});
  l.remember('a', { k: 'state', d: { grn: 1 } });
  l.remember('a', { k: 'snap', d: { red: 0, grn: 0 } });
  l.remember('a', { k: 'state', d: { yel: 1, red: 1 } });
  l.remember('b', { k: 'state', d: { ng: 3 } });
  assert.deepEqual(l.values('a'), { grn: 0, red: 1 });
  assert.deepEqual(l.values('b'), { ng: 3 });
  assert.equal(l.has('a'), true);
  l.values('a').grn = 99;
  assert.equal(l.values('a').grn, 0);
});
