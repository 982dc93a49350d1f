'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const tags = require('../../nodes/lib/core/io-table').demoTable();
const { createImage, outputMask, checkInputs, checkProbe } = require('../../plc/image');

test('the output mask covers exactly the output bits and words of DB1', () => {
  const mask = outputMask();
  assert.equal(mask.length, tags.ioDbSize);
  assert.deepEqual([...mask], [0, 0, 0xff, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  const img = createImage();
  img.writeOutputs({ c1: 1, red: 1, ng: -2, nb: 70000, scn: 5 });
  const copy = Buffer.from(img.db1);
  for (let b = 0; b < copy.length; b++) assert.equal(copy[b] & ~mask[b] & 0xff, 0, `byte ${b} has only output bits`);
});

test('queued input writes are applied only by applyPending, last write wins', () => {
  const img = createImage();
  img.queueInputs({ st: 1, dmg: true });
  img.queueInputs({ st: 0 });
  assert.equal(img.readInputs().dmg, 0, 'not before the scan');
  const applied = img.applyPending();
  assert.equal(applied.inputs.size, 2);
  assert.deepEqual([img.readInputs().st, img.readInputs().dmg], [0, 1]);
  assert.equal(img.applyPending().inputs.size, 0, 'taken once');
});

test('a bad batch is refused whole', () => {
  const img = createImage();
  assert.throws(() => img.queueInputs({ st: 1, c1: 1 }), { code: 'E_NOT_INPUT' });
  assert.throws(() => img.queueInputs({ st: 1, zz: 1 }), { code: 'E_UNKNOWN_TAG' });
  assert.throws(() => img.queueInputs([1]), { code: 'E_BAD_WRITE' });
  assert.equal(img.applyPending().inputs.size, 0);
  assert.deepEqual(checkInputs({ StartButton: true }).map(([t, v]) => [t.short, v]), [['st', 1]], 'long names accepted');
});

test('copyProbes copies DB2 to DB3 and reports the changed slots', () => {
  const img = createImage();
  img.queueProbe(0, 7);
  img.queueProbe(1023, 0xffffffff);
  img.applyPending();
  assert.deepEqual(img.copyProbes(), [0, 1023]);
  assert.equal(img.probeResponse(1023), 0xffffffff);
  assert.deepEqual(img.copyProbes(), [], 'nothing changed since');
  assert.throws(() => checkProbe(1024, 0), { code: 'E_PROBE_SLOT' });
  assert.throws(() => checkProbe(0, '1'), { code: 'E_PROBE_VALUE' });
});

test('markers land at their MK bits', () => {
  const img = createImage();
  img.writeMarkers({ Running: 1, RejectActive: 0, PackActive: 1, Piston1Cycle: 1 });
  assert.equal(img.mk[0], 0b1101);
  assert.deepEqual(img.readMarkers(), { Running: 1, RejectActive: 0, PackActive: 1, Piston1Cycle: 1 });
});
