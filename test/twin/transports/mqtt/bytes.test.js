'use strict';
/** twin/transports/mqtt/bytes.js: where an MQTT twin's bytes go, packet by packet. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPacketBook, topicKind } = require('../../../../twin/transports/mqtt/bytes');

test('a PUBLISH is its fixed header, topic and payload; other packets count by their reported length', () => {
  const book = createPacketBook();
  book.add('up', { cmd: 'publish', topic: 's7twin/plant1/cmd', payload: '{"se":1}', qos: 0 });
  book.add('down', { cmd: 'publish', topic: 's7twin/plant1/probe/res/17', payload: Buffer.alloc(200), qos: 1 });
  book.add('down', { cmd: 'connack', length: 2 });
  const rows = book.rows();
  const cmd = rows.find((r) => r.kind === 'publish cmd');
  assert.deepEqual([cmd.dir, cmd.frames, cmd.header, cmd.values, cmd.wireFraming, cmd.wire], ['up', 1, 19, 8, 2, 29]);
  const res = rows.find((r) => r.kind === 'publish res');
  assert.equal(res.wireFraming, 3, 'a remaining length past 127 takes two bytes');
  assert.equal(res.wire, 3 + 2 + 26 + 2 + 200);
  assert.equal(rows.find((r) => r.kind === 'connack').wire, 4);
  assert.equal(topicKind('s7twin/p/state'), 'state');
});
