'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const mqttPacket = require('mqtt-packet');
const { createScanner } = require('../../../../nodes/lib/mqtt/frame-guard');

const publish = (n) => mqttPacket.generate({ cmd: 'publish', topic: 't', payload: Buffer.alloc(n), qos: 0, retain: false, dup: false });

test('scanner passes packets up to the limit, split at any byte', () => {
  const stream = Buffer.concat([publish(10), publish(200), mqttPacket.generate({ cmd: 'pingreq' }), publish(1000)]);
  for (const size of [1, 2, 3, 7, 64, stream.length]) {
    const scan = createScanner(1100);
    for (let i = 0; i < stream.length; i += size) assert.equal(scan(stream.subarray(i, i + size)), true, `chunk ${size}`);
  }
});

test('scanner stops at the header of a packet larger than the limit, before its body', () => {
  const big = publish(5000);
  const scan = createScanner(1024);
  assert.equal(scan(publish(10)), true);
  // Only the fixed header (type + 2 length bytes) of the big packet has arrived.
  assert.equal(scan(big.subarray(0, 3)), false);
  assert.equal(scan(publish(1)), false); // stays failed
});

test('scanner refuses a remaining length of more than four bytes', () => {
  const scan = createScanner(Number.MAX_SAFE_INTEGER);
  assert.equal(scan(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff])), false);
});
