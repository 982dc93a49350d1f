'use strict';
/** The driver lease client (twin/browser/lease-client.js), against a stand-in fetch. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createLeaseClient } = require('../../../twin/browser/lease-client');

function fakeFetch(answer) {
  const calls = [];
  const fetch = async (url, init = {}) => { calls.push({ url, ...init }); return answer(url, init); };
  return { fetch, calls };
}
const reply = (status, body) => ({ status, json: async () => (body === undefined ? JSON.parse('not json') : body) });

test('claim, release and who, with the token as a Bearer header, relative to the page or a base', async () => {
  const f = fakeFetch((url) => (url.endsWith('session') ? reply(200, { role: 'twin', driver: null }) : reply(200, { granted: true, holder: { id: 'p1' } })));
  const l = createLeaseClient({ fetch: f.fetch, base: 'http://h/ui', token: 'T', id: 'p 1', label: 'Room 2' });
  assert.deepEqual(await l.claim(true), { status: 200, granted: true, holder: { id: 'p1' }, code: undefined });
  assert.equal(f.calls[0].url, 'http://h/ui/driver');
  assert.equal(f.calls[0].method, 'POST');
  assert.equal(f.calls[0].headers.Authorization, 'Bearer T');
  assert.deepEqual(JSON.parse(f.calls[0].body), { id: 'p 1', force: true, label: 'Room 2' });
  await l.release();
  assert.equal(f.calls[1].url, 'http://h/ui/driver?id=p%201');
  assert.equal(f.calls[1].method, 'DELETE');
  assert.equal(f.calls[1].keepalive, true, 'a page going away still gives the lease back');
  assert.deepEqual(await l.who(), { status: 200, role: 'twin', driver: null });
  const rel = createLeaseClient({ fetch: f.fetch, token: 'T', id: 'x' });
  await rel.who();
  assert.equal(f.calls.at(-1).url, 'session', 'relative to the page');
});

test('a refusal or an unreadable body is an answer, not a crash', async () => {
  const f = fakeFetch(() => reply(403, { granted: false, error: { code: 'E_READ_ONLY' } }));
  const refused = await createLeaseClient({ fetch: f.fetch, token: 'V', id: 'v' }).claim();
  assert.deepEqual(refused, { status: 403, granted: false, holder: null, code: 'E_READ_ONLY' });
  const g = fakeFetch(() => reply(502));
  assert.deepEqual(await createLeaseClient({ fetch: g.fetch, token: 'V', id: 'v' }).claim(), { status: 502, granted: false, holder: null, code: undefined });
});
