'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseTokens, requestToken, createChecker } = require('../../nodes/lib/auth');

test('parseTokens splits comma lists and drops blanks', () => {
  assert.deepEqual(parseTokens(' a, b ,,c '), ['a', 'b', 'c']);
  assert.deepEqual(parseTokens(undefined), []);
  assert.deepEqual(parseTokens(['x ', '']), ['x']);
});

test('requestToken reads the Bearer header first, then ?token=', () => {
  assert.equal(requestToken({ headers: { authorization: 'Bearer abc' }, url: '/p?token=zzz' }), 'abc');
  assert.equal(requestToken({ headers: { authorization: 'bearer  abc ' }, url: '/p' }), 'abc');
  assert.equal(requestToken({ headers: {}, url: '/p?token=q%20r' }), 'q r');
  assert.equal(requestToken({ headers: { authorization: 'Basic xyz' }, url: '/p' }), '');
  assert.equal(requestToken({ headers: {}, url: '/p' }), '');
});

test('the checker accepts only configured tokens, of any length, and refuses empty input', () => {
  const check = createChecker(['short', 'a-much-longer-token-value']);
  assert.equal(check('short'), true);
  assert.equal(check('a-much-longer-token-value'), true);
  assert.equal(check('shor'), false);
  assert.equal(check('short '), false);
  assert.equal(check(''), false);
  assert.equal(createChecker([])('anything'), false);
});
