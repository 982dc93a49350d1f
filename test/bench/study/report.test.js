'use strict';
/**
 * The study's report sections: every figure comes from the cells it was given, beside the study's
 * own (Table II, Table III), and a stack that failed says why instead of showing a number.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const report = require('../../../bench/study/report');
const PAPER = require('../../../bench/study/paper-figures.json');

const rtt = (stack, load, bySize) => ({ stack, task: 'rtt', load, spec: {}, result: { bySize } });
const samples = (n, us) => ({ rttUs: Array.from({ length: n }, () => us), lost: 0 });

test('the study\'s figures are transcribed whole: 15 sizes per Table III row, 4 payloads per Table II row', () => {
  for (const [key, loads] of Object.entries(PAPER.table3.echo)) {
    for (const [load, row] of Object.entries(loads)) assert.equal(row.length, 15, `${key} ${load}`);
  }
  assert.equal(PAPER.table3.echo.ros.idle[9], 814); // ROS, 1024 bytes, idle
  assert.equal(PAPER.table3.echo.dds.cpu[0], 624);
  for (const row of Object.values(PAPER.table2.rows)) assert.equal(row.sizes.length, 4);
  assert.equal(PAPER.table2.rows.ros.connection, 8915);
});

test('round trips: means per size beside the study\'s, median / p99, and what each load adds', () => {
  const cells = [
    rtt('ros', 'idle', { 2: samples(10, 200), 1024: samples(10, 300) }),
    rtt('ros', 'cpu', { 2: samples(10, 500), 1024: samples(10, 900) }),
    rtt('dds', 'idle', { 2: samples(10, 100), 1024: { rttUs: [], lost: 10 } }),
  ];
  const md = report.rttSection(cells, { count: 10, warmup: 2 });
  assert.match(md, /\| ROS 1 \| 200 \(618\) \| 300 \(814\) \|/);
  assert.match(md, /### every core busy[\s\S]*\| ROS 1 \| 500 \(256\) \| 900 \(421\) \|/);
  assert.match(md, /\| DDS \(Cyclone\) \| 100 \(726\) \| – \(314\) \|/, 'no samples: a dash, the study\'s figure still beside it');
  assert.match(md, /\| DDS \(Cyclone\) \| 100 \/ 100 \| – \| 10 \|/, 'lost round trips are counted');
  assert.match(md, /\| ROS 1 \| \+300 µs \(×2\.5\) \| \+600 µs \(×3\.0\) \| – \| – \|/);
});

test('a measurement that failed says why', () => {
  const cells = [{ stack: 'fastdds', task: 'rtt', load: 'net', spec: {}, error: { code: 'E_NOT_MATCHED', message: 'no answer' } }];
  assert.match(report.rttSection(cells, {}), /DDS \(Fast DDS\), net: E_NOT_MATCHED: no answer/);
  const bytes = [{ stack: 'ros', task: 'bytes', load: 'idle', spec: {}, error: { code: 'E_CAPTURE', message: 'tcpdump did not start' } }];
  assert.match(report.bytesSection(bytes), /ROS 1: E_CAPTURE: tcpdump did not start/);
});

test('bytes: per message beside Table II, set-up beside its connection column, our counter beside the capture', () => {
  const bySize = (size, bpm) => ({ bytesPerMessage: bpm, overhead: bpm - size, packetsPerMessage: 1, capture: { payload: bpm * 20 } });
  const cells = [{
    stack: 'mqtt', task: 'bytes', load: 'idle', spec: {},
    result: { setup: { payload: 138, packets: 34 }, bySize: { 0: bySize(0, 7), 100: bySize(100, 107) }, counters: { tx: 500, rx: 600 } },
  }];
  const md = report.bytesSection(cells);
  assert.match(md, /\| MQTT \(aedes\) \| 7 \(5\) \| 107 \(105\) \| – \(1,006\) \| – \(10,006\) \| 1\.00 \| 138 \(17\) \| 34 \| 1,100 \/ 2,418 \|/);
  assert.match(md, /two links/);
});

test('many nodes: nodes, start, round times, memory and CPU; a chain that did not come up says why', () => {
  const ok = { stack: 'ros', task: 'chain', load: 'idle', spec: { streams: 2, hops: 5, size: 10240 },
    result: {
      nodes: 10, streams: 2, hops: 5, startedS: 4, matchedS: 1, rttUs: [2000, 4000], lost: 0,
      rssTotalMB: 300, rssPerNodeMB: 30, forwardersCpuPct: 12, machineCpuPct: 50, cores: 2,
    } };
  const bad = { stack: 'dds', task: 'chain', load: 'idle', spec: { streams: 2, hops: 100, size: 10240 }, error: { code: 'E_STUDY_MEMORY', message: 'not ' +
    'started: too big' } };
  const md = report.chainSection([ok, bad]);
  assert.match(md, /\| ROS 1 \| 10 \| 2 × 5 \| 5\.0 \| 3\.0 \/ 3\.0 \/ 4\.0 \| 2 \(0 lost\) \| 300 \| 30\.0 \| 12 \| machine 50 % of 2 cores \|/);
  assert.match(md, /\| DDS \(Cyclone\) \| 200 \| 2 × 100 \|.*failed: E_STUDY_MEMORY: not started: too big/);
  assert.equal(report.chainSection([]), '');
});

test('our own path: each load beside idle with the ratio of the means', () => {
  const s = (mean) => ({ n: 10, mean, median: mean, p99: mean * 2 });
  const md = report.ownSection({ idle: { probe: s(10), production: s(20) }, cpu: { probe: s(25), production: s(30) }, net: { error: 'bench/run.js ' +
    'exited 1' } });
  assert.match(md, /\| idle \| 10\.0 \/ 10\.0 \/ 20\.0 \| 10 \| 20\.0 \/ 20\.0 \/ 40\.0 \| 10 \|/);
  assert.match(md, /\| every core busy \| 25\.0 \/ 25\.0 \/ 50\.0 \(×2\.5\) \| 10 \| 30\.0 \/ 30\.0 \/ 60\.0 \(×1\.5\) \| 10 \|/);
  assert.match(md, /\| network loaded \| failed: bench\/run\.js exited 1 \|/);
});

test('a capture that lost packets is named under the table', () => {
  const r = { setup: { payload: 1, packets: 1 }, bySize: { 0: { bytesPerMessage: 8, packetsPerMessage: 1, capture: { payload: 8 } } }, dropped: 75 };
  const md = report.bytesSection([{ stack: 'ros', task: 'bytes', load: 'idle', spec: {}, result: r }]);
  assert.match(md, /Captures that lost packets:\n- ROS 1: tcpdump dropped 75 packets/);
  assert.doesNotMatch(report.bytesSection([{ stack: 'ros', task: 'bytes', load: 'idle', spec: {}, result: { ...r, dropped: 0 } }]), /lost packets/);
});

test('a load that leaves a mean below idle shows a minus, and both MQTT brokers stand beside the study\'s MQTT', () => {
  const cells = [
    rtt('mosquitto', 'idle', { 2: samples(10, 300) }),
    rtt('mosquitto', 'cpu', { 2: samples(10, 250) }),
  ];
  const md = report.rttSection(cells, { count: 10, warmup: 2 });
  assert.match(md, /\| MQTT \(Mosquitto\) \| 300 \(584\) \|/);
  assert.match(md, /\| MQTT \(Mosquitto\) \| -50 µs \(×0\.8\) \| -50 µs \(×0\.8\) \| – \| – \|/);
  assert.doesNotMatch(md, /\+-/);
});

test('sizes a rerun left out are named under their load, so a dash is not read as a failure', () => {
  const cells = [
    rtt('ros', 'net', { 2: samples(10, 900), 32768: samples(10, 9000) }),
    rtt('fastdds', 'net', { 2: samples(10, 100) }),
  ];
  const md = report.rttSection(cells, { count: 10, warmup: 2 });
  assert.match(md, /Sizes not run, network loaded \(a dash above\): DDS \(Fast DDS\): 32,768 B\./);
  assert.doesNotMatch(report.rttSection([rtt('ros', 'idle', { 2: samples(10, 1) })], {}), /Sizes not run/);
});

test('bytes under load: a table beside idle when a run counted them, and a line saying how when it did not', () => {
  const r = (bpm) => ({
    setup: { payload: 100, packets: 10 }, bySize: { 0: { bytesPerMessage: bpm, packetsPerMessage: 1, capture: { payload: bpm } } }, dropped: 0,
  });
  const idle = { stack: 'ros', task: 'bytes', load: 'idle', spec: {}, result: r(8) };
  assert.match(report.bytesSection([idle]), /Counted with the host idle only in this run: `node bench\/study\.js --tasks bytes --loads idle,cpu,net`/);
  const net = { stack: 'ros', task: 'bytes', load: 'net', spec: {}, result: { ...r(9.5), dropped: 3 } };
  const cpu = { stack: 'ros', task: 'bytes', load: 'cpu', spec: {}, error: { code: 'E_CAPTURE', message: 'x' } };
  const md = report.bytesSection([idle, net, cpu]);
  assert.match(md, /### Under load/);
  assert.match(md, /\| ROS 1 \| idle \| 8 \| – \| – \| – \| 1\.00 \|/);
  assert.match(md, /\| ROS 1 \| network loaded \| 9\.5 \| – \| – \| – \| 1\.00 \|/);
  assert.match(md, /\| ROS 1 \| every core busy \| failed: E_CAPTURE \|/);
  assert.match(md, /\| ROS 1 \| 8 \(8\) \|/, 'the main table stays the idle count');
  assert.match(md, /- ROS 1, network loaded: tcpdump dropped 3 packets/);
});
