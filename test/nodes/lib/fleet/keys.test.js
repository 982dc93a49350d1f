'use strict';
/**
 * lib/fleet/keys.js: the fleet's names on the backplane never collide: not between plants (even
 * one named like a channel), not with a member's channel, not with the fleet's.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { KEYS } = require('../../../../nodes/lib/fleet/keys');
const { memberId } = require('../../../../nodes/lib/fleet/member');

test('every plant\'s keys, every member\'s channel, the fleet channel and the shared records\' keys are distinct names', () => {
  const plants = ['plant1', 'a', 'member', 'fleet', 'edge', 'state', 'history', 'audit'];
  const members = [memberId(), memberId()];
  const names = [
    ...plants.flatMap((p) => [KEYS.lease(p), KEYS.latest(p), KEYS.req(p), KEYS.states(p), KEYS.table(p), KEYS.history(p)]),
    ...members.map((m) => KEYS.member(m)),
    KEYS.fleet, KEYS.tables, KEYS.historyPlants, KEYS.auditChains, KEYS.auditChain('0123456789abcdef'),
  ];
  assert.equal(new Set(names).size, names.length);
  for (const n of names) assert.match(n, /^s7twin:/);
  assert.notEqual(members[0], members[1], 'a restarted process is a new member');
});
