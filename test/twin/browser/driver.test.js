'use strict';
/** Who drives from this page (twin/browser/driver.js), with a stand-in lease. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createDriver } = require('../../../twin/browser/driver');
const { createPlant } = require('../../../twin/plant');

function rig({ lease, readOnly, held } = {}) {
  const plant = createPlant({ profile: 'fast', boxes: 0 });
  const sent = [];
  const timed = [];
  const lines = [];
  const counters = { takeovers: 0, leaseLost: 0 };
  let watched = 0;
  let stopped = false;
  const d = createDriver({
    lease, readOnly, plant, now: () => 7, counters, log: (text) => lines.push(text),
    recorder: { sent: (v, t) => timed.push([v, t]) }, transport: { send: (v) => sent.push(v) },
    onWatch: () => { watched += 1; }, stopped: () => stopped, held,
  });
  return { d, plant, sent, timed, lines, counters, watched: () => watched, stop: () => { stopped = true; } };
}

/** A lease that answers what the test lines up. */
function lease(answers) {
  const calls = [];
  return { calls, claim: async (force) => { calls.push(force ? 'force' : 'claim'); return answers.shift(); }, release: async () => { calls.push('release'); } };
}

test('a page of its own drives: the whole plant goes to the PLC at once, and is timed', () => {
  const { d, plant, sent, timed } = rig();
  d.drive('a page of its own');
  assert.equal(d.driving, true);
  assert.deepEqual(sent, [plant.inputs()]);
  assert.deepEqual(timed, [[plant.inputs(), 7]]);
  d.drive('again');
  assert.equal(sent.length, 1, 'once');
  const viewer = rig({ readOnly: true });
  viewer.d.drive('a page of its own');
  assert.equal(viewer.d.driving, false, 'a viewer token never drives');
});

test('the lease decides: granted drives, lost watches, forced takes over', async () => {
  const l = lease([
    { status: 200, granted: false, holder: { id: 'b', label: 'page B' } },
    { status: 200, granted: true, holder: { id: 'a' } },
    { status: 200, granted: true, holder: { id: 'a' } }, // a renewal
    { status: 200, granted: false, holder: { id: 'b', label: 'page B' } },
  ]);
  const { d, counters, lines, watched } = rig({ lease: l });
  await d.claim(false);
  assert.equal(d.driving, false, 'the plant has a driver: watch');
  assert.deepEqual(d.holder, { id: 'b', label: 'page B' });
  await d.claim(true);
  assert.equal(d.driving, true);
  assert.equal(counters.takeovers, 1);
  await d.claim(false);
  assert.equal(counters.takeovers, 1, 'a renewal is no take-over');
  await d.claim(false);
  assert.equal(d.driving, false);
  assert.equal(counters.leaseLost, 1);
  assert.equal(watched(), 1, 'the automatic feed stops');
  assert.match(lines.at(-1), /watching \(page B drives now\)/);
});

test('a viewer\'s lease is refused (403): read-only from then on; errors and 401 are logged', async () => {
  const l = lease([{ status: 403, granted: false, holder: null }]);
  const { d, lines } = rig({ lease: l });
  await d.claim(false);
  assert.equal(d.readOnly, true);
  await d.claim(false);
  assert.deepEqual(l.calls, ['claim'], 'a read-only page asks no more');
  assert.match(lines.join('\n'), /E_READ_ONLY/);
  const bad = rig({ lease: lease([{ status: 401, granted: false, holder: null }]) });
  await bad.d.claim(false);
  assert.match(bad.lines[0], /E_UNAUTHORIZED/);
  const down = rig({ lease: { claim: async () => { throw new Error('fetch failed'); } } });
  await down.d.claim(false);
  assert.equal(down.lines[0], 'driver lease: fetch failed');
});

test('watch and leave give the lease back; a stopped session claims nothing', async () => {
  const l = lease([{ status: 200, granted: true, holder: { id: 'a' } }, { status: 200, granted: true, holder: { id: 'a' } }]);
  const { d, stop } = rig({ lease: l });
  await d.claim(false);
  await d.watch();
  assert.equal(d.driving, false);
  assert.equal(d.holder, null);
  await d.claim(false);
  await d.leave();
  assert.equal(d.driving, false);
  assert.deepEqual(l.calls, ['claim', 'release', 'claim', 'release']);
  stop();
  await d.claim(false);
  assert.equal(l.calls.length, 4);
});

test('a claim on its way when the page began to hold (a replay) is given back: the page neither drives nor sends', async () => {
  let answer;
  const calls = [];
  const l = {
    calls,
    claim: () => { calls.push('claim'); return new Promise((resolve) => { answer = resolve; }); },
    release: async () => { calls.push('release'); },
  };
  let holding = false;
  const { d, sent } = rig({ lease: l, held: () => holding });
  const renewal = d.claim(false);
  holding = true; // the replay starts while the renewal is in flight
  await d.watch();
  answer({ status: 200, granted: true, holder: { id: 'a' } });
  await renewal;
  assert.equal(d.driving, false, 'held: no driving');
  assert.deepEqual(sent, [], 'nothing of the model sent');
  assert.deepEqual(calls, ['claim', 'release'], 'the lease granted meanwhile is given back');
  assert.equal(d.holder, null);
  holding = false;
  l.claim = async () => { calls.push('claim'); return { status: 200, granted: true, holder: { id: 'a' } }; };
  await d.claim(false);
  assert.equal(d.driving, true, 'back to live: the page drives again');
});

test('a claim on its way when the session stopped is given back: the page does not drive after it went', async () => {
  let answer;
  const calls = [];
  const l = {
    claim: () => { calls.push('claim'); return new Promise((resolve) => { answer = resolve; }); },
    release: async () => { calls.push('release'); },
  };
  const { d, sent, stop } = rig({ lease: l });
  const renewal = d.claim(false);
  stop();
  answer({ status: 200, granted: true, holder: { id: 'a' } });
  await renewal;
  assert.equal(d.driving, false);
  assert.deepEqual(sent, []);
  assert.deepEqual(calls, ['claim', 'release']);
});
