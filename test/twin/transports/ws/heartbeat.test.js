'use strict';
/** The client's heartbeat on a ws WebSocket (twin/transports/ws/heartbeat.js), on mocked timers. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { startHeartbeat } = require('../../../../twin/transports/ws/heartbeat');

function fakeSocket() {
  const s = new EventEmitter();
  s.pings = 0;
  s.terminated = 0;
  s.ping = () => { s.pings += 1; };
  s.terminate = () => { s.terminated += 1; };
  return s;
}

test('a ping every period; a connection that answers stays, one that does not is terminated', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const alive = fakeSocket();
  const hb = startHeartbeat(alive, 1000);
  for (let i = 0; i < 5; i += 1) {
    t.mock.timers.tick(1000);
    alive.emit('pong');
  }
  assert.equal(alive.pings, 5);
  assert.equal(alive.terminated, 0);
  hb.stop();
  t.mock.timers.tick(5000);
  assert.equal(alive.pings, 5, 'no ping after stop');
  assert.equal(alive.listenerCount('pong'), 0);

  const silent = fakeSocket();
  startHeartbeat(silent, 1000);
  t.mock.timers.tick(1000);
  assert.equal(silent.terminated, 0, 'one ping without its pong yet');
  t.mock.timers.tick(1000);
  assert.equal(silent.terminated, 1, 'no pong for a whole period: terminated');
  assert.equal(silent.pings, 1);
});

test('a socket whose ping throws (closing) is left to its close handler', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const s = fakeSocket();
  s.ping = () => { throw new Error('not open'); };
  const hb = startHeartbeat(s, 100);
  assert.doesNotThrow(() => t.mock.timers.tick(100));
  hb.stop();
});
