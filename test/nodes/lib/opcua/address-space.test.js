'use strict';
/**
 * nodes/lib/opcua/address-space.js: the write hook and the role permissions (the variables
 * themselves are checked against real node-opcua in server.test.js and probes.test.js).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { hookWrites, permissionsFor } = require('../../../../nodes/lib/opcua/address-space');

const code = (name) => ({ name, isGood: () => name === 'Good' });
const StatusCodes = { Good: code('Good'), BadUserAccessDenied: code('BadUserAccessDenied'), BadTypeMismatch: code('BadTypeMismatch') };
const opcua = { AttributeIds: { Value: 13, DisplayName: 4 }, StatusCodes };

/** A variable whose writeAttribute answers `status`, in node-opcua's two call styles. */
function variable(status) {
  return {
    calls: 0,
    writeAttribute(context, writeValue, cb) {
      this.calls += 1;
      if (cb) { setImmediate(() => cb(null, status)); return undefined; }
      return Promise.resolve(status);
    },
  };
}

test('each write of a Value is seen: begun before it happens, settled with good, denied or failed', async () => {
  for (const [status, outcome] of [[StatusCodes.Good, 'good'], [StatusCodes.BadUserAccessDenied, 'denied'], [StatusCodes.BadTypeMismatch, 'failed']]) {
    const v = variable(status);
    const seen = [];
    hookWrites(v, opcua, (context) => { seen.push(`begin ${context.who}`); return (o) => seen.push(o); });
    // promise style
    assert.equal(await v.writeAttribute({ who: 'p' }, { attributeId: 13 }), status);
    // callback style
    const answered = await new Promise((resolve) => v.writeAttribute({ who: 'c' }, { attributeId: 13 }, (err, s) => resolve(s)));
    assert.equal(answered, status);
    assert.deepEqual(seen, ['begin p', outcome, 'begin c', outcome]);
    assert.equal(v.calls, 2, 'the original write ran each time');
  }
});

test('writes of other attributes, and writes without a status, are not settled', async () => {
  const v = variable(StatusCodes.Good);
  const seen = [];
  hookWrites(v, opcua, () => (o) => seen.push(o));
  await v.writeAttribute({}, { attributeId: 4 });
  const none = variable(undefined);
  hookWrites(none, opcua, () => (o) => seen.push(o));
  await none.writeAttribute({}, { attributeId: 13 });
  assert.deepEqual(seen, []);
});

test('permissions: authenticated users read, the one writer writes, anonymous only when allowed', () => {
  const PermissionType = { Browse: 1, Read: 2, ReadRolePermissions: 4, Write: 8 };
  const WellKnownRoles = { Anonymous: 'anon', AuthenticatedUser: 'auth', Operator: 'op' };
  const closed = permissionsFor({ PermissionType, WellKnownRoles }, WellKnownRoles.Operator, false);
  assert.deepEqual(closed, [
    { roleId: 'anon', permissions: 0 }, { roleId: 'auth', permissions: 7 }, { roleId: 'op', permissions: 15 },
  ]);
  assert.equal(permissionsFor({ PermissionType, WellKnownRoles }, 'op', true)[0].permissions, 7);
});
