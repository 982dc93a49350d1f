'use strict';
/**
 * twin/browser/replay.js: the replay's clock (frames at their recorded times at every speed,
 * frame by frame, seeking both ways) and a replay of a real history: the PLC program
 * (plc/program.js) sorting boxes with the plant model in lock-step, its states recorded as an edge
 * streams them, then replayed through the browser twin's own session. The replayed plant packs and
 * rejects the boxes the real one did, at 1× and at 16×, after seeking back, and sends nothing.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPlant, rng } = require('../../../twin/plant');
const { runLockStep } = require('../../helpers/twin');
const { createPlayer, createReplay, createReplayTransport, stepFor, SPEEDS } = require('../../../twin/browser/replay');
const tags = require('../../../nodes/lib/core/io-table').demoTable();

const T0 = Date.UTC(2026, 10, 25, 14, 2, 0); // the history's clock: the cloud's, ms since the epoch
const INPUTS = tags.inputs.map((t) => t.short);

/**
 * A plant's history as the cloud keeps it: the PLC program and the plant model in lock-step, every
 * scan's changes of the streamed tags (the inputs the PLC saw and its outputs) as one frame, the
 * first a snapshot.
 */
function recordedHistory({ boxes = 6, damaged = [0, 1, 0, 0, 1, 0], seed = 3, link = {} } = {}) {
  const plant = createPlant({ profile: 'fast', boxes, damaged, seed });
  const frames = [];
  let last = {};
  const run = runLockStep(plant, {
    ...link,
    onScan(t, image, outputs) {
      const now = { ...Object.fromEntries(INPUTS.filter((k) => k in image).map((k) => [k, Number(image[k])])), ...outputs };
      const d = frames.length ? tags.diff(last, now) : now;
      last = now;
      if (Object.keys(d).length) frames.push({ plant: 'plant1', t: T0 + t, ets: null, seq: frames.length + 1, k: frames.length ? 'state' : 'snap', d });
    },
  });
  return { frames, summary: run.summary, end: T0 + run.time, last };
}

/** A player over frames at 100, 250 and 1000 ms, recording when each came and how far the plant went. */
function clockPlayer(extra = {}) {
  const frames = [{ t: 100, d: { a: 1 } }, { t: 250, d: { a: 2 } }, { t: 1000, d: { a: 3 } }];
  const log = { at: [], ticks: [], resets: 0, clock: 0 };
  const p = createPlayer({
    frames, start: 0, from: 0, to: 2000, stepMs: 10,
    onFrame: (f) => log.at.push([f.d.a, log.clock]),
    onTick: (dt) => { log.ticks.push(dt); log.clock += dt; },
    onReset: () => { log.resets += 1; log.clock = 0; log.at.length = 0; },
    ...extra,
  });
  return { p, log };
}

test('the clock: every frame at its recorded time, the plant in steps of at most stepMs, realMs × speed', () => {
  assert.deepEqual(SPEEDS, [1, 2, 4, 8, 16]);
  const { p, log } = clockPlayer();
  assert.equal(p.advance(100), false, 'paused: nothing moves');
  p.play();
  assert.equal(p.setSpeed(3), false, 'only the speeds offered');
  assert.equal(p.setSpeed(4), true);
  p.advance(50); // 200 ms of plant time
  assert.deepEqual(p.state(), { pos: 200, playing: true, speed: 4, from: 0, to: 2000, ended: false });
  assert.deepEqual(log.at, [[1, 100]], 'the frame at 100 ms came at 100 ms of plant time, not at the end of the advance');
  assert.ok(log.ticks.every((dt) => dt > 0 && dt <= 10), 'steps of at most 10 ms');
  p.setSpeed(16);
  p.advance(200); // 3200 ms more: past the end (2000), where it stops
  assert.deepEqual(log.at, [[1, 100], [2, 250], [3, 1000]]);
  assert.deepEqual(p.state().pos, 2000);
  assert.equal(p.state().ended, true);
  assert.equal(p.state().playing, false, 'it stops at the window\'s end');
  assert.ok(Math.abs(log.clock - 2000) < 1e-9, 'the plant went exactly as far as the clock');
});

test('the same window at every speed: the same frames at the same plant times', () => {
  const seen = SPEEDS.map((speed) => {
    const { p, log } = clockPlayer();
    p.setSpeed(speed);
    p.play();
    while (!p.state().ended) p.advance(16.7); // a 60 Hz page
    return log.at;
  });
  for (const s of seen) assert.deepEqual(s, seen[0]);
});

test('frame by frame and seeking: forward runs on, backwards starts again from the lead-in', () => {
  const { p, log } = clockPlayer({ start: 0, from: 200 });
  p.seek(200);
  assert.deepEqual(log.at, [[1, 100]], 'the lead-in ran to the window\'s start at once');
  p.play();
  p.step(1);
  assert.equal(p.state().playing, false, 'a step pauses');
  assert.equal(p.state().pos, 250);
  assert.deepEqual(log.at.at(-1), [2, 250]);
  p.step(1);
  assert.equal(p.state().pos, 1000);
  p.step(1);
  assert.equal(p.state().pos, 2000, 'no frame left: the window\'s end');
  p.step(-1);
  assert.equal(p.state().pos, 1000);
  assert.equal(log.resets, 1, 'backwards: from the start again');
  assert.deepEqual(log.at, [[1, 100], [2, 250], [3, 1000]], 'and every frame again, at its time');
  p.step(-1);
  p.step(-1);
  assert.equal(p.state().pos, 200, 'the window\'s start, not the lead-in');
  p.seek(5000);
  assert.equal(p.state().pos, 2000, 'a seek stays in the window');
  p.play();
  assert.equal(p.state().pos, 200, 'play at the end starts the window again');
});

test('the replay\'s tick: no belt moves more than a few millimetres in it', () => {
  assert.equal(stepFor(createPlant({ profile: 'study' }).config), 10, '250 mm/s: the live tick');
  assert.equal(stepFor(createPlant({ profile: 'fast' }).config), 1, '3 m/s: 1 ms');
});

test('the replay transport sends nothing and hands frames to the session', async () => {
  const tr = createReplayTransport();
  const got = [];
  tr.onValues((v, kind) => got.push([v, kind]));
  await tr.connect();
  assert.equal(tr.send({ st: 1 }), false);
  tr.push({ c1: 1 }, 'backfill');
  tr.push({ c1: 0 }, 'snap');
  assert.deepEqual(got, [[{ c1: 1 }, 'state'], [{ c1: 0 }, 'snap']], 'a backfilled state replays like any state');
  assert.deepEqual([tr.stats().notSent, tr.stats().received, tr.stats().connected], [1, 2, true]);
});

test('a real history replayed: the boxes move and are sorted as they were, at 1× and 16×, after seeking back; nothing is sent', () => {
  const h = recordedHistory();
  assert.equal(h.summary.packed + h.summary.rejected, 6, 'the recorded plant sorted its boxes');
  const run = (speed, realMs) => {
    const boxes = [];
    const r = createReplay({ frames: h.frames, start: T0, from: T0, to: h.end, plant: { profile: 'fast' }, onBox: (ev) => boxes.push(ev) });
    r.setSpeed(speed);
    r.play();
    let moved = false;
    let lastX = null;
    while (!r.state().ended) {
      r.advance(realMs);
      const s = r.scene();
      const b = s.c1[0];
      if (b && lastX && b.id === lastX.id && b.x > lastX.x) moved = true;
      lastX = b || null;
    }
    return { r, boxes, moved };
  };
  const fast = run(16, 16);
  const slow = run(1, 100);
  for (const x of [fast, slow]) {
    assert.ok(x.moved, 'a box rode along conveyor 1');
    assert.equal(x.boxes.filter((e) => e === 'packed').length, h.summary.packed);
    assert.equal(x.boxes.filter((e) => e === 'rejected').length, h.summary.rejected);
    const snap = x.r.snapshot();
    assert.deepEqual([snap.counts.good, snap.counts.rejected, snap.mode, snap.readOnly], [h.last.ng, h.last.nr, 'watching', true], 'the PLC\'s counters');
    assert.equal(x.r.notSent, 0, 'the session never even tried to send');
    assert.equal(x.r.state().counters.frames, h.frames.length);
  }
  assert.deepEqual(fast.r.scene(), slow.r.scene(), 'the same plant at the end, whatever the speed');
  // Coarser ticks than the replay takes (the live page's 10 ms, 30 mm at this profile's belt):
  // the sensors of the history keep the boxes with the real ones all the same.
  const coarse = [];
  createReplay({ frames: h.frames, start: T0, from: T0, to: h.end, plant: { profile: 'fast' }, stepMs: 10, onBox: (ev) => coarse.push(ev) }).seek(h.end);
  assert.deepEqual([coarse.filter((e) => e === 'packed').length, coarse.length], [h.summary.packed, 6]);

  // Half way, back to the start and on to the end: the same again.
  const resets = [];
  const r = createReplay({ frames: h.frames, start: T0, from: T0, to: h.end, plant: { profile: 'fast' }, onReset: () => resets.push(1) });
  r.seek(T0 + (h.end - T0) / 2);
  const mid = r.state().counters;
  assert.ok(mid.packed + mid.rejected > 0 && mid.packed + mid.rejected < 6, JSON.stringify(mid));
  r.seek(T0);
  assert.equal(resets.length, 1);
  assert.deepEqual([r.state().counters.packed, r.state().counters.rejected], [0, 0], 'started again');
  r.seek(h.end);
  assert.deepEqual([r.state().counters.packed, r.state().counters.rejected], [h.summary.packed, h.summary.rejected]);
  assert.deepEqual(r.scene(), fast.r.scene());
});

test('a driving page held up and links that jitter: the replay sorts as the real plant did', () => {
  // The driving page's event loop held for up to 0.4 s at random (its plant time falls behind:
  // it ticks at most 50 ms at once), and each message held 5–25 ms on the link, one in ten up
  // to 145 ms. The history has the PLC's times, as the edge reads them; the replay runs on them.
  const missed = [];
  for (let seed = 1; seed <= 40; seed += 1) {
    const r = rng(seed);
    const stalls = [];
    for (let t = 0; t < 60000; t += 100) if (r() < 0.08) stalls.push([t, t + 400 * r()]);
    const link = {
      latencyMs: () => 5 + (r() < 0.1 ? 140 * r() : 20 * r()),
      stalled: (t) => stalls.some(([a, b]) => t >= a && t < b),
    };
    const h = recordedHistory({ boxes: 12, damaged: 0.3, seed, link });
    assert.deepEqual([h.summary.done, h.summary.missorted], [true, 0], `seed ${seed}: the real plant sorted every box`);
    const x = createReplay({ frames: h.frames, start: T0, from: T0, to: h.end, plant: { profile: 'fast' } });
    x.seek(h.end);
    const c = x.state().counters;
    if (c.packed !== h.summary.packed || c.rejected !== h.summary.rejected) {
      missed.push(`seed ${seed}: real ${h.summary.packed} packed, ${h.summary.rejected} rejected; replayed ${c.packed}, ${c.rejected}`);
    }
  }
  assert.deepEqual(missed, []);
});

test('a window that starts mid-production: the lead-in puts the boxes already on the belts there', () => {
  const h = recordedHistory();
  // A window opening when the first box has entered and the second is not in yet.
  const firstIn = h.frames.find((f) => f.d.se === 1).t;
  const from = firstIn + 150;
  const r = createReplay({ frames: h.frames, start: T0, from, to: h.end, plant: { profile: 'fast' } });
  const s = r.scene();
  assert.equal(r.state().pos, from);
  assert.equal(s.c1.length + (s.entry ? 1 : 0), 1, `one box on the way at the window's start: ${JSON.stringify(s)}`);
  const cold = createReplay({ frames: h.frames.filter((f) => f.t >= from), start: from, from, to: h.end, plant: { profile: 'fast' } });
  assert.equal(cold.scene().c1.length + (cold.scene().entry ? 1 : 0), 0, 'without the lead-in it would not be there');
});
