'use strict';
/**
 * Each companion stack of the protocol study once, on the real protocol on the wire in a network
 * namespace of its own: ROS 1 through rospy and a master, Cyclone DDS and Fast DDS over RTPS/UDP,
 * MQTT through aedes and through Mosquitto, OPC UA and the WebSocket envelope (the Node.js
 * companion) each answer a few exchanges per payload size while a capture counts their bytes, and
 * the many-nodes stacks pass a message through two forwarding nodes; the raw TCP and UDP floor
 * answers its round trips. A stack that cannot run here fails the test: it is not skipped. Needs
 * root (unshare), what scripts/study-deps.sh installs, and Mosquitto (scripts/broker-deps.sh);
 * `bash scripts/test.sh` runs both first.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parse, runStudy } = require('../../../bench/study');

/** Run the study with `args` into a fresh folder; the folder is removed afterwards. */
async function study(args, check) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 's7t-study-test-'));
  try {
    const o = parse(['--smoke', ...args, '--out', out]);
    const r = await runStudy(o);
    assert.deepEqual(r.summary.skipped, {}, 'every stack can run here (bash scripts/study-deps.sh installs what is missing)');
    const failed = r.cells.filter((c) => !c.result).map((c) => `${c.stack}/${c.task}: ${c.error.code} ${c.error.message}`);
    assert.deepEqual(failed, []);
    await check(o, r.cells, fs.readFileSync(path.join(out, 'report.md'), 'utf8'));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

test('every protocol stack answers every exchange, its bytes are captured, and its forwarders pass a message on', async () => {
  await study(['--tasks', 'bytes,chain'], (o, cells, md) => {
    const bytes = Object.fromEntries(cells.filter((c) => c.task === 'bytes').map((c) => [c.stack, c.result]));
    assert.deepEqual(Object.keys(bytes).sort(), ['dds', 'fastdds', 'mosquitto', 'mqtt', 'opcua', 'ros', 'ws']);
    for (const [id, r] of Object.entries(bytes)) {
      for (const size of o.bytesSizes) assert.deepEqual(r.answered[size], { answered: o.bytesCount, lost: 0 }, `${id}, ${size} bytes: every exchange answered`);
      assert.ok(r.setup.payload > 0 && r.setup.packets > 0, `${id}: set-up is on the wire`);
      assert.ok(r.bySize[100].bytesPerMessage > 100, `${id}: a message carries its payload and a header`);
      assert.equal(r.dropped, 0, `${id}: the capture dropped nothing`);
    }
    // Protocol facts the capture must show: TCPROS sends a 4-byte length and std_msgs/String a
    // 4-byte string length before the text; MQTT 3.1.1 at QoS 0 a 2-byte fixed header and the
    // topic ("req", 2 + 3 bytes).
    assert.equal(bytes.ros.bySize[0].bytesPerMessage, 8);
    assert.equal(bytes.ros.bySize[100].bytesPerMessage, 108);
    assert.equal(bytes.mqtt.bySize[0].bytesPerMessage, 7);
    assert.equal(bytes.mosquitto.bySize[0].bytesPerMessage, 7, 'the same protocol through another broker');
    assert.ok(bytes.dds.setup.udp.packets > 0 && bytes.fastdds.setup.udp.packets > 0, 'DDS discovery went over UDP on loopback');
    // Our own counter beside the capture: the client's WebSocket socket wrote and read what the
    // capture counted, less the closing frames sent after the counter was read.
    const counted = bytes.ws.counters.tx + bytes.ws.counters.rx;
    const captured = bytes.ws.setup.payload + Object.values(bytes.ws.bySize).reduce((a, s) => a + s.capture.payload, 0);
    assert.ok(captured >= counted && captured - counted < 64, `ws: counter ${counted} vs capture ${captured}`);

    assert.deepEqual(cells.filter((c) => c.task === 'chain').map((c) => c.stack), o.chainStacks);
    for (const id of o.chainStacks) {
      const c = cells.find((x) => x.stack === id && x.task === 'chain');
      assert.equal(c.result.rttUs.length, o.chainRounds, `${id}: every round came through the forwarders`);
      assert.ok(c.result.rssTotalMB > 0, `${id}: resources measured`);
    }

    for (const heading of ['Bytes on the wire', 'Many nodes']) assert.match(md, new RegExp(`## ${heading}`));
    assert.match(md, /\| ROS 1 \| 8 \(8\) \| 108 \(108\) \|/);
    const labels = ['ROS 1', 'DDS (Cyclone)', 'DDS (Fast DDS)', 'MQTT (aedes)', 'MQTT (Mosquitto)', 'OPC UA C/S', 'WebSocket + envelope'];
    for (const label of labels) assert.ok(md.includes(`| ${label} |`), label);
  });
});

test('the raw TCP and UDP floor answers every round trip, and the report shows them by size', async () => {
  await study(['--stacks', 'tcp,udp', '--tasks', 'rtt'], (o, cells, md) => {
    assert.deepEqual(cells.map((c) => c.stack), ['tcp', 'udp']);
    for (const c of cells) {
      for (const size of o.sizes) {
        const r = c.result.bySize[size];
        assert.equal(r.rttUs.length, o.count, `${c.stack}, ${size} bytes: every timed round trip came back`);
        assert.equal(r.lost, 0, `${c.stack}, ${size} bytes`);
        assert.ok(r.rttUs.every((us) => us > 0), `${c.stack}: round trips take time`);
      }
    }
    assert.match(md, /## Round trip by message size[\s\S]*\| TCP \(raw\) \| \d+ \(250\) \| \d+ \(315\) \|/);
  });
});
