'use strict';
/** The browser twin's controls (twin/browser/controls.js) on a real plant model and stand-in timers. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createControls, MAX_PER_MINUTE } = require('../../../twin/browser/controls');
const { createPlant } = require('../../../twin/plant');

/** Timers the test runs by hand. */
function handTimers() {
  const t = { next: 1, live: new Map() };
  t.setTimeout = (f, ms) => { const id = t.next++; t.live.set(id, { f, ms, once: true }); return id; };
  t.setInterval = (f, ms) => { const id = t.next++; t.live.set(id, { f, ms, once: false }); return id; };
  t.clearTimeout = (id) => t.live.delete(id);
  t.clearInterval = (id) => t.live.delete(id);
  t.fire = (id) => { const x = t.live.get(id); if (x.once) t.live.delete(id); x.f(); };
  return t;
}

function rig({ driving = true, readOnly = false, protocol = 'ws', random } = {}) {
  const plant = createPlant({ profile: 'fast', boxes: 0, feedWhileStopped: true, arrivalMs: 0 });
  const sent = [];
  const lines = [];
  const counters = { refused: 0, fed: 0 };
  const role = { driving, readOnly };
  const timers = handTimers();
  const log = (text, kind) => lines.push([kind, text]);
  const c = createControls({ plant, transport: { send: (v) => sent.push(v) }, timers, counters, log, role, protocol, maxWaiting: 2, random });
  return { c, plant, sent, lines, counters, role, timers };
}

test('driving: a button is the model\'s own (its input goes with the next tick); boxes are fed up to maxWaiting', () => {
  const { c, plant, sent, counters, lines } = rig();
  assert.equal(c.momentary('st'), true);
  assert.equal(plant.scene().buttons.st, 1);
  assert.deepEqual(sent, [], 'nothing sent by the control itself');
  assert.equal(c.feed(true), true);
  assert.equal(c.feed(false), true);
  assert.equal(c.feed(false), false, 'two boxes already wait for the entry');
  assert.equal(counters.fed, 2);
  assert.equal(counters.refused, 1);
  assert.match(lines[0][1], /2 boxes are already waiting/);
  assert.deepEqual(plant.plan, [true, false]);
});

test('watching: a press goes out as a command and is released after the hold time; feeding is refused', () => {
  const { c, plant, sent, counters, timers } = rig({ driving: false });
  assert.equal(c.momentary('sp'), true);
  assert.deepEqual(sent, [{ sp: 1 }]);
  const [id, timer] = [...timers.live][0];
  assert.equal(timer.ms, plant.config.buttonHoldMs);
  timers.fire(id);
  assert.deepEqual(sent, [{ sp: 1 }, { sp: 0 }]);
  assert.equal(c.feed(false), false);
  assert.equal(c.setAutoFeed(10), false);
  assert.equal(counters.refused, 2);
});

test('a viewer over MQTT publishes nothing (a refused publish would cost the connection)', () => {
  const { c, sent, counters } = rig({ driving: false, readOnly: true, protocol: 'mqttws' });
  assert.equal(c.momentary('st'), false);
  assert.deepEqual(sent, []);
  assert.equal(counters.refused, 1);
  const ws = rig({ driving: false, readOnly: true, protocol: 'ws' });
  assert.equal(ws.c.momentary('st'), true, 'elsewhere the cloud refuses it, and the page shows that');
});

test('automatic feeding: a rate and a damaged share, feeding only while driving; off with 0', () => {
  let r = 0.1;
  const { c, plant, role, timers, lines } = rig({ random: () => r });
  assert.equal(c.setAutoFeed(MAX_PER_MINUTE + 1), false);
  assert.equal(c.setAutoFeed(10, 2), false);
  assert.equal(lines.length, 2);
  assert.equal(c.setAutoFeed(30, 0.5), true);
  assert.deepEqual(c.auto, { perMinute: 30, damagedShare: 0.5 });
  const [id, timer] = [...timers.live][0];
  assert.equal(timer.ms, 2000, '30 a minute: one every 2 s');
  timers.fire(id);
  r = 0.9;
  timers.fire(id);
  assert.deepEqual(plant.plan, [true, false], 'damaged when the draw is below the share');
  role.driving = false;
  timers.fire(id);
  assert.equal(plant.plan.length, 2, 'a page that lost the plant feeds nothing');
  c.setAutoFeed(0);
  assert.equal(c.auto, null);
  assert.equal(timers.live.size, 0);
});

test('releases: every button held goes back to 0 before the page goes, and no release timer is left', () => {
  const w = rig({ driving: false });
  w.c.momentary('sp');
  assert.deepEqual(w.c.releases(), { sp: 0 });
  assert.equal(w.timers.live.size, 0);
  assert.deepEqual(w.c.releases(), {}, 'nothing held any more');
  const d = rig();
  d.c.momentary('st');
  assert.deepEqual(d.c.releases(), { st: 0 }, 'the driving page releases its model\'s pressed button');
});
