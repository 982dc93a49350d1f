'use strict';
/**
 * The cloud OPC UA server's two accounts (server.js): the twin account writes commands (role
 * Operator), the edge account writes states (role Engineer); both may read everything. Who wrote
 * a value travels with every change, from the session that wrote it.
 */

/**
 * The role of a user name.
 * @param {{twin: {user: string}, edge: {user: string}}} users the server's accounts
 * @param {string} user
 * @returns {'twin'|'edge'|null}
 */
function roleOf(users, user) {
  if (user === users.twin.user) return 'twin';
  if (user === users.edge.user) return 'edge';
  return null;
}

/**
 * node-opcua's user manager for the two accounts; a refused login is counted (badLogins).
 * @param {{twin: {user, password}, edge: {user, password}}} users
 * @param {{WellKnownRoles: object, makeRoles: Function}} opcua node-opcua
 * @param {{badLogins: number}} counters
 * @returns {{isValidUser(user: string, password: string): boolean, getUserRoles(user: string): *}}
 */
function createUserManager(users, opcua, counters) {
  const { WellKnownRoles } = opcua;
  return {
    isValidUser(user, password) {
      const role = roleOf(users, user);
      const ok = !!role && password === users[role].password;
      if (!ok) counters.badLogins += 1;
      return ok;
    },
    // Twin = Operator (writes commands), edge = Engineer (writes states); both may read all.
    getUserRoles(user) {
      const role = roleOf(users, user);
      const roles = [WellKnownRoles.AuthenticatedUser];
      if (role === 'twin') roles.push(WellKnownRoles.Operator);
      if (role === 'edge') roles.push(WellKnownRoles.Engineer);
      return opcua.makeRoles(roles);
    },
  };
}

/**
 * Who wrote, from the context of a write: the session's user name, or 'anonymous'.
 * @param {object} context node-opcua's SessionContext
 * @returns {string}
 */
function whoOf(context) {
  const token = context && context.session && context.session.userIdentityToken;
  return (token && token.userName) || 'anonymous';
}

module.exports = { roleOf, createUserManager, whoOf };
