'use strict';
/**
 * bench/stream/report.js: the report's ceiling says the run's own rule (bench/stream/run.js
 * ceilingRule), and a PLC-stream cell that failed says so rather than "lost 0"; a PLC stream above
 * the ceiling is said to be above it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { ceilingLines, plcLines, flat } = require('../../../bench/stream/report');
const { ceilingOf } = require('../../../bench/stream/run');

const at = (rateHz, o = {}) => ({
  rateHz, elapsedMs: 5000, samplesPerS: 0.996 * rateHz, lost: 0, torn: 0, errors: [], pdus: 100, bytes: 1000,
  layout: { blocks: 16, blockSamples: 1000 }, cost: { edge: { cpuPct: 10 }, plc: { cpuPct: 5 } }, ...o,
});

test('the report\'s ceiling is the run\'s: every rate up to the first loss', () => {
  const ceiling = [at(100000), at(300000), at(400000, { lost: 6129 }), at(500000), at(600000, { lost: 10215 })];
  const text = ceilingLines({ ceiling }).join('\n');
  assert.equal(ceilingOf(ceiling), 300000, 'the run\'s \'ceiling\' PLC stream');
  assert.match(text, /every rate up to 300,000 Hz was read whole/);
  assert.match(text, /samples were lost at 400,000 Hz \(0\.3 %\), 600,000 Hz \(0\.3 %\), while 500,000 Hz read whole in this run/);
  assert.match(ceilingLines({ ceiling: [at(1000, { lost: 3 })] }).join('\n'), /Not even the lowest rate was read whole/);
});

const cell = (rateHz, o = {}) => flat('local', 'ws', 'plc', {
  rateHz, layout: {}, edge: {}, tailLost: 0,
  cloud: { frames: 1000, windowMs: 10000, samplesPerS: rateHz, latency: { mean: 1, sd: 0.1, p99: 2 }, jitter: 0.1, jitterSd: 0.05,
    perSample: { mean: 20, p99: 25 }, receiver: { lost: 12, outOfOrder: 0, wrong: 0 } },
  ...o,
});
const rowOf = (lines, hz) => lines.find((l) => l.startsWith(`| local | WebSocket | ${hz} |`)).split(' | ');

test('a PLC-stream cell that failed says failed with its error, not lost 0', () => {
  const failed = cell(10000, { cloud: undefined, error: 'E_BENCH_EDGE the edge did not answer' });
  assert.equal(failed.lost, 0, 'flat() counts nothing lost: the table must not show that');
  const lines = plcLines([cell(1000), failed]).join('\n').split('\n');
  const head = lines.find((l) => l.startsWith('| profile |')).split(' | ');
  const lostCol = head.indexOf('lost');
  assert.equal(rowOf(lines, 10000)[lostCol], 'failed: E_BENCH_EDGE the edge did not answer');
  assert.equal(rowOf(lines, 10000)[lostCol + 1], '–', 'out of order: not counted');
  assert.equal(rowOf(lines, 1000)[lostCol], '12', 'a cell that ran: its count');
});

test('a PLC stream above the S7 ceiling is said to be above it', () => {
  const rows = [cell(1000), cell(500000)];
  const said = plcLines(rows, 300000).join('\n');
  assert.match(said, /500,000 Hz is above the S7 ceiling \(300,000 Hz, above\).*cannot be put down to the link/);
  assert.doesNotMatch(plcLines(rows, 500000).join('\n'), /above the S7 ceiling/);
  assert.doesNotMatch(plcLines(rows).join('\n'), /above the S7 ceiling/, 'no ceiling measured: nothing said');
});
