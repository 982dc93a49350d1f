'use strict';
/**
 * The table of the study's stacks, and Cyclone DDS's configuration (unicast discovery on loopback).
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { STACKS, pick } = require('../../../bench/study/stacks');
const { cycloneConfig } = require('../../../bench/study/dds-config');

test('every stack says what it is, what it needs and how its companion starts', () => {
  assert.deepEqual(Object.keys(STACKS), ['tcp', 'udp', 'ws', 'mqtt', 'mosquitto', 'opcua', 'ros', 'dds', 'fastdds']);
  for (const s of Object.values(STACKS)) {
    assert.ok(s.label && s.impl && s.needs, s.id);
    assert.ok(['tcp', 'udp'].includes(s.transport), s.id);
    const c = s.command('echo', ['--mode', 'echo']);
    assert.equal(typeof c.cmd, 'string');
    assert.deepEqual(c.args.slice(-3), ['echo', '--mode', 'echo'], s.id);
  }
  assert.match(STACKS.ros.label, /ROS 1/, 'ROS 1 is what runs, and the label says so');
});

test('a list of stacks picks them in its order; an unknown one is refused with a code', () => {
  assert.deepEqual(pick('ros,mqtt').map((s) => s.id), ['ros', 'mqtt']);
  assert.equal(pick('all').length, Object.keys(STACKS).length);
  assert.throws(() => pick('ros,ros2'), { code: 'E_STUDY_ARGS', message: /ros2/ });
});

test('Cyclone DDS discovers by unicast on 127.0.0.1 with multicast off, over enough participant indices', () => {
  const xml = cycloneConfig({ participants: 120 });
  assert.match(xml, /<AllowMulticast>false<\/AllowMulticast>/);
  assert.match(xml, /<Peer address="127\.0\.0\.1"\/>/);
  assert.match(xml, /<NetworkInterface address="127\.0\.0\.1"\/>/);
  assert.equal(Number(/<MaxAutoParticipantIndex>(\d+)</.exec(xml)[1]), 122);
  assert.equal(Number(/<MaxAutoParticipantIndex>(\d+)</.exec(cycloneConfig())[1]), 9, 'Cyclone\'s own default for a pair');
});
