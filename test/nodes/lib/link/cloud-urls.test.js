'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseCloudUrls, createRotation, redact } = require('../../../../nodes/lib/link/cloud-urls');

test('parseCloudUrls: a comma-separated list of ws(s) URLs, the plant added where none is named', () => {
  assert.deepEqual(parseCloudUrls(' ws://a:1/s7twin/edge , wss://b/s7twin/edge?plant=x', { plant: 'p1' }), ['ws://a:1/s7twin/edge?plant=p1', 'wss://b/s7twin/edge?plant=x']);
  assert.deepEqual(parseCloudUrls(['ws://a/t']), ['ws://a/t']);
  for (const bad of ['', ' , ', 'http://a/x', 'a:1/x']) assert.throws(() => parseCloudUrls(bad), (e) => e.code === 'E_URL', bad);
  assert.throws(() => parseCloudUrls('ws://a/x', { plant: 'a/b' }), (e) => e.code === 'E_PLANT');
});

test('createRotation goes round the list; one URL stays put', () => {
  const r = createRotation(['a', 'b', 'c']);
  assert.equal(r.url, 'a');
  assert.deepEqual([r.next(), r.next(), r.next()], ['b', 'c', 'a']);
  assert.equal(r.switches, 3);
  const one = createRotation(['only']);
  assert.equal(one.next(), 'only');
  assert.equal(one.switches, 0);
  assert.equal(redact('ws://a/x?plant=p&token=secret'), 'ws://a/x?plant=p&token=***');
});
