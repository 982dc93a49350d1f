'use strict';
/**
 * lib/link/admission.js: which token opens which endpoint, for which plant, before any upgrade.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createAdmission } = require('../../../../nodes/lib/link/admission');
const { parseGrants, tokenId } = require('../../../../nodes/lib/access/auth');

const req = (token, plant) => ({ url: `/s7twin/twin${plant ? `?plant=${plant}` : ''}`, headers: token ? { authorization: `Bearer ${token}` } : {} });

test('twin endpoint: twin and viewer tokens of its plant; no token, an edge token, a wrong one are 401', () => {
  const a = createAdmission({ role: 'twin', tokens: ['tw'], viewerTokens: ['vw'], plant: 'p1', grants: parseGrants('ed:edge:p1') });
  assert.deepEqual(a.admit(req('tw')), { plant: 'p1', viewer: false, who: { token: tokenId('tw'), role: 'twin' } });
  assert.deepEqual(a.admit(req('vw')), { plant: 'p1', viewer: true, who: { token: tokenId('vw'), role: 'viewer' } });
  for (const t of [undefined, 'ed', 'nope']) assert.deepEqual(a.admit(req(t)), { status: 401, text: 'Unauthorized', reason: 'token' });
  assert.equal(a.onlyPlant, 'p1');
  assert.equal(a.resolvePlant(), 'p1');
  assert.equal(a.resolvePlant('p2'), 'p2');
});

test('edge endpoint: edge tokens only; scoped tokens name their plants (403 outside them, 400 when several and none named)', () => {
  const a = createAdmission({ role: 'edge', tokens: [], grants: parseGrants('ea:edge:a,eab:edge:a|b,ta:twin:a') });
  assert.deepEqual(a.admit(req('ea')), { plant: 'a', viewer: false, who: { token: tokenId('ea'), role: 'edge' } });
  assert.deepEqual(a.admit(req('eab', 'b')), { plant: 'b', viewer: false, who: { token: tokenId('eab'), role: 'edge' } });
  const scope = a.admit(req('ea', 'b'));
  assert.equal(scope.status, 403);
  assert.equal(scope.reason, 'plant-scope');
  assert.match(scope.text, /^Forbidden: /);
  const which = a.admit(req('eab'));
  assert.equal(which.status, 400);
  assert.match(which.text, /^Bad Request: .*\?plant=/);
  assert.equal(a.admit(req('ta')).status, 401, 'a twin token opens no edge endpoint');
  assert.equal(a.onlyPlant, null, 'serves two plants: a frame must name one');
  assert.equal(a.resolvePlant(), null);
});

test('an auditor token opens no link endpoint (it reads the command log only)', () => {
  const grants = parseGrants('au:auditor:*');
  assert.equal(createAdmission({ role: 'twin', tokens: ['tw'], grants }).admit(req('au')).status, 401);
  assert.equal(createAdmission({ role: 'edge', tokens: ['ed'], grants }).admit(req('au')).status, 401);
});

test('a token listed for two roles is refused when the endpoint is made (E_TOKENS)', () => {
  assert.throws(() => createAdmission({ role: 'twin', tokens: ['same'], grants: parseGrants('same:edge:plant1') }), (e) => e.code === 'E_TOKENS');
});
