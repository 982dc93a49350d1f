'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseTokens, requestToken, createChecker } = require('../../../../nodes/lib/access/auth');

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

// --- plant-scoped tokens (one cloud, many plants) ---
const { parseGrants, mergeGrants, createGrantChecker, grantPlant, requestPlant, tokenId } = require('../../../../nodes/lib/access/auth');

test('parseGrants reads token:role:plant[|plant...] and refuses bad entries without naming the token', () => {
  assert.deepEqual(parseGrants('e1:edge:line1, t:wo:rd:twin:line1|line2\nv:viewer:*'), [
    { token: 'e1', role: 'edge', plants: ['line1'] },
    { token: 't:wo:rd', role: 'twin', plants: ['line1', 'line2'] },
    { token: 'v', role: 'viewer', plants: '*' },
  ]);
  assert.deepEqual(parseGrants(''), []);
  assert.deepEqual(parseGrants(undefined), []);
  for (const bad of ['secret', 'secret:twin', ':twin:p1', 'secret:admin:p1', 'secret:twin:p/1', 'secret:twin:', 'secret:twin:p1|']) {
    assert.throws(() => parseGrants(bad), (e) => e.code === 'E_TOKENS' && !e.message.includes('secret'), bad);
  }
});

test('mergeGrants: one role per token, plants merged; the plain lists are scoped to their plant', () => {
  const g = mergeGrants([
    { tokens: ['tw'], role: 'twin', plant: 'plant1' },
    { tokens: ['ed'], role: 'edge', plant: 'plant1' },
  ], parseGrants('tw:twin:plant2,ed2:edge:plant2,any:viewer:*,v2:viewer:plant2,v2:viewer:*'));
  const by = Object.fromEntries(g.map((x) => [x.token, x]));
  assert.deepEqual(by.tw.plants, ['plant1', 'plant2']);
  assert.deepEqual(by.ed.plants, ['plant1']);
  assert.equal(by.any.plants, '*');
  assert.equal(by.v2.plants, '*');
  assert.throws(() => mergeGrants([{ tokens: ['x'], role: 'twin', plant: 'p' }, { tokens: ['x'], role: 'edge', plant: 'p' }]),
    (e) => e.code === 'E_TOKENS' && /both as twin and as edge/.test(e.message));
  assert.throws(() => mergeGrants([{ tokens: ['x'], role: 'twin', plant: 'bad plant' }]), (e) => e.code === 'E_TOKENS');
});

test('a grant checker finds the grant of a token; grantPlant picks the plant or says why not', () => {
  const check = createGrantChecker(parseGrants('one:twin:a,two:twin:a|b,all:viewer:*'));
  assert.deepEqual(check('one'), { role: 'twin', plants: ['a'], id: tokenId('one') });
  assert.match(tokenId('one'), /^[0-9a-f]{12}$/, 'a fingerprint: 12 hex digits of its SHA-256, never the token');
  assert.notEqual(tokenId('one'), tokenId('two'));
  assert.equal(check('on'), null);
  assert.equal(check(''), null);
  assert.deepEqual(grantPlant(check('one'), null), { plant: 'a' }, 'its only plant');
  assert.deepEqual(grantPlant(check('one'), 'a'), { plant: 'a' });
  assert.equal(grantPlant(check('one'), 'b').status, 403);
  assert.equal(grantPlant(check('two'), null).status, 400, 'several plants: name one');
  assert.deepEqual(grantPlant(check('two'), 'b'), { plant: 'b' });
  assert.deepEqual(grantPlant(check('all'), 'zz'), { plant: 'zz' });
  assert.equal(grantPlant(check('all'), null).status, 400);
  assert.equal(grantPlant(check('all'), '../x').status, 400);
  assert.equal(requestPlant({ url: '/s7twin/twin?plant=line2&token=x' }), 'line2');
  assert.equal(requestPlant({ url: '/s7twin/twin' }), null);
});

test('plantTokens: the twin and viewer tokens of one plant among the grants (REST node, browser twin)', () => {
  const { mergeGrants, parseGrants, plantTokens } = require('../../../../nodes/lib/access/auth');
  const grants = mergeGrants([{ tokens: ['tw1'], role: 'twin', plant: 'plant1' }, { tokens: ['ed1'], role: 'edge', plant: 'plant1' }],
    parseGrants('all:twin:*,two:twin:plant2|plant3,v2:viewer:plant2,e2:edge:plant2'));
  assert.deepEqual(plantTokens(grants, 'plant1'), { tokens: ['tw1', 'all'], viewerTokens: [] });
  assert.deepEqual(plantTokens(grants, 'plant2'), { tokens: ['all', 'two'], viewerTokens: ['v2'] });
  assert.deepEqual(plantTokens(undefined, 'plant2', { token: 'a,b', viewerToken: 'c' }), { tokens: ['a', 'b'], viewerTokens: ['c'] },
    'no grants: the plain lists');
});
