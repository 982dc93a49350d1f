'use strict';
/** nodes/lib/props.js: the one reader of node properties (unset ${ENV} references count as empty). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { prop, setting, numberOr } = require('../../nodes/lib/props');

test('prop, setting and numberOr read a property the same way in every node', () => {
  for (const empty of [undefined, null, '', '  ', '${S7T_NOT_SET}']) {
    assert.equal(prop(empty), '', String(empty));
    assert.equal(setting(empty, 'd'), 'd', String(empty));
    assert.equal(numberOr(empty, 7), 7, String(empty));
  }
  assert.equal(prop(' 1883 '), '1883');
  assert.equal(setting('host', 'd'), 'host');
  assert.equal(numberOr('10', 7), 10);
  assert.equal(numberOr(0, 7), 0);
  assert.equal(numberOr('-1', 7), 7);
  assert.equal(numberOr('ten', 7), 7);
});
