'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { tagIds } = require('../../../../nodes/lib/core/tag-ids');
const tags = require('../../../../nodes/lib/core/io-table').demoTable();

test('a tag\'s id is its place in the table, both ways, and ids outside the table name nothing', () => {
  const ids = tagIds(tags);
  assert.equal(ids.size, tags.tags.length);
  tags.tags.forEach((t, i) => {
    assert.equal(ids.idOf(t.short), i);
    assert.equal(ids.shortOf(i), t.short);
  });
  assert.equal(ids.idOf('nope'), undefined);
  for (const bad of [-1, tags.tags.length, 1.5, '1', null]) assert.equal(ids.shortOf(bad), undefined);
});

test('another table numbers its own tags; the same table gives the same object', () => {
  const tank = { tags: [{ short: 'lvl' }, { short: 'sp' }, { short: 'rcp' }] };
  assert.equal(tagIds(tank).idOf('sp'), 1);
  assert.equal(tagIds(tank).idOf('se'), undefined);
  assert.equal(tagIds(tank), tagIds(tank));
});
