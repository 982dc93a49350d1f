'use strict';
/** bench/lib/where-bytes.js: the report's "where the bytes go" from the transports' books. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { addProduction, emptyWhere, whereLines, perBox } = require('../../bench/lib/where-bytes');
const { createByteBook } = require('../../twin/transports/ws/bytes');

test('rows per box with the rest of the TCP stream, and the JSON split for WebSocket frames', () => {
  const book = createByteBook();
  for (let i = 0; i < 4; i++) book.add('up', { v: 1, k: 'cmd', src: 't', seq: i + 1, ts: 1, d: { se: i % 2 } }, 10);
  book.add('down', { v: 1, k: 'ack', src: 'e', seq: 1, ts: 1, ref: { src: 't', seq: 1 } }, 12);
  const w = emptyWhere();
  addProduction(w, { where: book.rows(), bytesOut: 100, bytesIn: 50, encoding: 's7twin.v1+msgpack' });
  addProduction(w, { bytesOut: 1 }); // a transport without a book adds nothing
  const rows = perBox(w, 2);
  const cmd = rows.find((r) => r.kind === 'cmd');
  assert.deepEqual([cmd.frames, cmd.bytes, cmd.framing], [2, 32, 12]); // 4 × (10 + 6) / 2 boxes
  assert.equal(rows.find((r) => r.dir === 'up' && r.kind.startsWith('rest')).bytes, (100 - 64) / 2);
  assert.equal(rows.find((r) => r.dir === 'down' && r.kind.startsWith('rest')).bytes, (50 - 14) / 2);
  const s = { profiles: { local: { productions: { ws: { bytes: { boxes: 2 }, where: w }, mqtt: { bytes: { boxes: 0 }, where: w } } } } };
  const md = whereLines(s, (p) => p.toUpperCase()).join('\n');
  assert.match(md, /### Where the bytes go/);
  assert.match(md, /\| local \| WS \(s7twin\.v1\+msgpack\) \| ↑ twin → cloud \| cmd \| 2\.0 \| 32 \| 12 \|/);
  assert.match(md, /JSON tag names/);
  assert.doesNotMatch(md, /\| MQTT \(/, 'a path without boxes has no rows');
  assert.deepEqual(whereLines({ profiles: {} }, String), []);
});
