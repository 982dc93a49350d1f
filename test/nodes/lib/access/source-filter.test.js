'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSourceFilter, plainAddress } = require('../../../../nodes/lib/access/source-filter');

test('source filter: addresses, blocks and IPv4-mapped addresses match without a lookup', async () => {
  const f = createSourceFilter('10.0.0.5, 192.168.10.0/24 fd00::/8', { lookup: () => { throw new Error('no lookup expected'); } });
  assert.equal(f.hasNames, false);
  for (const a of ['10.0.0.5', '::ffff:10.0.0.5', '192.168.10.77', 'fd00::1']) assert.equal(await f.matches(a), true, a);
  for (const a of ['10.0.0.6', '192.168.11.1', '::1', '', undefined]) assert.equal(await f.matches(a), false, String(a));
  assert.equal(plainAddress('::FFFF:1.2.3.4'), '1.2.3.4');
});

test('source filter: names are resolved when asked about, kept for ttlMs, then looked up again', async () => {
  let now = 0;
  let address = '172.20.0.5';
  let lookups = 0;
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const f = createSourceFilter(['edge'], { ttlMs: 5000, lookup: async (name) => { lookups += 1; assert.equal(name, 'edge'); return [{ address }]; } });
    assert.equal(f.matchesNow('172.20.0.5'), false, 'nothing resolved before the first question');
    assert.equal(await f.matches('172.20.0.5'), true);
    assert.equal(f.matchesNow('172.20.0.5'), true);
    address = '172.20.0.9'; // the edge container came back with a new address
    now += 1000;
    assert.equal(await f.matches('172.20.0.9'), false, 'within the ttl the old answer stands');
    now += 5000;
    assert.equal(await f.matches('172.20.0.9'), true);
    assert.equal(await f.matches('172.20.0.5'), false);
    assert.equal(lookups, 2);
  } finally {
    Date.now = realNow;
  }
});

test('source filter: a name that does not resolve matches nothing; a malformed entry is E_SOURCES', async () => {
  const f = createSourceFilter('no-such-host.invalid', { lookup: async () => { throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }); } });
  assert.equal(await f.matches('127.0.0.1'), false);
  assert.throws(() => createSourceFilter('10.0.0.0/33'), { code: 'E_SOURCES' });
  assert.throws(() => createSourceFilter('edge;rm -rf'), { code: 'E_SOURCES' });
});

test('source filter: a real lookup of localhost', async () => {
  assert.equal(await createSourceFilter('localhost').matches('127.0.0.1'), true);
});
