'use strict';
/** nodes/lib/opcua/accounts.js: the twin and edge accounts, their roles, and who wrote. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { roleOf, createUserManager, whoOf } = require('../../../../nodes/lib/opcua/accounts');

const users = { twin: { user: 'tw', password: 'a' }, edge: { user: 'ed', password: 'b' } };
const opcua = { WellKnownRoles: { AuthenticatedUser: 'auth', Operator: 'op', Engineer: 'eng' }, makeRoles: (r) => r.join('+') };

test('roles by user name', () => {
  assert.equal(roleOf(users, 'tw'), 'twin');
  assert.equal(roleOf(users, 'ed'), 'edge');
  assert.equal(roleOf(users, 'twin'), null);
  assert.equal(roleOf(users, undefined), null);
});

test('logins: the right password of a known account; every refusal counted', () => {
  const counters = { badLogins: 0 };
  const um = createUserManager(users, opcua, counters);
  assert.equal(um.isValidUser('tw', 'a'), true);
  assert.equal(um.isValidUser('ed', 'b'), true);
  assert.equal(um.isValidUser('tw', 'b'), false, 'the edge\'s password is not the twin\'s');
  assert.equal(um.isValidUser('nobody', 'a'), false);
  assert.equal(counters.badLogins, 2);
});

test('the twin is an Operator, the edge an Engineer, both authenticated users', () => {
  const um = createUserManager(users, opcua, { badLogins: 0 });
  assert.equal(um.getUserRoles('tw'), 'auth+op');
  assert.equal(um.getUserRoles('ed'), 'auth+eng');
  assert.equal(um.getUserRoles('other'), 'auth');
});

test('who wrote: the session\'s user name, else anonymous', () => {
  assert.equal(whoOf({ session: { userIdentityToken: { userName: 'tw' } } }), 'tw');
  assert.equal(whoOf({ session: { userIdentityToken: {} } }), 'anonymous');
  assert.equal(whoOf({ session: {} }), 'anonymous');
  assert.equal(whoOf(null), 'anonymous');
});
