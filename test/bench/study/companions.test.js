'use strict';
/**
 * Each companion stack of the protocol study once, as `node bench/study.js --smoke` runs it: the
 * real protocol on the wire in a network namespace of its own (ROS 1 through rospy and a master,
 * Cyclone DDS and Fast DDS over RTPS/UDP, MQTT through aedes and through Mosquitto, OPC UA, the WebSocket envelope,
 * raw TCP and UDP), a few round trips per size, a capture of the bytes, and two forwarding nodes
 * per many-nodes stack. Needs root (unshare), what scripts/study-deps.sh installs, and Mosquitto
 * (scripts/broker-deps.sh).
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parse, runStudy } = require('../../../bench/study');

test('every stack answers every round trip, its bytes are captured, and the report shows them', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-study-test-'));
  try {
    const o = parse(['--smoke', '--tasks', 'bytes,rtt,chain', '--out', out]);
    const { cells, summary } = await runStudy(o);
    assert.deepEqual(summary.skipped, {}, 'every stack can run here (bash scripts/study-deps.sh installs what is missing)');
    const failed = cells.filter((c) => !c.result).map((c) => `${c.stack}/${c.task}: ${c.error.code} ${c.error.message}`);
    assert.deepEqual(failed, []);

    for (const id of o.stacks) {
      const c = cells.find((x) => x.stack === id && x.task === 'rtt');
      for (const size of o.sizes) {
        const r = c.result.bySize[size];
        assert.equal(r.rttUs.length, o.count, `${id}, ${size} bytes: every timed round trip came back`);
        assert.equal(r.lost, 0, `${id}, ${size} bytes`);
        assert.ok(r.rttUs.every((us) => us > 0), `${id}: round trips take time`);
      }
    }

    const bytes = Object.fromEntries(cells.filter((c) => c.task === 'bytes').map((c) => [c.stack, c.result]));
    assert.deepEqual(Object.keys(bytes).sort(), ['dds', 'fastdds', 'mosquitto', 'mqtt', 'opcua', 'ros', 'ws']);
    // Protocol facts the capture must show: TCPROS sends a 4-byte length and std_msgs/String a
    // 4-byte string length before the text; MQTT 3.1.1 at QoS 0 a 2-byte fixed header and the
    // topic ("req", 2 + 3 bytes).
    assert.equal(bytes.ros.bySize[0].bytesPerMessage, 8);
    assert.equal(bytes.ros.bySize[100].bytesPerMessage, 108);
    assert.equal(bytes.mqtt.bySize[0].bytesPerMessage, 7);
    assert.equal(bytes.mosquitto.bySize[0].bytesPerMessage, 7, 'the same protocol through another broker');
    for (const [id, r] of Object.entries(bytes)) {
      assert.ok(r.setup.payload > 0 && r.setup.packets > 0, `${id}: set-up is on the wire`);
      assert.ok(r.bySize[100].bytesPerMessage > 100, `${id}: a message carries its payload and a header`);
      assert.equal(r.dropped, 0, `${id}: the capture dropped nothing`);
    }
    assert.ok(bytes.dds.setup.udp.packets > 0 && bytes.fastdds.setup.udp.packets > 0, 'DDS discovery went over UDP on loopback');
    // Our own counter beside the capture: the client's WebSocket socket wrote and read what the
    // capture counted, less the closing frames sent after the counter was read.
    const counted = bytes.ws.counters.tx + bytes.ws.counters.rx;
    const captured = bytes.ws.setup.payload + Object.values(bytes.ws.bySize).reduce((a, s) => a + s.capture.payload, 0);
    assert.ok(captured >= counted && captured - counted < 64, `ws: counter ${counted} vs capture ${captured}`);

    for (const id of o.chainStacks) {
      const c = cells.find((x) => x.stack === id && x.task === 'chain');
      assert.equal(c.result.rttUs.length, o.chainRounds, `${id}: every round came through the forwarders`);
      assert.ok(c.result.rssTotalMB > 0, `${id}: resources measured`);
    }

    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    for (const heading of ['Bytes on the wire', 'Round trip by message size', 'Many nodes']) assert.match(md, new RegExp(`## ${heading}`));
    assert.match(md, /\| ROS 1 \| 8 \(8\) \| 108 \(108\) \|/);
    const labels = ['ROS 1', 'DDS (Cyclone)', 'DDS (Fast DDS)', 'MQTT (aedes)', 'MQTT (Mosquitto)', 'OPC UA C/S', 'WebSocket + envelope'];
    for (const label of labels) assert.ok(md.includes(`| ${label} |`), label);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
