'use strict';
/**
 * lib/link/server-set.js: one 'upgrade' listener for all the endpoints of an instance, the plants
 * of its twins watched by its edge endpoints, and a request that reached no peer refused to its
 * twin through the twin endpoint.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { createEndpointSet } = require('../../../../nodes/lib/link/server-set');

/** A member with a stand-in endpoint that takes upgrades for its own path. */
function member(role, path, tokens = []) {
  const endpoint = new EventEmitter();
  Object.assign(endpoint, {
    upgrades: [], watched: [], sent: [],
    handleUpgrade(req) { if (req.url !== path) return false; endpoint.upgrades.push(req.url); return true; },
    watch(p) { endpoint.watched.push(p); return Promise.resolve(); },
    errorFor: (env, code, text) => ({ k: 'err', ref: { src: env.src, seq: env.seq }, e: { code, msg: text } }),
    send(env, id, plant) { endpoint.sent.push([env, plant]); return 1; },
  });
  return { role, path, tokens, endpoint };
}

test('one upgrade listener for every endpoint, attached with the first and removed with the last', () => {
  const server = new EventEmitter();
  const set = createEndpointSet(server);
  const twin = member('twin', '/t', ['tw']);
  const edge = member('edge', '/e', ['ed']);
  set.add(twin);
  set.add(edge);
  assert.equal(server.listenerCount('upgrade'), 1);
  assert.equal(set.has('/t'), true);
  assert.deepEqual(set.otherTokens('edge'), ['tw']);
  assert.deepEqual(set.otherTokens('twin'), ['ed']);
  server.emit('upgrade', { url: '/e' }, {}, Buffer.alloc(0));
  server.emit('upgrade', { url: '/other' }, {}, Buffer.alloc(0)); // left to other listeners
  assert.deepEqual([twin.endpoint.upgrades, edge.endpoint.upgrades], [[], ['/e']]);
  set.remove(twin);
  assert.equal(server.listenerCount('upgrade'), 1);
  set.remove(edge);
  assert.equal(server.listenerCount('upgrade'), 0);
  assert.equal(set.has('/t'), false);
});

test('the plants of twins connected here are watched by every edge endpoint, also one added later', () => {
  const set = createEndpointSet(new EventEmitter());
  const twin = member('twin', '/t');
  const edge1 = member('edge', '/e1');
  set.add(twin);
  set.add(edge1);
  twin.endpoint.emit('plant', 'a');
  assert.deepEqual(edge1.endpoint.watched, ['a']);
  const edge2 = member('edge', '/e2');
  set.add(edge2);
  assert.deepEqual(edge2.endpoint.watched, ['a']);
});

test('a request that reached no edge is refused to its twin through the twin endpoints', () => {
  const set = createEndpointSet(new EventEmitter());
  const twin = member('twin', '/t');
  const edge = member('edge', '/e');
  set.add(twin);
  set.add(edge);
  const n = set.refuseUndelivered(edge, { src: 'tw', seq: 4 }, 'E_EDGE_DOWN', 'no edge', 'a');
  assert.equal(n, 1);
  assert.deepEqual(twin.endpoint.sent, [[{ k: 'err', ref: { src: 'tw', seq: 4 }, e: { code: 'E_EDGE_DOWN', msg: 'no edge' } }, 'a']]);
  assert.deepEqual(edge.endpoint.sent, []);
});
