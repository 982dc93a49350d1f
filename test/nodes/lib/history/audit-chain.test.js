'use strict';
/**
 * lib/history/audit-chain.js: the hash chain finds an edited, removed, reordered or cut entry,
 * and names the first bad line.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { GENESIS, canonical, entryHash, seal, verifyText } = require('../../../../nodes/lib/history/audit-chain');

/** A chain of `n` command entries as the file holds them, and its head. */
function chain(n) {
  let tip = { n: 0, hash: GENESIS };
  const lines = [];
  for (let i = 1; i <= n; i += 1) {
    const e = seal({ t: 1000 + i, kind: 'cmd', plant: 'p1', src: 'twin-1', seq: i, d: { se: i % 2 } }, tip);
    tip = { n: e.n, hash: e.hash };
    lines.push(JSON.stringify(e));
  }
  return { lines, head: tip, text: (ls = lines) => `${ls.join('\n')}\n` };
}

test('canonical text sorts keys at every depth and drops undefined; the hash is SHA-256 over prev and it', () => {
  assert.equal(canonical({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' }, u: undefined }), '{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
  const e = { kind: 'cmd', n: 1, prev: GENESIS, t: 5 };
  const expected = crypto.createHash('sha256').update(`${GENESIS}\n${canonical(e)}`).digest('hex');
  assert.equal(entryHash({ ...e, hash: 'ignored' }), expected);
  assert.equal(GENESIS, crypto.createHash('sha256').update('s7twin command log v1').digest('hex'), 'the anchor anyone can recompute');
});

test('an untouched chain verifies, with and without its head; an empty log is an empty chain', () => {
  const c = chain(5);
  assert.deepEqual(verifyText(c.text(), c.head), { ok: true, entries: 5, tip: c.head });
  assert.equal(verifyText(c.text()).ok, true);
  assert.deepEqual(verifyText('', { n: 0, hash: GENESIS }), { ok: true, entries: 0, tip: { n: 0, hash: GENESIS } });
  // Formatting does not matter: the hash is over canonical text.
  const spaced = c.lines.map((l) => JSON.stringify(JSON.parse(l), null, 0).replace(/,/g, ', '));
  assert.equal(verifyText(c.text(spaced), c.head).ok, true);
});

test('an edited value is found at its line', () => {
  const c = chain(5);
  const lines = [...c.lines];
  lines[2] = lines[2].replace('"se":1', '"se":0');
  const r = verifyText(c.text(lines), c.head);
  assert.equal(r.ok, false);
  assert.equal(r.bad.line, 3);
  assert.match(r.bad.why, /edited/);
  assert.equal(r.entries, 2, 'the chain holds up to the entry before it');
});

test('an edited entry whose hash was recomputed breaks the link of the next line', () => {
  const c = chain(5);
  const e = JSON.parse(c.lines[1]);
  e.d = { se: 1, st: 1 };
  e.hash = entryHash(e);
  const lines = [...c.lines];
  lines[1] = JSON.stringify(e);
  const r = verifyText(c.text(lines), c.head);
  assert.equal(r.bad.line, 3);
  assert.match(r.bad.why, /does not follow/);
});

test('a removed entry, in the middle or first, is found', () => {
  const c = chain(5);
  const mid = verifyText(c.text([...c.lines.slice(0, 2), ...c.lines.slice(3)]), c.head);
  assert.deepEqual([mid.ok, mid.bad.line], [false, 3]);
  assert.match(mid.bad.why, /entry 4 where entry 3 belongs/);
  const first = verifyText(c.text(c.lines.slice(1)), c.head);
  assert.deepEqual([first.ok, first.bad.line], [false, 1]);
});

test('reordered entries are found at the first one out of place', () => {
  const c = chain(5);
  const lines = [c.lines[0], c.lines[2], c.lines[1], c.lines[3], c.lines[4]];
  const r = verifyText(c.text(lines), c.head);
  assert.deepEqual([r.ok, r.bad.line], [false, 2]);
  assert.match(r.bad.why, /removed or reordered/);
});

test('a cut tail is found against the head, not by the chain alone', () => {
  const c = chain(5);
  const cut = c.text(c.lines.slice(0, 3));
  assert.equal(verifyText(cut).ok, true, 'the chain alone cannot see its end cut off: the head exists for that');
  const r = verifyText(cut, c.head);
  assert.equal(r.ok, false);
  assert.equal(r.bad.line, 4);
  assert.match(r.bad.why, /ends at entry 3 but its head says 5/);
  // The last entry replaced by another with a valid hash: the head's hash differs.
  const other = seal({ t: 1, kind: 'cmd', plant: 'p1', src: 'x', seq: 1 }, { n: 4, hash: JSON.parse(c.lines[3]).hash });
  const replaced = verifyText(c.text([...c.lines.slice(0, 4), JSON.stringify(other)]), c.head);
  assert.equal(replaced.ok, false);
  assert.match(replaced.bad.why, /head/);
});

test('a line cut short or garbage is named, and nothing after it is trusted', () => {
  const c = chain(3);
  const torn = verifyText(`${c.lines[0]}\n${c.lines[1].slice(0, 40)}\n${c.lines[2]}\n`, c.head);
  assert.deepEqual([torn.ok, torn.bad.line], [false, 2]);
  assert.match(torn.bad.why, /not a whole JSON entry/);
  assert.equal(verifyText('[]\n').bad.why, 'is not a JSON object');
  assert.equal(verifyText('{"n":1}\n').bad.why, 'has no hash or prev');
});
