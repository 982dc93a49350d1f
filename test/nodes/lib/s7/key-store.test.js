'use strict';
/** nodes/lib/s7/key-store.js: keys with their outcomes, bounded, kept across a restart in an append-only file. */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createKeyStore } = require('../../../../nodes/lib/s7/key-store');

function tmpFile(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-keys-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'sub', 'edge.jsonl');
}
const begin = (store, key, c) => new Promise((resolve) => store.begin(key, c, resolve));

test('a key is recorded before its write and its outcome after; copies that waited get the outcome', async (t) => {
  const store = createKeyStore({ file: tmpFile(t) });
  t.after(() => store.close());
  assert.equal(store.get('k1'), null);
  assert.equal(await begin(store, 'k1', '[["st",1]]'), undefined);
  const rec = store.get('k1');
  assert.deepEqual([rec.c, rec.o], ['[["st",1]]', null], 'in flight');
  rec.waiters.push('copy');
  assert.deepEqual(store.finish('k1', { k: 'ack' }), ['copy']);
  assert.deepEqual(store.get('k1').o, { k: 'ack' });
  assert.deepEqual(store.finish('k1', { k: 'err', code: 'E_WRITE', msg: 'x' }), [], 'the first outcome stays');
  assert.deepEqual(store.get('k1').o, { k: 'ack' });
  assert.equal(store.settle('k2', '[]', { k: 'err', code: 'E_EXPIRED', msg: 'late' }), null);
  assert.equal(store.get('k2').o.code, 'E_EXPIRED');
});

test('kept across a restart: outcomes come back, a write that was on its way is E_OUTCOME_UNKNOWN; the file is compacted', async (t) => {
  const file = tmpFile(t);
  const a = createKeyStore({ file, compactMinLines: 10 });
  await begin(a, 'done', 'c1');
  a.finish('done', { k: 'ack' });
  await begin(a, 'cut', 'c2'); // the edge is killed with this write on its way
  a.close();
  const b = createKeyStore({ file, compactMinLines: 10 });
  t.after(() => b.close());
  assert.deepEqual(b.get('done').o, { k: 'ack' });
  assert.equal(b.get('cut').o.code, 'E_OUTCOME_UNKNOWN');
  assert.equal(b.counters.unknownAfterRestart, 1);
  for (let i = 0; i < 20; i += 1) { await begin(b, `x${i}`, 'c'); b.finish(`x${i}`, { k: 'ack' }); }
  assert.ok(b.counters.compactions >= 1, 'rewritten once it held more than twice the keys in lines');
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.ok(lines.length <= 2 * b.size + 2, `${lines.length} lines for ${b.size} keys`);
  b.close();
  const c = createKeyStore({ file });
  t.after(() => c.close());
  assert.equal(c.size, 22);
  assert.deepEqual(c.get('x19').o, { k: 'ack' });
});

test('keys older than the window are forgotten; a full store refuses a new key rather than forgetting one within the window', async (t) => {
  let now = 0;
  const file = tmpFile(t);
  const store = createKeyStore({ file, windowMs: 1000, maxKeys: 2, now: () => now });
  t.after(() => store.close());
  store.settle('a', 'c', { k: 'ack' });
  now = 500;
  store.settle('b', 'c', { k: 'ack' });
  const full = store.settle('c', 'c', { k: 'ack' });
  assert.equal(full.code, 'E_BUSY');
  assert.equal(store.get('c'), null);
  now = 1200;
  assert.equal(store.get('a'), null, 'past the window');
  assert.equal(store.settle('c', 'c', { k: 'ack' }), null);
  store.close();
  now = 1400;
  const again = createKeyStore({ file, windowMs: 1000, now: () => now });
  t.after(() => again.close());
  assert.equal(again.get('a'), null, 'not loaded: past the window');
  assert.ok(again.get('b') && again.get('c'));
});

test('a file that cannot be used is E_KEY_STORE at start; memory only without a file', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-keys-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'is-a-folder.jsonl'));
  assert.throws(() => createKeyStore({ file: path.join(dir, 'is-a-folder.jsonl') }), { code: 'E_KEY_STORE' });
  const mem = createKeyStore({ file: null });
  mem.settle('k', 'c', { k: 'ack' });
  assert.deepEqual(mem.get('k').o, { k: 'ack' });
});

test('begins complete in the order they began (the writes keep the commands\' order); one fdatasync covers every line before it', async (t) => {
  const store = createKeyStore({ file: tmpFile(t) });
  t.after(() => store.close());
  const order = [];
  const all = [];
  for (let i = 0; i < 200; i += 1) all.push(new Promise((resolve) => store.begin(`k${i}`, 'c', (err) => { order.push([i, err]); resolve(); })));
  await Promise.all(all);
  assert.deepEqual(order.map(([i]) => i), Array.from({ length: 200 }, (_, i) => i));
  assert.ok(order.every(([, err]) => err === undefined || err === null));
  assert.ok(store.counters.syncs >= 1 && store.counters.syncs < 200, `${store.counters.syncs} fdatasyncs for 200 keys`);
});
