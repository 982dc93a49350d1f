'use strict';
/** nodes/lib/runtime/status.js: one de-duplicated status setter behind every node's status. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { dedupStatus, statusSetter } = require('../../../../nodes/lib/runtime/status');

test('a status is set only when it changed; {} clears', () => {
  const seen = [];
  const node = { status: (s) => seen.push(s) };
  const set = dedupStatus(node);
  set({ fill: 'green', shape: 'dot', text: 'a' });
  set({ fill: 'green', shape: 'dot', text: 'a' });
  set({ fill: 'red', shape: 'ring', text: 'a' });
  set();
  set({});
  assert.deepEqual(seen, [{ fill: 'green', shape: 'dot', text: 'a' }, { fill: 'red', shape: 'ring', text: 'a' }, {}]);
});

test('the house-style setter goes through the same de-duplication', () => {
  const seen = [];
  const set = statusSetter({ status: (s) => seen.push(s) });
  set('connected');
  set('connected');
  set('error', 'boom');
  set('clear');
  assert.deepEqual(seen.map((s) => s.text), ['connected', 'boom', undefined]);
});
