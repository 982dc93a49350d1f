'use strict';
/** docs/errors.md is the catalogue rendered, and every link into it from the docs lands on a heading. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { render, anchor, OUT } = require('../../scripts/errors-md');
const { CODES } = require('../../nodes/lib/core/error-codes');

const ROOT = path.join(__dirname, '..', '..');

test('the committed docs/errors.md is what the catalogue renders', () => {
  assert.equal(fs.readFileSync(OUT, 'utf8'), render(), 'run: node scripts/errors-md.js --write');
});

test('the page lists every code once, in a table row of its own', () => {
  const page = render();
  for (const [code, e] of Object.entries(CODES)) {
    const rows = page.split('\n').filter((l) => l.startsWith(`| \`${code}${e.family || ''}\` |`));
    assert.equal(rows.length, 1, code);
    assert.ok(rows[0].endsWith(e.resync ? '| yes |' : '| no |'), code);
  }
});

test('anchors are GitHub\'s slugs of the headings', () => {
  assert.equal(anchor('Fleet (Redis backplane)'), 'fleet-redis-backplane');
  assert.equal(anchor('Connections, tokens and per-peer limits'), 'connections-tokens-and-per-peer-limits');
});

test('every link to errors.md#… in README.md and docs/ names a section of the page', () => {
  const headings = new Set(render().split('\n').filter((l) => l.startsWith('## ')).map((l) => anchor(l.slice(3))));
  const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const bad = [];
  let links = 0;
  for (const f of files) {
    for (const m of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/errors\.md#([a-z0-9-]+)/g)) {
      links += 1;
      if (!headings.has(m[1])) bad.push(`${f}: #${m[1]}`);
    }
  }
  assert.deepEqual(bad, []);
  assert.ok(links > 0, 'the docs link into the catalogue');
});
