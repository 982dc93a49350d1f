'use strict';
/**
 * bench/study.js's command line: the full run's defaults (the study's sizes, every load and task),
 * the smoke run's few messages, and unknown loads or tasks refused with a code.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parse } = require('../../bench/study');

test('the full run: the study\'s 15 sizes from 2 to 32768 bytes, every load and task, all stacks', () => {
  const o = parse([]);
  assert.equal(o.sizes.length, 15);
  assert.deepEqual([o.sizes[0], o.sizes[14]], [2, 32768]);
  assert.deepEqual(o.loads, ['idle', 'cpu', 'net']);
  assert.deepEqual(o.tasks, ['bytes', 'rtt', 'chain', 'own']);
  assert.deepEqual(o.bytesSizes, [0, 100, 1000, 10000]);
  assert.deepEqual(o.stacks, ['tcp', 'udp', 'ws', 'mqtt', 'mosquitto', 'opcua', 'ros', 'dds', 'fastdds']);
  assert.deepEqual(o.chainStacks, ['ros', 'dds', 'mqtt', 'mosquitto']);
  assert.match(o.out, /bench\/results\/\d{4}-\d\d-\d\d-study$/);
});

test('the smoke run: idle only, two sizes, a few messages; options override it', () => {
  const o = parse(['--smoke', '--stacks', 'ros', '--count', '7']);
  assert.deepEqual(o.loads, ['idle']);
  assert.deepEqual(o.sizes, [2, 1024]);
  assert.equal(o.count, 7);
  assert.deepEqual(o.stacks, ['ros']);
});

test('unknown loads, tasks and stacks, and a many-nodes stack without forwarders, are refused with a code', () => {
  assert.throws(() => parse(['--loads', 'idle,disk']), { code: 'E_STUDY_ARGS' });
  assert.throws(() => parse(['--tasks', 'rtt,latency']), { code: 'E_STUDY_ARGS' });
  assert.throws(() => parse(['--stacks', 'zenoh']), { code: 'E_STUDY_ARGS' });
  assert.throws(() => parse(['--chain-stacks', 'opcua']), { code: 'E_STUDY_ARGS', message: /no forwarding role/ });
});

test('a rerun replaces the earlier cells it measured again and keeps the others, and says so', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { mergeInto } = require('../../bench/study');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-study-merge-'));
  try {
    const cell = (stack, load, v) => ({ stack, task: 'rtt', load, spec: {}, result: { v } });
    fs.writeFileSync(path.join(dir, 'cells.json'), JSON.stringify([cell('udp', 'net', 'old'), cell('ros', 'idle', 'kept')]));
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ command: 'first', own: { idle: { probe: 1 } } }));
    const rerun = { command: 'node bench/study.js --into x', startedAt: 'a', finishedAt: 'b', options: { net: { rateMbit: 500 } } };
    const { summary, cells } = mergeInto(dir, rerun, [cell('udp', 'net', 'new'), cell('dds', 'net', 'added')], { net: { probe: 2 } });
    assert.deepEqual(cells.map((c) => `${c.stack}/${c.load}:${c.result.v}`), ['udp/net:new', 'ros/idle:kept', 'dds/net:added']);
    assert.deepEqual(summary.own, { idle: { probe: 1 }, net: { probe: 2 } });
    assert.equal(summary.command, 'first');
    assert.deepEqual(summary.options.net, { rateMbit: 500 }, 'the link settings stated are the rerun\'s');
    assert.deepEqual(summary.reruns[0].cells, ['udp/rtt/net/', 'dds/rtt/net/']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
