'use strict';
/**
 * The error-code catalogue: every entry well formed, every `E_*` code the source raises listed,
 * every listed code still used, every code the user docs name listed, and the twin's resync set
 * the catalogue's.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { PARTS, AREAS, CODES, describe, mustResync } = require('../../../../nodes/lib/core/error-codes');

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const CODE_RE = /\bE_[A-Z0-9_]+/g;
const SOURCE_DIRS = ['nodes', 'plc', 'twin', 'bench', 'scripts', 'system'];
const SOURCE_EXT = /\.(?:js|mjs|cjs)$/;
const SKIP = [/^bench\/results\//, /(^|\/)node_modules\//, /^nodes\/lib\/core\/error-codes\.js$/];

/** Repository-relative paths of the files under `dir` whose names pass `keep`. */
function filesUnder(dir, keep) {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true })
    .map((f) => path.posix.join(dir, String(f).split(path.sep).join('/')))
    .filter((f) => keep(f) && !SKIP.some((re) => re.test(f)) && fs.statSync(path.join(ROOT, f)).isFile());
}

/** Code → the files that name it, over the source the catalogue must cover. */
function codesInSource() {
  const found = new Map();
  const note = (text, where) => {
    for (const c of text.match(CODE_RE) || []) {
      if (!found.has(c)) found.set(c, new Set());
      found.get(c).add(where);
    }
  };
  const files = [...SOURCE_DIRS.flatMap((d) => filesUnder(d, (f) => SOURCE_EXT.test(f))), 'settings.js'];
  for (const f of files) note(fs.readFileSync(path.join(ROOT, f), 'utf8'), f);
  // The flows' function nodes run code too (the rest of a flow is configuration and prose).
  for (const f of fs.readdirSync(path.join(ROOT, 'flows')).filter((n) => n.endsWith('.json'))) {
    for (const n of JSON.parse(fs.readFileSync(path.join(ROOT, 'flows', f), 'utf8'))) {
      if (n.type === 'function') note([n.func, n.initialize, n.finalize].filter(Boolean).join('\n'), `flows/${f} ${n.id}`);
    }
  }
  return found;
}

/** Whether a code found in text is listed: exactly, or (ending in `_`) as a family or a prefix of listed codes. */
function listed(code) {
  if (Object.hasOwn(CODES, code)) return true;
  return code.endsWith('_') && Object.keys(CODES).some((k) => k.startsWith(code));
}

test('every entry names its section, its parts and one sentence a user can act on', () => {
  for (const [code, e] of Object.entries(CODES)) {
    assert.match(code, /^E_[A-Z0-9_]+$/, code);
    assert.ok(Object.hasOwn(AREAS, e.area), `${code}: unknown area ${e.area}`);
    assert.ok(Array.isArray(e.by) && e.by.length > 0 && e.by.every((p) => Object.hasOwn(PARTS, p)), `${code}: by ${e.by}`);
    assert.equal(new Set(e.by).size, e.by.length, `${code}: a part twice`);
    assert.equal(typeof e.resync, 'boolean', `${code}: resync`);
    assert.ok(typeof e.means === 'string' && e.means.length >= 20 && /[.?]$/.test(e.means), `${code}: means "${e.means}"`);
    assert.doesNotMatch(e.means, /\b(?:issue|contract) \d+|#\d{2}\b/i, `${code}: a reason, not an issue number`);
    assert.equal(code.endsWith('_'), typeof e.family === 'string', `${code}: a key ending in _ is a family and names its last part`);
  }
  for (const [key, a] of Object.entries(AREAS)) {
    assert.ok(a.title && a.where, key);
    assert.ok(Object.values(CODES).some((e) => e.area === key), `area ${key} has no code`);
  }
});

test('every E_* code the source raises is in the catalogue', () => {
  const missing = [...codesInSource()].filter(([c]) => !listed(c)).map(([c, where]) => `${c} (${[...where].join(', ')})`);
  assert.deepEqual(missing, [], 'add these to nodes/lib/core/error-codes.js, then run node scripts/errors-md.js --write');
});

test('every code in the catalogue is still used somewhere in the source', () => {
  const used = codesInSource();
  const unused = Object.keys(CODES).filter((c) => !used.has(c));
  assert.deepEqual(unused, [], 'remove these from nodes/lib/core/error-codes.js (or the source lost them by mistake)');
});

test('every code the user docs and the nodes\' help name is in the catalogue', () => {
  const docs = ['README.md', ...filesUnder('docs', (f) => f.endsWith('.md')), ...filesUnder('nodes', (f) => f.endsWith('.html'))];
  const unknown = [];
  for (const f of docs) {
    for (const c of fs.readFileSync(path.join(ROOT, f), 'utf8').match(CODE_RE) || []) if (!listed(c)) unknown.push(`${c} in ${f}`);
  }
  assert.deepEqual(unknown, []);
});

test('the twin resyncs after exactly the answers the catalogue marks', () => {
  const { RESYNC_CODES } = require('../../../../twin/transports/answers');
  const marked = Object.keys(CODES).filter((c) => CODES[c].resync).sort();
  assert.deepEqual(marked, [...RESYNC_CODES].sort());
  for (const c of marked) assert.equal(mustResync(c), true, c);
  assert.equal(mustResync('E_RANGE'), false);
  assert.equal(mustResync('E_NO_SUCH_CODE'), false);
  assert.equal(mustResync(undefined), false);
});

test('describe finds a code, and a family member by its family', () => {
  assert.equal(describe('E_PLC_DOWN').area, 'answer');
  assert.equal(describe('E_PLC_DOWN').code, 'E_PLC_DOWN');
  assert.equal(describe('E_HTTP_503').code, 'E_HTTP_');
  assert.equal(describe('E_HTTP_NETWORK').code, 'E_HTTP_NETWORK', 'a listed code wins over its family');
  assert.equal(describe('E_MODBUS_EXCEPTION_2').code, 'E_MODBUS_EXCEPTION_');
  assert.equal(describe('E_HTTP_'), undefined, 'a family key alone is no code');
  assert.equal(describe('E_NO_SUCH_CODE'), undefined);
  assert.equal(describe(42), undefined);
});
