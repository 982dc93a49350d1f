'use strict';
/**
 * flows/instance.js: an instance runs its own copy of the shipped flow; a copy nobody edited
 * follows the shipped flow, an edited one is kept and the instance says what to do.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { instanceFlows, flowHash } = require('../../flows/instance');

function setup(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-instance-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const shipped = path.join(dir, 'cloud.json');
  const userDir = path.join(dir, 'user');
  const logs = [];
  const run = () => instanceFlows({ shipped, userDir, log: (l) => logs.push(l) });
  const ship = (flow) => fs.writeFileSync(shipped, `${JSON.stringify(flow, null, 2)}\n`);
  const copy = () => JSON.parse(fs.readFileSync(path.join(userDir, 'flows.json'), 'utf8'));
  return { shipped, userDir, logs, run, ship, copy };
}

const V1 = [{ id: 't', type: 'tab', label: 'A' }, { id: 'c', type: 'comment', z: 't', name: 'v1', x: 100, y: 40 }];
const V2 = [{ id: 't', type: 'tab', label: 'A' }, { id: 'c', type: 'comment', z: 't', name: 'v2', x: 100, y: 40 }];

test('the first start copies the shipped flow into the user directory', (t) => {
  const s = setup(t);
  s.ship(V1);
  const r = s.run();
  assert.equal(r.action, 'seeded');
  assert.equal(r.file, path.join(s.userDir, 'flows.json'));
  assert.deepEqual(s.copy(), V1);
  assert.match(s.logs[0], /copied from/);
});

test('an edited copy is kept while the shipped flow stays the same', (t) => {
  const s = setup(t);
  s.ship(V1);
  s.run();
  const edited = [V1[0], { ...V1[1], name: 'my edit' }];
  fs.writeFileSync(path.join(s.userDir, 'flows.json'), JSON.stringify(edited, null, 4));
  assert.equal(s.run().action, 'kept');
  assert.deepEqual(s.copy(), edited);
});

test('a copy Node-RED re-saved without edits (other order, other indentation) follows a new shipped flow', (t) => {
  const s = setup(t);
  s.ship(V1);
  s.run();
  // What a deploy that changed nothing writes: nodes and properties in Node-RED's order.
  const resaved = V1.slice().reverse().map((n) => Object.fromEntries(Object.entries(n).reverse()));
  fs.writeFileSync(path.join(s.userDir, 'flows.json'), JSON.stringify(resaved, null, 4));
  s.ship(V2);
  assert.equal(s.run().action, 'updated');
  assert.deepEqual(s.copy(), V2);
  assert.match(s.logs.at(-1), /updated from .*no edits of its own/);
  assert.equal(s.run().action, 'kept', 'and then it is the current shipped flow');
});

test('an edited copy is kept when the shipped flow changes, and the instance says how to resolve it', (t) => {
  const s = setup(t);
  s.ship(V1);
  s.run();
  const edited = [V1[0], { ...V1[1], name: 'my edit' }];
  fs.writeFileSync(path.join(s.userDir, 'flows.json'), JSON.stringify(edited));
  s.ship(V2);
  assert.equal(s.run().action, 'kept-edited');
  assert.deepEqual(s.copy(), edited);
  assert.match(s.logs.at(-1), /has changed since .* copy has edits/);
  assert.match(s.logs.at(-1), /build-flows\.js --split /);
  assert.equal(s.run().action, 'kept-edited', 'it says so at every start until resolved');
  // The edit brought into the shipped flow (split + build): the copy is the shipped flow again.
  s.ship(edited);
  assert.equal(s.run().action, 'kept');
  assert.equal(s.run().action, 'kept');
});

test('a copy of unknown origin (no record of what it was copied from) is never replaced', (t) => {
  const s = setup(t);
  s.ship(V2);
  fs.mkdirSync(s.userDir, { recursive: true });
  fs.writeFileSync(path.join(s.userDir, 'flows.json'), JSON.stringify(V1));
  assert.equal(s.run().action, 'kept-edited');
  assert.deepEqual(s.copy(), V1);
});

test('flowHash ignores the order of nodes and properties, nothing else', () => {
  assert.equal(flowHash(JSON.stringify(V1)), flowHash(JSON.stringify([{ type: 'comment', id: 'c', x: 100, y: 40, z: 't', name: 'v1' }, V1[0]])));
  assert.notEqual(flowHash(JSON.stringify(V1)), flowHash(JSON.stringify(V2)));
  assert.notEqual(flowHash(JSON.stringify(V1)), flowHash(JSON.stringify([V1[0], { ...V1[1], x: '100' }])), 'a value\'s type counts');
});
