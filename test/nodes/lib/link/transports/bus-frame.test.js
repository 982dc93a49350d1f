'use strict';
/** lib/link/transports/bus-frame.js: one link message on a bus, the same bytes on every broker. */
const test = require('node:test');
const assert = require('node:assert/strict');
const bus = require('../../../../../nodes/lib/link/transports/bus-frame');

test('a message is its type, its session id and its body, 17 bytes of header', () => {
  const sid = bus.newSessionId();
  assert.match(sid, /^[0-9a-f]{32}$/);
  assert.notEqual(sid, bus.newSessionId());
  const frame = bus.encode('frame', sid, '{"v":1}');
  assert.equal(frame.length, bus.HEADER_BYTES + 7);
  assert.deepEqual(bus.decode(frame), { type: 'frame', sid, body: Buffer.from('{"v":1}') });
  const bin = bus.encode('frame', sid, Buffer.from([0, 1, 255]));
  assert.deepEqual([...bus.decode(bin).body], [0, 1, 255]);
  const hello = bus.decode(bus.encode('hello', sid, { token: 't', plant: 'p1' }));
  assert.deepEqual(bus.controlBody(hello.body), { token: 't', plant: 'p1' });
  assert.deepEqual(bus.controlBody(bus.decode(bus.encode('ping', sid)).body), {});
  for (const t of bus.TYPES) assert.equal(bus.decode(bus.encode(t, sid)).type, t);
});

test('anything else is E_LINK_MESSAGE', () => {
  assert.throws(() => bus.encode('nope', bus.newSessionId()), { code: 'E_LINK_MESSAGE' });
  assert.throws(() => bus.decode(Buffer.from('short')), { code: 'E_LINK_MESSAGE' });
  assert.throws(() => bus.decode(Buffer.alloc(20, 0)), { code: 'E_LINK_MESSAGE' }, 'type 0');
  assert.throws(() => bus.decode('not a buffer'), { code: 'E_LINK_MESSAGE' });
  assert.throws(() => bus.controlBody(Buffer.from('[1]')), { code: 'E_LINK_MESSAGE' });
  assert.throws(() => bus.controlBody(Buffer.from('{')), { code: 'E_LINK_MESSAGE' });
});
