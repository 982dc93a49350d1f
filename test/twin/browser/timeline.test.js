'use strict';
/**
 * twin/browser/timeline.js: the replay timeline's quick picks and times (local, as the page's
 * inputs hold them), each command as a mark with its sender and outcome in words, senders in a
 * legend, and the spans of backfilled states and the edge's snapshots.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const tl = require('../../../twin/browser/timeline');
const tags = require('../../../nodes/lib/core/io-table').demoTable();

test('times: a datetime-local value and back, to the second, in local time; quick picks end now', () => {
  const t = new Date(2026, 10, 25, 14, 2, 7).getTime();
  assert.equal(tl.toLocalInput(t), '2026-11-25T14:02:07');
  assert.equal(tl.fromLocalInput('2026-11-25T14:02:07'), t);
  assert.equal(tl.fromLocalInput('2026-11-25T14:02'), t - 7000, 'seconds are optional');
  assert.equal(tl.fromLocalInput('2026-11-25T14:02:07.5'), t + 500);
  assert.ok(Number.isNaN(tl.fromLocalInput('14:02')));
  assert.ok(Number.isNaN(tl.fromLocalInput(undefined)));
  assert.equal(tl.clockText(t + 250), '14:02:07');
  assert.equal(tl.clockText(t + 250, true), '14:02:07.2');
  assert.deepEqual(tl.pickWindow('last-5m', t), { from: t - 300000, to: t });
  assert.equal(tl.pickWindow('last-year', t), null);
  assert.deepEqual(tl.QUICK_PICKS.map((p) => p.label), ['last 5 min', 'last 15 min', 'last hour']);
});

const CMDS = [
  { arrived: 1000, via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'web-1', values: { st: 1 }, outcome: 'written' },
  { arrived: 1500, via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'web-1', values: { se: 1, sd: 0 }, outcome: 'written' },
  { arrived: 2000, via: 'rest', token: 'ddddeeeeffff', role: 'viewer', src: 'rest-viewer', values: { sp: 1 }, outcome: 'refused', code: 'E_READ_ONLY' },
  { arrived: 2500, via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'web-1', values: { st: 0 }, outcome: null },
  { arrived: 2600, via: 'rest', token: 'aaaabbbbcccc', role: 'twin', src: 'mes', values: { st: 1 }, outcome: 'repeat', first: 'written' },
  { arrived: 9000, via: 'ws', token: 'aaaabbbbcccc', role: 'twin', src: 'web-1', values: { st: 1 }, outcome: 'written' },
];

test('senders: one per token, role and src, most commands first, each its colour slot', () => {
  const s = tl.sendersOf(CMDS);
  assert.deepEqual(s.map((x) => [x.src, x.count, x.slot]), [['web-1', 4, 0], ['mes', 1, 1], ['rest-viewer', 1, 2]]);
  assert.equal(s[2].label, 'rest-viewer (viewer token ddddeeeeffff, rest)');
  const other = tl.sendersOf([
    { arrived: 1, via: 'mqtt', role: 'twin', src: 'mqttjs_1', values: { st: 1 }, outcome: 'relayed' },
    { arrived: 2, via: 'flow', role: 'flow', src: 'line-flow', values: { st: 0 }, outcome: 'written' },
  ]);
  assert.deepEqual(other.map((x) => x.label), ['line-flow (flow, flow)', 'mqttjs_1 (twin, mqtt)'], 'no token: the role only');
  const marks = tl.commandMarks([{ arrived: 1, via: 'mqtt', role: 'twin', src: 'm', values: { st: 1 }, outcome: 'relayed' }], 0, 2, tags);
  assert.match(marks[0].text, /StartButton=1 from m \(twin, mqtt\): relayed$/);
});

test('marks: where along the window, the sender, and what was asked and what became of it in words', () => {
  const marks = tl.commandMarks(CMDS, 1000, 3000, tags);
  assert.equal(marks.length, 5, 'only the window\'s');
  assert.deepEqual(marks.map((m) => m.x), [0, 0.25, 0.5, 0.75, 0.8]);
  assert.deepEqual(marks.map((m) => m.slot), [0, 0, 2, 0, 1]);
  const at = (ms) => tl.clockText(ms, true);
  assert.equal(marks[0].text, `${at(1000)} StartButton=1 from web-1 (twin token aaaabbbbcccc, ws): written`);
  assert.equal(marks[1].text, `${at(1500)} EntrySensor=1, DetectSensor=0 from web-1 (twin token aaaabbbbcccc, ws): written`);
  assert.equal(marks[2].text, `${at(2000)} StopButton=1 from rest-viewer (viewer token ddddeeeeffff, rest): refused E_READ_ONLY`);
  assert.match(marks[3].text, /: no answer in the log$/);
  assert.match(marks[4].text, /: repeat \(first: written\)$/);
  assert.deepEqual(marks.map((m) => m.outcome), ['written', 'written', 'refused', 'none', 'repeat']);
  assert.equal(tl.valuesText({ x9: 'a"b' }), 'x9="a\\"b"', 'a tag the table does not know, a text value quoted');
  assert.equal(tl.valuesText(undefined, tags), 'values not read', 'a viewer\'s REST command, refused before its body was read');
});

test('history marks: backfilled states as spans, the edge\'s snapshots as points, inside the window', () => {
  const frames = [
    { t: 500, k: 'backfill' }, // before the window
    { t: 1000, k: 'snap' },
    { t: 1200, k: 'backfill' }, { t: 1700, k: 'backfill' }, { t: 2500, k: 'state' }, { t: 3000, k: 'backfill' },
    { t: 9000, k: 'backfill' }, { t: 9500, k: 'backfill' },
  ];
  const m = tl.historyMarks(frames, 1000, 11000, 1000);
  assert.deepEqual(m.snaps, [{ at: 1000, x: 0 }]);
  assert.deepEqual(m.backfill.map((b) => [b.from, b.to, b.frames]), [[1200, 1700, 2], [3000, 3000, 1], [9000, 9500, 2]]);
  assert.deepEqual([m.backfill[0].x0, m.backfill[0].x1], [0.02, 0.07]);
});
