'use strict';
/** The plant's state as others read it (twin/plant/view.js). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { sceneOf, summaryOf, describeOf } = require('../../../twin/plant/view');
const { createState } = require('../../../twin/plant/mechanics');

function sample() {
  const s = createState();
  s.time = 1234.4;
  s.entry = { id: 3, x: 0, damaged: false, arrivedAt: 1 };
  s.c1 = [{ id: 2, x: 700.4, damaged: true }];
  s.c2 = [{ id: 1, x: 50, damaged: false }];
  s.piston.p1 = 0.5;
  s.out.c1 = 1;
  s.counts = { arrived: 3, packed: 1, rejected: 1, missorted: 0 };
  return s;
}

test('the scene is a copy: boxes with id, damage and x; pistons, buttons, outputs', () => {
  const s = sample();
  const sc = sceneOf(s);
  assert.deepEqual(sc.entry, { id: 3, damaged: false, x: 0 }, 'nothing but what a drawing needs');
  assert.deepEqual(sc.c1, [{ id: 2, damaged: true, x: 700.4 }]);
  assert.equal(sc.pistons.p1, 0.5);
  assert.equal(sc.outputs.c1, 1);
  sc.c1[0].x = 0;
  sc.pistons.p1 = 1;
  assert.equal(s.c1[0].x, 700.4, 'changing the scene moves nothing');
  assert.equal(s.piston.p1, 0.5);
});

test('the summary counts the production; done when every box was packed or rejected', () => {
  const s = sample();
  assert.deepEqual(summaryOf(s, 5, [false, true, false, false, true]),
    { boxes: 5, arrived: 3, packed: 1, rejected: 1, missorted: 0, onBelts: 3, done: false, damaged: 2, time: 1234.4 });
  assert.equal(summaryOf(s, 2, [false, true]).done, true);
  assert.equal(summaryOf(createState(), 0, []).done, true, 'nothing to produce: done');
});

test('describe: one line with every box, piston, output and input sent', () => {
  const line = describeOf(sample(), { p1b: 1, sd: 0 });
  assert.equal(line, 't=1234 ms; entry 3@0; c1 [2d@700]; c2 [1@50]; pistons p1 0.50 p2 0.00 p3 0.00; PLC outputs c1; inputs sent p1b');
});
