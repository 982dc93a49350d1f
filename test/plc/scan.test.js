'use strict';
/** plc/scan.js: one scan over the image, in order, with what changed handed to every interface. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createScan } = require('../../plc/scan');
const { createImage } = require('../../plc/image');

function setup(o = {}) {
  const image = createImage();
  const services = {};
  const counters = { scans: 0 };
  const events = [];
  const scan = createScan({ image, services, counters, scanCountEvery: 1, onScan: (ev) => events.push(ev), ...o });
  return { image, services, counters, events, scan };
}

test('the program\'s initial outputs are in the image before the first scan', () => {
  const image = createImage();
  image.writeOutputs({ c1: 1, nb: 9 }); // left over: the program starts with everything off
  const scan = createScan({ image, services: {}, counters: { scans: 0 }, scanCountEvery: 1, onScan: () => {} });
  assert.equal(scan.values().c1, 0);
  assert.equal(image.values().nb, 0);
});

test('queued inputs reach the program; its outputs and what changed are reported', () => {
  const s = setup();
  s.image.queueInputs({ st: 1 });
  s.scan.run();
  const ev = s.events[0];
  assert.equal(ev.scans, 1);
  assert.equal(ev.applied.inputs.size, 1);
  assert.equal(ev.changed.st, 1);
  assert.equal(ev.changed.c1, 1, 'the program started the conveyor in the same scan');
  assert.equal(s.scan.values().c1, 1);
  assert.equal(s.counters.scans, 1);
});

test('S7 is pulled before and pushed after the program; every interface hears afterScan', () => {
  const s = setup();
  const order = [];
  s.services.s7 = { pull: () => order.push('pull'), push: (applied) => order.push(['push', applied.inputs.size]) };
  s.services.modbus = { afterScan: (ev) => order.push(['afterScan', ev.scans]) };
  s.image.queueInputs({ se: 1 });
  s.scan.run();
  assert.deepEqual(order, ['pull', ['push', 1], ['afterScan', 1]]);
});

test('probe requests are copied to their responses and reported; the input log hears every scan', () => {
  const logged = [];
  const s = setup({ inputLog: { scan: (values, scans) => logged.push(scans) } });
  s.image.queueProbe(7, 1234);
  s.scan.run();
  assert.equal(s.image.probeResponse(7), 1234);
  assert.deepEqual(s.events[0].probes, [7]);
  s.scan.run();
  assert.deepEqual(logged, [1, 2]);
});

test('ScanCount is refreshed only every scanCountEvery scans', () => {
  const s = setup({ scanCountEvery: 3 });
  const seen = [];
  for (let i = 0; i < 6; i++) { s.scan.run(); seen.push(s.scan.values().scn); }
  assert.deepEqual(seen, [0, 0, 3, 3, 3, 6]);
});
