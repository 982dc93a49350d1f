'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { codedError } = require('../../../../nodes/lib/core/errors');

test('codedError makes a named Error subclass with a stable code and extra fields', () => {
  const DemoError = codedError('DemoError');
  const err = new DemoError('E_DEMO', 'it broke', { ref: { src: 'a', seq: 1 } });
  assert.ok(err instanceof Error);
  assert.ok(err instanceof DemoError);
  assert.equal(err.name, 'DemoError');
  assert.equal(DemoError.name, 'DemoError');
  assert.equal(err.code, 'E_DEMO');
  assert.equal(err.message, 'it broke');
  assert.deepEqual(err.ref, { src: 'a', seq: 1 });
  assert.match(String(err), /^DemoError: it broke$/);
});
