'use strict';
/** twin/transports/ws/bytes.js: where a WebSocket twin's bytes go, by direction, kind and part. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createByteBook, addRows, jsonParts, framingOf } = require('../../../../twin/transports/ws/bytes');

test('WebSocket framing: 2, 4 or 10 bytes by payload length, 4 more for a client\'s mask', () => {
  assert.deepEqual([framingOf(125, false), framingOf(126, false), framingOf(65535, false), framingOf(65536, false)], [2, 4, 4, 10]);
  assert.equal(framingOf(10, true), 6);
});

test('a JSON envelope\'s bytes split into header, answer fields, tag names and values, adding up to its text', () => {
  const envs = [
    { v: 1, k: 'state', src: 'edge-1', seq: 12, ts: 1795000000123.5, d: { c1: 1, ng: 300 } },
    { v: 1, k: 'ack', src: 'edge-1', seq: 13, ts: 1, ref: { src: 'twin-1', seq: 4 }, dl: 2.5 },
    { v: 1, k: 'err', src: 'cloud', seq: 1, ts: 1, e: { code: 'E_X', msg: 'ü' } },
    { v: 1, k: 'snap', src: 'e', seq: 1, ts: 1, d: {} },
  ];
  for (const env of envs) {
    const p = jsonParts(env);
    assert.equal(p.total, Buffer.byteLength(JSON.stringify(env)), JSON.stringify(env));
    assert.equal(p.header + p.answer + p.names + p.values, p.total);
  }
  assert.deepEqual(jsonParts(envs[0]).names, '"c1":'.length + '"ng":'.length);
  assert.equal(jsonParts(envs[0]).values, 4);
});

test('the book counts frames per direction and kind, and the values a state echoes of the twin\'s own command', () => {
  const book = createByteBook();
  book.add('up', { v: 1, k: 'cmd', src: 't', seq: 1, ts: 1, d: { se: 1 } }, 11);
  book.add('down', { v: 1, k: 'state', src: 'e', seq: 1, ts: 1, d: { se: 1, c1: 1 } }, 9, { se: 1 });
  book.add('down', { v: 1, k: 'state', src: 'e', seq: 2, ts: 1, d: { se: 0 } }, 7, { se: 1 });
  const rows = book.rows();
  const up = rows.find((r) => r.dir === 'up');
  const down = rows.find((r) => r.dir === 'down' && r.kind === 'state');
  assert.deepEqual([up.frames, up.wire, up.wireFraming], [1, 11, 6]);
  assert.deepEqual([down.frames, down.wire, down.wireFraming], [2, 16, 4]);
  assert.equal(down.echoed, '"se":1'.length, 'only the value equal to the command is an echo');
  const sum = addRows([rows, rows]);
  assert.equal(sum.find((r) => r.dir === 'down').frames, 4);
});
