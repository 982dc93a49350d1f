'use strict';
/**
 * Every flow a user opens in the editor is laid out inside the canvas, on the grid, with no two
 * nodes overlapping: the flow parts, the two built flows and every example. Node sizes are an upper
 * bound of the editor's (test/helpers/layout.js); test/editor/round-trip.test.js checks the two
 * flows again with the sizes the editor really draws.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { layoutProblems, estimateBox } = require('../helpers/layout');

const ROOT = path.join(__dirname, '..', '..');
const files = [
  ...fs.readdirSync(path.join(ROOT, 'flows', 'parts')).map((f) => path.join('flows', 'parts', f)),
  path.join('flows', 'cloud.json'),
  path.join('flows', 'edge.json'),
  ...fs.readdirSync(path.join(ROOT, 'examples')).map((f) => path.join('examples', f)),
].filter((f) => f.endsWith('.json'));

for (const file of files) {
  test(`${file}: inside the canvas, on the grid, nothing overlapping`, () => {
    const flow = JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
    assert.deepEqual(layoutProblems(flow), []);
  });
}

test('the layout check finds a node left of the canvas, one off the grid and two overlapping', () => {
  const z = 't';
  const flow = [
    { id: 't', type: 'tab' },
    { id: 'a', type: 'comment', z, name: 'a long comment that is wider than twice its x', x: 100, y: 40 },
    { id: 'b', type: 'debug', z, x: 300, y: 105 },
    { id: 'c', type: 'debug', z, x: 500, y: 200 },
    { id: 'd', type: 'debug', z, x: 540, y: 200 },
  ];
  const problems = layoutProblems(flow);
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /comment a.*left edge at x=-?\d+/);
  assert.match(problems[1], /debug b: \(300, 105\) is off the 20 px grid/);
  assert.match(problems[2], /debug c overlaps debug d/);
  // A box is never smaller than the editor's minimum (100 × 30), and grows with the label.
  assert.deepEqual(estimateBox({ type: 'debug', x: 0, y: 0 }), { x: 0, y: 0, w: 100, h: 30 });
  assert.ok(estimateBox({ type: 'debug', name: 'x'.repeat(40), x: 0, y: 0 }).w >= 40 * 7.3 + 57);
});
