'use strict';
/**
 * Every repository path the user docs name exists, and every link to a section lands on a
 * heading: a file moved or renamed, or a section renamed, must take the docs with it. Checked over
 * README.md and docs/*.md, for paths under the repository's own folders (in backticks, in links,
 * or in the text; of a glob or a placeholder, its folder).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { anchor } = require('../../scripts/errors-md');

const ROOT = path.join(__dirname, '..', '..');
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const FOLDERS = ['nodes', 'test', 'plc', 'twin', 'bench', 'scripts', 'flows', 'docs', 'examples', 'subflows', 'resources', 'system'];
const PATH_RE = new RegExp(`(?<![\\w./-])(?:\\.\\.?/)?((?:${FOLDERS.join('|')})/[A-Za-z0-9_./-]*[A-Za-z0-9_/])`, 'g');

/** The repository paths a Markdown text names (the folder of a glob or a placeholder). */
function pathsIn(text) {
  const out = new Set();
  for (const m of text.matchAll(PATH_RE)) {
    // A glob or a placeholder (`test/e2e/*.test.js`, `twin/transports/<protocol>.js`): its folder must exist.
    const p = /^[\w.-]*[*<{$]/.test(text.slice(m.index + m[0].length)) ? m[1].replace(/[^/]*$/, '') : m[1];
    if (p) out.add(p);
  }
  return out;
}

test('every repository path named in README.md and docs/*.md exists', () => {
  const missing = [];
  for (const f of DOCS) {
    for (const p of pathsIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))) {
      if (!fs.existsSync(path.join(ROOT, p)) && !fs.existsSync(path.join(ROOT, `${p}.js`))) missing.push(`${f}: ${p}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the path finder sees backticked, linked and bare paths, and the folders of globs and placeholders', () => {
  const found = pathsIn('see `nodes/lib/core/io-table.js`, [x](../plc/cli.js), test/e2e/ws.test.js. ' +
    'test/unit/*.test.js bench/flows/stock-*.json twin/transports/<p>.js');
  assert.deepEqual([...found].sort(), ['bench/flows/', 'nodes/lib/core/io-table.js', 'plc/cli.js', 'test/e2e/ws.test.js', 'test/unit/', 'twin/transports/']);
});

/** The anchors of a Markdown file's headings, as GitHub makes them (a repeated heading gets -1, -2, …). */
function anchorsOf(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of text.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const a = anchor(m[1]);
    const n = seen.get(a) || 0;
    seen.set(a, n + 1);
    out.add(n ? `${a}-${n}` : a);
  }
  return out;
}

test('every link to a section of README.md or a docs page names one of its headings', () => {
  const bad = [];
  for (const f of DOCS) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s#]*\.md)?#([^)\s]+)\)/g)) {
      const target = m[1] ? path.posix.normalize(path.posix.join(path.posix.dirname(f), m[1])) : f;
      if (!fs.existsSync(path.join(ROOT, target))) { bad.push(`${f}: ${m[1]} does not exist`); continue; }
      if (!anchorsOf(fs.readFileSync(path.join(ROOT, target), 'utf8')).has(m[2])) bad.push(`${f}: ${target}#${m[2]}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('anchors follow GitHub: punctuation dropped, a repeated heading numbered', () => {
  const a = anchorsOf('# The study\'s own stacks, side by side (2026-11-24)\n## Tests\n```\n# not a heading\n```\n## Tests\n');
  assert.deepEqual([...a], ['the-studys-own-stacks-side-by-side-2026-11-24', 'tests', 'tests-1']);
});
