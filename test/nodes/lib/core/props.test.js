'use strict';
/** nodes/lib/core/props.js: the one reader of node properties (unset ${ENV} references count as empty). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { prop, setting, numberOr } = require('../../../../nodes/lib/core/props');

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

test('a value that is no number >= 0 gets the default, never silently: the node warns with the property\'s name', () => {
  const { numberReader } = require('../../../../nodes/lib/core/props');
  const warnings = [];
  const num = numberReader({ warn: (m) => warnings.push(m) });
  assert.equal(num('Publishing', '25', 10), 25);
  assert.equal(num('Publishing', '${S7T_UNSET}', 10), 10);
  assert.deepEqual(warnings, []);
  assert.equal(num('Publishing', 'fast', 10), 10);
  assert.equal(num('Probe slots', '-3', 128), 128);
  assert.deepEqual(warnings, ['E_CONFIG: Publishing "fast" is not a number >= 0; using 10', 'E_CONFIG: Probe slots "-3" is not a number >= 0; using 128']);
});

test('positiveOr reads an interval, a timeout or a size: a number > 0, else the default', () => {
  const { positiveOr } = require('../../../../nodes/lib/core/props');
  for (const bad of [undefined, null, '', '  ', '${S7T_NOT_SET}', '0', 0, '-1', 'ten', Infinity]) assert.equal(positiveOr(bad, 9), 9, String(bad));
  assert.equal(positiveOr(' 5 ', 9), 5);
  assert.equal(positiveOr(0.5, 9), 0.5);
  assert.equal(positiveOr('1500', 9), 1500);
});
